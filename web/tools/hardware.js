/** @import { ToolDefinition, ToolContext, ToolFamily, ToolResult } from './types.d.ts' */
// Devices the user picked in the browser's own chooser, Web Serial first (docs/security.md,
// "Hardware"). serial_request asks the user through Clawser's dialog, whose button opens the
// browser's chooser (it needs the user's click); only ports picked there are reachable, by the id
// serial_list gives. Reads and writes are bounded in bytes and in time, and bytes are shown as
// hex. serial_read, serial_write and serial_close go through the ToolRunner's gates with the
// device as what the call touches: "Always allow" is offered for that one device, never for all.
import { z } from 'zod';
import { HARDWARE_LIMITS, HardwareError, asciiOf, fromHex, serialDevices, setKnownDeviceIds, toHex } from '../hardware/devices.js';
import { deviceRuleIds } from './approval-rules.js';
import { MAX_REPORT_BYTES, hidDevices } from '../hardware/hid.js';
import { usbDevices } from '../hardware/usb.js';
import { MAX_GATT_BYTES, bluetoothDevices } from '../hardware/bluetooth.js';

/**
 * Runs a tool's body, turning a device's failures into results the model can act on.
 * @param {ToolContext} ctx @param {() => Promise<ToolResult>} body
 */
async function guarded(ctx, body) {
  // A device re-found after a reload takes back the id this workspace's device rules name (devices.js, deviceId).
  const registry = ctx.services?.registry;
  if (registry) setKnownDeviceIds(() => deviceRuleIds(registry.rules()));
  try {
    return await body();
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    const e = /** @type {Error & {code?: string}} */ (err);
    return { ok: false, output: `${e?.message ?? String(err)}${e instanceof HardwareError ? ` (${e.code})` : ''}` };
  }
}

const device = z.string().min(1).max(200).describe('The device’s id, from serial_list');
const baudRate = z.number().int().min(50).max(4_000_000).optional().describe('Bits per second (default 9600), used when the port opens');
const timeoutMs = z
  .number()
  .int()
  .min(1)
  .max(HARDWARE_LIMITS.maxTimeoutMs)
  .optional()
  .describe(`How long to wait, in milliseconds (default ${HARDWARE_LIMITS.defaultTimeoutMs})`);
/** What a call touches, for the approval rules: the one device. @param {{device: string}} args */
const theDevice = (args) => ({ kind: /** @type {const} */ ('device'), targets: [args.device] });

/** @type {ToolDefinition} */
const serialList = {
  name: 'serial_list',
  description: 'List the serial ports the user picked for Clawser (only those can be used): each one’s id, what it is, whether it is open.',
  permission: 'read',
  schema: z.object({}),
  run: (_args, ctx) =>
    guarded(ctx, async () => {
      const devices = serialDevices();
      if (!devices.supported) return { ok: false, output: 'This browser has no Web Serial (Chromium-based browsers on desktop have it).' };
      const ports = await devices.list();
      if (!ports.length) return { ok: true, output: 'The user has picked no serial port. serial_request asks them to pick one.' };
      return { ok: true, output: ports.map((p) => `${p.id}: ${p.label}${p.open ? ' [open]' : ''}`).join('\n') };
    }),
};

/** @type {ToolDefinition} */
const serialRequest = {
  name: 'serial_request',
  description:
    'Ask the user to pick a serial port in the browser’s chooser (say why in reason). Only the user can pick; the port picked is ' +
    'then listed by serial_list and usable by its id.',
  permission: 'read',
  schema: z.object({ reason: z.string().min(1).max(500).describe('Why the agent needs the device, shown to the user') }),
  run: (args, ctx) =>
    guarded(ctx, async () => {
      const devices = serialDevices();
      if (!devices.supported) return { ok: false, output: 'This browser has no Web Serial (Chromium-based browsers on desktop have it).' };
      if (!ctx.ui?.pickDevice) return { ok: false, output: 'No one can pick a device here (no Clawser window to ask in).' };
      const picked = await ctx.ui.pickDevice(`The agent asks to use a serial port: ${args.reason}`, () => devices.request());
      if (!picked) return { ok: false, output: 'The user picked no serial port.' };
      return { ok: true, output: `The user picked ${picked.id}: ${picked.label}.` };
    }),
};

/** @type {ToolDefinition} */
const serialWrite = {
  name: 'serial_write',
  description:
    `Write bytes to a serial port the user picked: hex ("48 69 0a") or text (sent as UTF-8), at most ${HARDWARE_LIMITS.maxWriteBytes} ` +
    'bytes. Opens the port at baudRate if it is not open.',
  permission: 'browser',
  schema: z
    .object({
      device,
      hex: z
        .string()
        .max(HARDWARE_LIMITS.maxWriteBytes * 5)
        .optional(),
      text: z
        .string()
        .max(HARDWARE_LIMITS.maxWriteBytes * 4)
        .optional(),
      baudRate,
      timeoutMs,
    })
    .refine((a) => (a.hex === undefined) !== (a.text === undefined), { message: 'Give either hex or text (one of them).' }),
  scopeTargets: theDevice,
  preview: (args) =>
    `Write ${args.hex !== undefined ? `the bytes ${args.hex.slice(0, 200)}` : `the text “${args.text.slice(0, 200)}”`} to ${args.device}.`,
  run: (args, ctx) =>
    guarded(ctx, async () => {
      const bytes = args.hex !== undefined ? fromHex(args.hex) : new TextEncoder().encode(args.text);
      const n = await serialDevices().write(args.device, bytes, { baudRate: args.baudRate, timeoutMs: args.timeoutMs });
      return { ok: true, output: `Wrote ${n} bytes to ${args.device}: ${toHex(bytes)}` };
    }),
};

/** @type {ToolDefinition} */
const serialRead = {
  name: 'serial_read',
  description:
    `Read what a serial port the user picked sends: up to maxBytes (default ${HARDWARE_LIMITS.defaultReadBytes}, at most ` +
    `${HARDWARE_LIMITS.maxReadBytes}), returning once bytes come, or a timeout after timeoutMs. Shown as hex, with printable ASCII.`,
  permission: 'browser',
  untrusted: 'bytes a serial device sent',
  schema: z.object({
    device,
    maxBytes: z.number().int().min(1).optional().describe(`At most ${HARDWARE_LIMITS.maxReadBytes}`),
    baudRate,
    timeoutMs,
  }),
  scopeTargets: theDevice,
  run: (args, ctx) =>
    guarded(ctx, async () => {
      const bytes = await serialDevices().read(args.device, args);
      return { ok: true, output: `Read ${bytes.length} bytes from ${args.device}: ${toHex(bytes)}\nAs text: ${asciiOf(bytes)}` };
    }),
};

/** @type {ToolDefinition} */
const serialClose = {
  name: 'serial_close',
  description: 'Close a serial port the agent opened (it stays picked; the user revokes it in the Tools panel’s Devices).',
  permission: 'browser',
  schema: z.object({ device }),
  scopeTargets: theDevice,
  run: (args, ctx) =>
    guarded(ctx, async () => {
      await serialDevices().close(args.device);
      return { ok: true, output: `Closed ${args.device}.` };
    }),
};

const NO_HID = 'This browser has no WebHID (Chromium-based browsers on desktop have it).';
const hidDevice = z.string().min(1).max(200).describe('The device’s id, from hid_list');

/** @type {ToolDefinition} */
const hidList = {
  name: 'hid_list',
  description: 'List the HID devices the user picked for Clawser (only those can be used): each one’s id, name and ids, whether open.',
  permission: 'read',
  schema: z.object({}),
  run: (_args, ctx) =>
    guarded(ctx, async () => {
      const devices = hidDevices();
      if (!devices.supported) return { ok: false, output: NO_HID };
      const all = await devices.list();
      if (!all.length) return { ok: true, output: 'The user has picked no HID device. hid_request asks them to pick one.' };
      return { ok: true, output: all.map((d) => `${d.id}: ${d.label}${d.open ? ' [open]' : ''}`).join('\n') };
    }),
};

/** @type {ToolDefinition} */
const hidRequest = {
  name: 'hid_request',
  description: 'Ask the user to pick a HID device in the browser’s chooser (say why in reason). Only the user can pick.',
  permission: 'read',
  schema: z.object({ reason: z.string().min(1).max(500).describe('Why the agent needs the device, shown to the user') }),
  run: (args, ctx) =>
    guarded(ctx, async () => {
      const devices = hidDevices();
      if (!devices.supported) return { ok: false, output: NO_HID };
      if (!ctx.ui?.pickDevice) return { ok: false, output: 'No one can pick a device here (no Clawser window to ask in).' };
      const picked = await ctx.ui.pickDevice(`The agent asks to use a HID device: ${args.reason}`, () => devices.request());
      if (!picked) return { ok: false, output: 'The user picked no HID device.' };
      return { ok: true, output: `The user picked ${picked.id}: ${picked.label}.` };
    }),
};

/** @type {ToolDefinition} */
const hidSend = {
  name: 'hid_send',
  description: `Send an output report (hex bytes, at most ${MAX_REPORT_BYTES}) to a HID device the user picked.`,
  permission: 'browser',
  schema: z.object({
    device: hidDevice,
    reportId: z.number().int().min(0).max(255).optional().describe('The report id (0 when the device uses none)'),
    hex: z.string().max(MAX_REPORT_BYTES * 5),
  }),
  scopeTargets: theDevice,
  preview: (args) => `Send report ${args.reportId ?? 0} (${args.hex.slice(0, 200)}) to ${args.device}.`,
  run: (args, ctx) =>
    guarded(ctx, async () => {
      const bytes = fromHex(args.hex);
      await hidDevices().send(args.device, args.reportId ?? 0, bytes);
      return { ok: true, output: `Sent report ${args.reportId ?? 0} of ${bytes.length} bytes to ${args.device}: ${toHex(bytes)}` };
    }),
};

/** @type {ToolDefinition} */
const hidReceive = {
  name: 'hid_receive',
  description: 'Wait for the next input report of a HID device the user picked, or a timeout after timeoutMs. Shown as hex.',
  permission: 'browser',
  untrusted: 'reports a HID device sent',
  schema: z.object({ device: hidDevice, timeoutMs }),
  scopeTargets: theDevice,
  run: (args, ctx) =>
    guarded(ctx, async () => {
      const r = await hidDevices().receive(args.device, args);
      return { ok: true, output: `Report ${r.reportId} of ${r.data.length} bytes from ${args.device}: ${toHex(r.data)}` };
    }),
};

/** @type {ToolDefinition} */
const hidClose = {
  name: 'hid_close',
  description: 'Close a HID device the agent opened (it stays picked; the user revokes it in the Tools panel’s Devices).',
  permission: 'browser',
  schema: z.object({ device: hidDevice }),
  scopeTargets: theDevice,
  run: (args, ctx) =>
    guarded(ctx, async () => {
      await hidDevices().close(args.device);
      return { ok: true, output: `Closed ${args.device}.` };
    }),
};

const NO_USB = 'This browser has no WebUSB (Chromium-based browsers on desktop have it).';
const usbDevice = z.string().min(1).max(300).describe('The device’s id, from usb_list');
const endpointArgs = {
  device: usbDevice,
  iface: z.number().int().min(0).max(255).optional().describe('The interface number (default 0), claimed on first use'),
  endpoint: z.number().int().min(1).max(15).describe('The endpoint number'),
  timeoutMs,
};

/** @type {ToolDefinition} */
const usbList = {
  name: 'usb_list',
  description: 'List the USB devices the user picked for Clawser (only those can be used): each one’s id, name and ids, whether open.',
  permission: 'read',
  schema: z.object({}),
  run: (_args, ctx) =>
    guarded(ctx, async () => {
      const devices = usbDevices();
      if (!devices.supported) return { ok: false, output: NO_USB };
      const all = await devices.list();
      if (!all.length) return { ok: true, output: 'The user has picked no USB device. usb_request asks them to pick one.' };
      return { ok: true, output: all.map((d) => `${d.id}: ${d.label}${d.open ? ' [open]' : ''}`).join('\n') };
    }),
};

/** @type {ToolDefinition} */
const usbRequest = {
  name: 'usb_request',
  description: 'Ask the user to pick a USB device in the browser’s chooser (say why in reason). Only the user can pick.',
  permission: 'read',
  schema: z.object({ reason: z.string().min(1).max(500).describe('Why the agent needs the device, shown to the user') }),
  run: (args, ctx) =>
    guarded(ctx, async () => {
      const devices = usbDevices();
      if (!devices.supported) return { ok: false, output: NO_USB };
      if (!ctx.ui?.pickDevice) return { ok: false, output: 'No one can pick a device here (no Clawser window to ask in).' };
      const picked = await ctx.ui.pickDevice(`The agent asks to use a USB device: ${args.reason}`, () => devices.request());
      if (!picked) return { ok: false, output: 'The user picked no USB device.' };
      return { ok: true, output: `The user picked ${picked.id}: ${picked.label}.` };
    }),
};

/** @type {ToolDefinition} */
const usbTransferOut = {
  name: 'usb_transfer_out',
  description: `Send bytes (hex, at most ${HARDWARE_LIMITS.maxWriteBytes}) to an OUT endpoint of a USB device the user picked.`,
  permission: 'browser',
  schema: z.object({ ...endpointArgs, hex: z.string().max(HARDWARE_LIMITS.maxWriteBytes * 5) }),
  scopeTargets: theDevice,
  preview: (args) => `Send ${args.hex.slice(0, 200)} to endpoint ${args.endpoint} of ${args.device}.`,
  run: (args, ctx) =>
    guarded(ctx, async () => {
      const data = fromHex(args.hex);
      const n = await usbDevices().transferOut(args.device, { ...args, iface: args.iface ?? 0, data });
      return { ok: true, output: `Sent ${n} bytes to endpoint ${args.endpoint} of ${args.device}: ${toHex(data)}` };
    }),
};

/** @type {ToolDefinition} */
const usbTransferIn = {
  name: 'usb_transfer_in',
  description:
    `Read up to length bytes (at most ${HARDWARE_LIMITS.maxReadBytes}) from an IN endpoint of a USB device the user picked, ` +
    'or a timeout after timeoutMs. Shown as hex.',
  permission: 'browser',
  untrusted: 'bytes a USB device sent',
  schema: z.object({ ...endpointArgs, length: z.number().int().min(1) }),
  scopeTargets: theDevice,
  run: (args, ctx) =>
    guarded(ctx, async () => {
      const data = await usbDevices().transferIn(args.device, { ...args, iface: args.iface ?? 0 });
      return { ok: true, output: `Read ${data.length} bytes from endpoint ${args.endpoint} of ${args.device}: ${toHex(data)}` };
    }),
};

/** @type {ToolDefinition} */
const usbClose = {
  name: 'usb_close',
  description: 'Close a USB device the agent opened (it stays picked; the user revokes it in the Tools panel’s Devices).',
  permission: 'browser',
  schema: z.object({ device: usbDevice }),
  scopeTargets: theDevice,
  run: (args, ctx) =>
    guarded(ctx, async () => {
      await usbDevices().close(args.device);
      return { ok: true, output: `Closed ${args.device}.` };
    }),
};

const NO_BLUETOOTH = 'This browser has no Web Bluetooth (Chrome and Edge on desktop and Android have it).';
const uuid = z
  .string()
  .regex(/^(0x[0-9a-f]{4}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[a-z_]{3,60})$/i)
  .describe('A GATT UUID (full, 0x180d) or its name (heart_rate)');
/** A 16-bit UUID as Web Bluetooth takes it (a number), else the text. @param {string} u */
const uuidArg = (u) => (/^0x[0-9a-f]{4}$/i.test(u) ? /** @type {any} */ (Number.parseInt(u, 16)) : u.toLowerCase());

/**
 * The GATT services a person names when picking a Bluetooth device from the Tools panel (commas or
 * blanks between them), as the chooser takes them; one that is no service is refused before it opens.
 * @param {string} text @returns {string[]} (16-bit ones as numbers, as uuidArg gives them)
 */
export function bluetoothServices(text) {
  const names = text.split(/[\s,]+/).filter(Boolean);
  if (!names.length) throw new HardwareError('invalid', 'Name the GATT services the agent may use (for example heart_rate).');
  const bad = names.find((n) => !uuid.safeParse(n).success);
  if (bad) throw new HardwareError('invalid', `"${bad}" is not a GATT service (a UUID, 0x180d, or a name such as heart_rate).`);
  return names.map(uuidArg);
}
const gattArgs = {
  device: z.string().min(1).max(300).describe('The device’s id, from bluetooth_list'),
  service: uuid,
  characteristic: uuid,
  timeoutMs,
};

/** @type {ToolDefinition} */
const bluetoothList = {
  name: 'bluetooth_list',
  description: 'List the Bluetooth devices the user picked for Clawser (only those can be used): each one’s id, name, whether connected.',
  permission: 'read',
  schema: z.object({}),
  run: (_args, ctx) =>
    guarded(ctx, async () => {
      const devices = bluetoothDevices();
      if (!devices.supported) return { ok: false, output: NO_BLUETOOTH };
      const all = await devices.list();
      if (!all.length) return { ok: true, output: 'The user has picked no Bluetooth device. bluetooth_request asks them to pick one.' };
      return { ok: true, output: all.map((d) => `${d.id}: ${d.label}${d.open ? ' [connected]' : ''}`).join('\n') };
    }),
};

/** @type {ToolDefinition} */
const bluetoothRequest = {
  name: 'bluetooth_request',
  description:
    'Ask the user to pick a Bluetooth device in the browser’s chooser (say why in reason), naming the GATT services the agent ' +
    'will use (only those are reachable). Only the user can pick.',
  permission: 'read',
  schema: z.object({
    reason: z.string().min(1).max(500).describe('Why the agent needs the device, shown to the user'),
    services: z.array(uuid).min(1).max(10),
  }),
  run: (args, ctx) =>
    guarded(ctx, async () => {
      const devices = bluetoothDevices();
      if (!devices.supported) return { ok: false, output: NO_BLUETOOTH };
      if (!ctx.ui?.pickDevice) return { ok: false, output: 'No one can pick a device here (no Clawser window to ask in).' };
      const picked = await ctx.ui.pickDevice(`The agent asks to use a Bluetooth device: ${args.reason}`, () =>
        devices.request(args.services.map(uuidArg)),
      );
      if (!picked) return { ok: false, output: 'The user picked no Bluetooth device.' };
      return { ok: true, output: `The user picked ${picked.id}: ${picked.label}.` };
    }),
};

/** @type {ToolDefinition} */
const bluetoothRead = {
  name: 'bluetooth_read',
  description: 'Read a GATT characteristic’s value of a Bluetooth device the user picked (connects if needed). Shown as hex.',
  permission: 'browser',
  untrusted: 'a value a Bluetooth device sent',
  schema: z.object(gattArgs),
  scopeTargets: theDevice,
  run: (args, ctx) =>
    guarded(ctx, async () => {
      const t = { service: uuidArg(args.service), characteristic: uuidArg(args.characteristic), timeoutMs: args.timeoutMs };
      const v = await bluetoothDevices().read(args.device, t);
      return {
        ok: true,
        output: `Read ${v.length} bytes of ${args.characteristic} from ${args.device}: ${toHex(v)}\nAs text: ${asciiOf(v)}`,
      };
    }),
};

/** @type {ToolDefinition} */
const bluetoothWrite = {
  name: 'bluetooth_write',
  description: `Write a GATT characteristic’s value (hex, at most ${MAX_GATT_BYTES} bytes) of a Bluetooth device the user picked.`,
  permission: 'browser',
  schema: z.object({ ...gattArgs, hex: z.string().max(MAX_GATT_BYTES * 5) }),
  scopeTargets: theDevice,
  preview: (args) => `Write ${args.hex.slice(0, 200)} to ${args.characteristic} of ${args.device}.`,
  run: (args, ctx) =>
    guarded(ctx, async () => {
      const data = fromHex(args.hex);
      const t = { service: uuidArg(args.service), characteristic: uuidArg(args.characteristic), timeoutMs: args.timeoutMs, data };
      const n = await bluetoothDevices().write(args.device, t);
      return { ok: true, output: `Wrote ${n} bytes to ${args.characteristic} of ${args.device}: ${toHex(data)}` };
    }),
};

/** @type {ToolDefinition} */
const bluetoothDisconnect = {
  name: 'bluetooth_disconnect',
  description: 'Disconnect a Bluetooth device (it stays picked; the user revokes it in the Tools panel’s Devices).',
  permission: 'browser',
  schema: z.object({ device: gattArgs.device }),
  scopeTargets: theDevice,
  run: (args, ctx) =>
    guarded(ctx, async () => {
      await bluetoothDevices().disconnect(args.device);
      return { ok: true, output: `Disconnected ${args.device}.` };
    }),
};

/** @type {ToolFamily} */
export const family = {
  id: 'hardware',
  tools: [
    ...[serialList, serialRequest, serialWrite, serialRead, serialClose],
    ...[hidList, hidRequest, hidSend, hidReceive, hidClose],
    ...[usbList, usbRequest, usbTransferOut, usbTransferIn, usbClose],
    ...[bluetoothList, bluetoothRequest, bluetoothRead, bluetoothWrite, bluetoothDisconnect],
  ],
};
