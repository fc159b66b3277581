// Issue 39 §3: the hardware tools' pure parts (hex both ways, the byte and time bounds, device
// identities that cannot collide) and the serial device registry against the fake Web Serial of
// tests/fixtures/fake-serial.mjs (echo ports): only a picked port is reachable, a write comes back
// on a read as hex, sizes over the cap and reads past the time limit fail with their codes, and a
// revoked port is gone. The browser test (tests/browser/hardware.test.mjs) runs the same through
// the agent and the dialogs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HARDWARE_LIMITS,
  HardwareError,
  SerialDevices,
  asciiOf,
  checkSize,
  fromHex,
  serialIdentity,
  serialLabel,
  setKnownDeviceIds,
  timeLimit,
  toHex,
} from '../../web/hardware/devices.js';
import { ruleMatches, rulesCover, suggestRule, describeRule, ApprovalRuleSchema } from '../../web/tools/approval-rules.js';
import { installFakeSerial } from '../fixtures/fake-serial.mjs';
import { installFakeHid } from '../fixtures/fake-hid.mjs';
import { installFakeUsb } from '../fixtures/fake-usb.mjs';
import { installFakeBluetooth } from '../fixtures/fake-bluetooth.mjs';
import { BluetoothDevices, MAX_GATT_BYTES } from '../../web/hardware/bluetooth.js';
import { UsbDevices, usbIdentity } from '../../web/hardware/usb.js';
import { HidDevices, MAX_REPORT_BYTES, hidIdentity } from '../../web/hardware/hid.js';

const PORTS = [
  { label: 'echo', usbVendorId: 0x2341, usbProductId: 0x0043 },
  { label: 'other', usbVendorId: 0x2341, usbProductId: 0x0043 },
];

/** A registry over a fresh fake, with the port labelled `pick` picked. @param {string} [pick] */
async function picked(pick = 'echo') {
  const fake = installFakeSerial({ ports: PORTS }, { navigator: {} });
  const devices = new SerialDevices(fake);
  fake.nextPick = pick;
  const view = await devices.request();
  return { fake, devices, id: view.id };
}

/** @param {() => Promise<unknown>} fn @param {string} code */
async function failsWith(fn, code) {
  await assert.rejects(fn, (/** @type {HardwareError} */ err) => {
    assert.ok(err instanceof HardwareError, String(err));
    assert.equal(err.code, code, err.message);
    return true;
  });
}

test('hex: bytes as spaced pairs and back; separators and 0x allowed; odd or non-hex input refused (bad_hex)', () => {
  assert.equal(toHex(new Uint8Array([0x48, 0x69, 0x0a, 0x00, 0xff])), '48 69 0a 00 ff');
  assert.deepEqual([...fromHex('48 69 0a')], [0x48, 0x69, 0x0a]);
  assert.deepEqual([...fromHex('0x48,0x69:0A')], [0x48, 0x69, 0x0a]);
  assert.deepEqual([...fromHex('')], []);
  assert.throws(
    () => fromHex('486'),
    (/** @type {HardwareError} */ e) => e.code === 'bad_hex',
  );
  assert.throws(
    () => fromHex('zz'),
    (/** @type {HardwareError} */ e) => e.code === 'bad_hex',
  );
  assert.equal(asciiOf(new Uint8Array([0x48, 0x69, 0x0a, 0x7f])), 'Hi..');
});

test('bounds: a size over its cap is refused (too_large), at the cap it passes; time limits are clamped', () => {
  assert.doesNotThrow(() => checkSize(HARDWARE_LIMITS.maxWriteBytes, HARDWARE_LIMITS.maxWriteBytes, 'A write'));
  assert.throws(
    () => checkSize(HARDWARE_LIMITS.maxWriteBytes + 1, HARDWARE_LIMITS.maxWriteBytes, 'A write'),
    (/** @type {HardwareError} */ e) => e.code === 'too_large' && /4097 bytes is over the limit of 4096/.test(e.message),
  );
  assert.equal(timeLimit(undefined), HARDWARE_LIMITS.defaultTimeoutMs);
  assert.equal(timeLimit(10 ** 9), HARDWARE_LIMITS.maxTimeoutMs);
  assert.equal(timeLimit(0), 1);
});

test('identity: vendor and product ids plus a random part, never a display name; two adapters of one model differ', async () => {
  assert.equal(serialIdentity({ usbVendorId: 0x2341, usbProductId: 0x43 }, 'ab12cd34'), 'serial:2341:0043:ab12cd34');
  assert.equal(serialIdentity({}, 'ab12cd34'), 'serial:none:none:ab12cd34');
  assert.equal(serialIdentity({ bluetoothServiceClassId: 0x1101 }, 'x'), 'serial:bt-4353:x');
  assert.match(serialLabel({ usbVendorId: 0x2341, usbProductId: 0x43 }), /vendor 2341 product 0043/);
  // Both fake ports are the same model: once both are picked they still have distinct ids, stable per port.
  const { fake, devices, id } = await picked('echo');
  fake.nextPick = 'other';
  const other = await devices.request();
  assert.notEqual(other.id, id);
  assert.match(id, /^serial:2341:0043:[0-9a-f]{8}$/);
  assert.deepEqual((await devices.list()).map((d) => d.id).toSorted(), [id, other.id].toSorted());
});

test('a picked echo port: a write comes back on a read, bounded by maxBytes (the rest waits for the next read)', async () => {
  const { devices, id } = await picked();
  assert.equal(await devices.write(id, fromHex('68 65 6c 6c 6f')), 5);
  assert.equal(toHex(await devices.read(id, { maxBytes: 3 })), '68 65 6c');
  assert.equal(toHex(await devices.read(id, { maxBytes: 3 })), '6c 6f');
  assert.deepEqual((await devices.list())[0].open, true);
  await devices.close(id);
  assert.deepEqual((await devices.list())[0].open, false, 'closed, still picked');
});

test('a port not picked is refused (not_picked); control: the picked one works', async () => {
  const { devices, id } = await picked('echo');
  const guess = id.replace(/:[0-9a-f]{8}$/, ':00000000');
  await failsWith(() => devices.write(guess, fromHex('01')), 'not_picked');
  await failsWith(() => devices.read(guess), 'not_picked');
  assert.equal(await devices.write(id, fromHex('01')), 1);
});

test('the chooser cancelled: no port (cancelled), nothing listed', async () => {
  const fake = installFakeSerial({ ports: PORTS }, { navigator: {} });
  fake.nextPick = null;
  const devices = new SerialDevices(fake);
  await failsWith(() => devices.request(), 'cancelled');
  assert.deepEqual(await devices.list(), []);
});

test('a read past the time limit ends with a timeout; the port still works after it (control)', async () => {
  const { devices, id } = await picked();
  await failsWith(() => devices.read(id, { timeoutMs: 30 }), 'timeout');
  await devices.write(id, fromHex('2a'));
  assert.equal(toHex(await devices.read(id, { timeoutMs: 2000 })), '2a');
});

test('sizes over the cap are refused before anything is sent or read (too_large); at the cap they pass', async () => {
  const { devices, id } = await picked();
  await failsWith(() => devices.write(id, new Uint8Array(HARDWARE_LIMITS.maxWriteBytes + 1)), 'too_large');
  await failsWith(() => devices.read(id, { maxBytes: HARDWARE_LIMITS.maxReadBytes + 1 }), 'too_large');
  assert.equal(await devices.write(id, new Uint8Array(HARDWARE_LIMITS.maxWriteBytes)), HARDWARE_LIMITS.maxWriteBytes);
  assert.equal((await devices.read(id, { maxBytes: HARDWARE_LIMITS.maxReadBytes })).length, HARDWARE_LIMITS.maxWriteBytes);
});

test('revoke: a forgotten port is no longer listed nor reachable (not_picked)', async () => {
  const { devices, id } = await picked();
  await devices.write(id, fromHex('01'));
  await devices.forget(id);
  assert.deepEqual(await devices.list(), []);
  await failsWith(() => devices.write(id, fromHex('01')), 'not_picked');
});

test('no Web Serial: nothing listed, and a use says so (unsupported)', async () => {
  const devices = new SerialDevices(undefined);
  assert.equal(devices.supported, false);
  assert.deepEqual(await devices.list(), []);
  await failsWith(() => devices.request(), 'unsupported');
});

test('approval rules per device: exactly that identity, never another device of the same model', () => {
  const rule = suggestRule('serial_write', { kind: 'device', targets: ['serial:2341:0043:ab12cd34'] });
  assert.deepEqual(rule, { tool: 'serial_write', kind: 'device', pattern: 'serial:2341:0043:ab12cd34' });
  assert.ok(rule && ApprovalRuleSchema.safeParse(rule).success);
  assert.ok(rule && ruleMatches(rule, 'serial:2341:0043:ab12cd34'));
  assert.ok(rule && !ruleMatches(rule, 'serial:2341:0043:ffffffff'));
  assert.ok(rule && !ruleMatches(rule, 'serial:2341:0043'));
  assert.ok(rule && rulesCover([rule], 'serial_write', { kind: 'device', targets: ['serial:2341:0043:ab12cd34'] }));
  assert.ok(rule && !rulesCover([rule], 'serial_read', { kind: 'device', targets: ['serial:2341:0043:ab12cd34'] }), 'one tool’s rule');
  assert.equal(rule && describeRule(rule), 'the device serial:2341:0043:ab12cd34');
});

test('HID: a picked device echoes a report back as hex; not picked refused (control); timeout; over the cap; revoke', async () => {
  const fake = installFakeHid({ devices: [{ productName: 'Pad', vendorId: 0x046d, productId: 0xc216 }] }, { navigator: {} });
  const hid = new HidDevices(fake);
  fake.nextPick = null;
  await failsWith(() => hid.request(), 'cancelled');
  fake.nextPick = 'Pad';
  const { id, label } = await hid.request();
  assert.match(id, /^hid:046d:c216:[0-9a-f]{8}$/);
  assert.equal(hidIdentity({ vendorId: 0x46d, productId: 0xc216 }, 'n'), 'hid:046d:c216:n');
  assert.equal(label, 'HID device “Pad”, vendor 046d product c216');
  await failsWith(() => hid.send(id.replace(/:[0-9a-f]{8}$/, ':00000000'), 0, fromHex('01')), 'not_picked');
  // Nothing sent: the wait ends with a timeout (and opens the device).
  await failsWith(() => hid.receive(id, { timeoutMs: 30 }), 'timeout');
  // Reports are kept from the moment the device opened: one that came before the receive is not lost.
  await hid.send(id, 2, fromHex('0a 0b'));
  const r = await hid.receive(id, { timeoutMs: 2000 });
  assert.equal(r.reportId, 2);
  assert.equal(toHex(r.data), '0a 0b');
  await failsWith(() => hid.send(id, 0, new Uint8Array(MAX_REPORT_BYTES + 1)), 'too_large');
  await hid.forget(id);
  assert.deepEqual(await hid.list(), []);
  await failsWith(() => hid.send(id, 0, fromHex('01')), 'not_picked');
});

test('USB: ids keep clones apart (one serial number); loopback round trip as hex; not picked refused (control); timeout; cap', async () => {
  const spec = { vendorId: 0x1209, productId: 0x0001, serialNumber: 'CLONE' };
  const fake = installFakeUsb(
    {
      devices: [
        { productName: 'A', ...spec },
        { productName: 'B', ...spec },
      ],
    },
    { navigator: {} },
  );
  const usb = new UsbDevices(fake);
  fake.nextPick = null;
  await failsWith(() => usb.request(), 'cancelled');
  assert.equal(usbIdentity({ ...spec, serialNumber: 'a b/c' }, 'n'), 'usb:1209:0001:a_b_c:n');
  assert.equal(usbIdentity({ vendorId: 1, productId: 2 }, 'n'), 'usb:0001:0002:none:n');
  fake.nextPick = 'A';
  const a = await usb.request();
  fake.nextPick = 'B';
  const b = await usb.request();
  assert.match(a.id, /^usb:1209:0001:CLONE:[0-9a-f]{8}$/);
  assert.notEqual(a.id, b.id, 'two devices reporting one serial number still differ');
  await usb.forget(b.id);
  await failsWith(() => usb.transferOut(b.id, { iface: 0, endpoint: 1, data: fromHex('01') }), 'not_picked');
  await failsWith(() => usb.transferIn(a.id, { iface: 0, endpoint: 1, length: 8, timeoutMs: 30 }), 'timeout');
  assert.equal(await usb.transferOut(a.id, { iface: 0, endpoint: 1, data: fromHex('de ad be ef') }), 4);
  assert.equal(toHex(await usb.transferIn(a.id, { iface: 0, endpoint: 1, length: 2 })), 'de ad');
  assert.equal(toHex(await usb.transferIn(a.id, { iface: 0, endpoint: 1, length: 8 })), 'be ef');
  await failsWith(() => usb.transferOut(a.id, { iface: 0, endpoint: 1, data: new Uint8Array(4097) }), 'too_large');
  await failsWith(() => usb.transferIn(a.id, { iface: 0, endpoint: 1, length: 4097 }), 'too_large');
  await usb.forget(a.id);
  assert.deepEqual(await usb.list(), []);
});

test('Bluetooth: the browser’s device id as identity; a value written comes back on read; only the services named at the pick; \
not picked refused (control); cap; revoke', async () => {
  const spec = { service: 'heart_rate', characteristic: 'heart_rate_control_point', value: [0x5a] };
  const fake = installFakeBluetooth(
    {
      devices: [
        { id: 'AbC+1/x==', name: 'Band', ...spec },
        { id: 'other==', name: 'Band', ...spec },
      ],
    },
    { navigator: {} },
  );
  const bt = new BluetoothDevices(fake);
  fake.nextPick = null;
  await failsWith(() => bt.request(['heart_rate']), 'cancelled');
  fake.nextPick = 'Band';
  const { id, label } = await bt.request(['heart_rate']);
  assert.equal(id, 'bluetooth:AbC+1/x==');
  assert.equal(label, 'Bluetooth device “Band”');
  const t = { service: 'heart_rate', characteristic: 'heart_rate_control_point' };
  assert.equal(toHex(await bt.read(id, t)), '5a');
  assert.equal(await bt.write(id, { ...t, data: fromHex('01 02') }), 2);
  assert.equal(toHex(await bt.read(id, t)), '01 02');
  await failsWith(() => bt.read('bluetooth:other==', t), 'not_picked');
  await assert.rejects(() => bt.read(id, { ...t, service: 'battery_service' }), { name: 'SecurityError' });
  await failsWith(() => bt.write(id, { ...t, data: new Uint8Array(MAX_GATT_BYTES + 1) }), 'too_large');
  await bt.forget(id);
  assert.deepEqual(await bt.list(), []);
  await failsWith(() => bt.read(id, t), 'not_picked');
});

test('a device re-found after a reload takes back the id its rule names when it is the only one of its identity; two of one \
identity, or two ids known for it, give new ids (control: a serial number tells USB devices apart)', async (t) => {
  t.after(() => setKnownDeviceIds(() => []));
  // The first page load: the port and the HID and USB devices picked, their ids minted.
  const first = new SerialDevices(installFakeSerial({ ports: PORTS, granted: ['echo'] }, { navigator: {} }));
  const [port] = await first.list();
  const hidSpec = { devices: [{ productName: 'Pad', vendorId: 0x46d, productId: 0xc216 }], granted: ['Pad'] };
  const [pad] = await new HidDevices(installFakeHid(hidSpec, { navigator: {} })).list();
  const usbSpec = {
    devices: [
      { productName: 'A', vendorId: 0x1209, productId: 1, serialNumber: 'S1' },
      { productName: 'B', vendorId: 0x1209, productId: 1, serialNumber: 'S2' },
    ],
    granted: ['A', 'B'],
  };
  const [a, b] = await new UsbDevices(installFakeUsb(usbSpec, { navigator: {} })).list();
  setKnownDeviceIds(() => [port.id, pad.id, a.id, b.id]);
  // A reload: new device objects (as the browser gives them), the same ids back.
  assert.equal((await new SerialDevices(installFakeSerial({ ports: PORTS, granted: ['echo'] }, { navigator: {} })).list())[0].id, port.id);
  assert.equal((await new HidDevices(installFakeHid(hidSpec, { navigator: {} })).list())[0].id, pad.id);
  const usbAgain = await new UsbDevices(installFakeUsb(usbSpec, { navigator: {} })).list();
  assert.deepEqual(
    usbAgain.map((d) => d.id),
    [a.id, b.id],
    'one model, two serial numbers: each its own',
  );
  // Two ports of one identity: neither takes the rule's id.
  const both = await new SerialDevices(installFakeSerial({ ports: PORTS, granted: ['echo', 'other'] }, { navigator: {} })).list();
  assert.equal(both.length, 2);
  assert.ok(both.every((d) => d.id !== port.id && /^serial:2341:0043:[0-9a-f]{8}$/.test(d.id)));
  // Two ids known for one identity (two rules of earlier loads): neither is guessed.
  setKnownDeviceIds(() => [port.id, 'serial:2341:0043:0badf00d']);
  const [alone] = await new SerialDevices(installFakeSerial({ ports: PORTS, granted: ['echo'] }, { navigator: {} })).list();
  assert.ok(alone.id !== port.id && alone.id !== 'serial:2341:0043:0badf00d');
});
