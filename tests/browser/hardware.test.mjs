// Issue 39 §3: the hardware tools (Web Serial) through the agent, with a fake at the API boundary:
// Chromium has no virtual serial port (its CDP DeviceAccess domain answers the Bluetooth chooser
// only), so tests/fixtures/fake-serial.mjs defines navigator.serial before the app loads — two
// echo ports of the same model, requestPort() refused without the user's click as in Chromium.
// The scripted model asks for a port; the user picks it in Clawser's dialog; a write comes back
// on a read shown as hex; "Always allow" covers that one device only; a port not picked is
// refused (control: the picked one works); a read past the time limit ends with a timeout; sizes
// over the cap are refused; Revoke in the Tools panel's Devices section removes the port. Then the
// same for WebHID, WebUSB and Web Bluetooth (fakes of tests/fixtures/fake-hid.mjs, fake-usb.mjs,
// fake-bluetooth.mjs: no virtual HID or USB device in Chromium; its Bluetooth emulation, which
// needs a browser flag, closed the browser now and then inside the suite: docs/security.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { seriousViolations } from './axe.mjs';
import { installFakeSerial } from '../fixtures/fake-serial.mjs';
import { installFakeHid } from '../fixtures/fake-hid.mjs';
import { installFakeUsb } from '../fixtures/fake-usb.mjs';
import { installFakeBluetooth } from '../fixtures/fake-bluetooth.mjs';

const PORTS = [
  { label: 'echo', usbVendorId: 0x2341, usbProductId: 0x0043 },
  { label: 'other', usbVendorId: 0x2341, usbProductId: 0x0043 },
];

const fx = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
  beforePage: async (f) => {
    await f.browser.context.addInitScript(installFakeSerial, { ports: PORTS });
    await f.browser.context.addInitScript(installFakeHid, { devices: [{ productName: 'Pad', vendorId: 0x046d, productId: 0xc216 }] });
    await f.browser.context.addInitScript(installFakeUsb, {
      devices: [{ productName: 'Loop', vendorId: 0x1209, productId: 0x0001, serialNumber: 'L1' }],
    });
    await f.browser.context.addInitScript(installFakeBluetooth, {
      devices: [{ id: 'band-1', name: 'Band', service: 'heart_rate', characteristic: 'heart_rate_control_point', value: [0x5a] }],
    });
  },
});
const { llm, page } = fx;

/** The tool results the model was sent in its last request, in order. */
const toolResults = () =>
  (llm.requests.at(-1)?.body.messages ?? [])
    .filter((/** @type {any} */ m) => m.role === 'tool')
    .map((/** @type {any} */ m) => String(m.content));

/**
 * Runs one turn: the scripted calls, then `done` as the reply; `during` answers the dialogs.
 * @param {string} prompt @param {{id: string, name: string, arguments: Record<string, unknown>}[]} calls @param {string} done
 * @param {() => Promise<void>} [during]
 */
async function turn(prompt, calls, done, during) {
  llm.enqueue({ toolCalls: calls }, { text: done });
  await sendMessage(page, prompt);
  await during?.();
  await page.getByText(done, { exact: true }).waitFor();
  return toolResults().slice(-calls.length);
}

/** Answers the approval dialog of a tool with a button. @param {string} tool @param {string | RegExp} button */
async function answer(tool, button) {
  const ask = page.getByRole('dialog', { name: `Allow “${tool}”?` });
  await ask.waitFor();
  await ask.getByRole('button', { name: button }).click();
  await ask.waitFor({ state: 'detached' });
}

/** @type {string} */
let id = '';

test('the agent asks for a serial port; the user declines (nothing picked, no chooser), then picks it in Clawser’s dialog', async () => {
  const declined = await turn(
    'use my serial device',
    [{ id: 'r1', name: 'serial_request', arguments: { reason: 'to talk to the board' } }],
    'Not picked then.',
    async () => {
      const dialog = page.getByRole('dialog', { name: 'The agent asks to use a device' });
      await dialog.getByText('The agent asks to use a serial port: to talk to the board').waitFor();
      assert.deepEqual(await seriousViolations(page, 'dialog[open]'), []);
      await dialog.getByRole('button', { name: 'Not now' }).click();
    },
  );
  assert.deepEqual(declined, ['The user picked no serial port.']);
  assert.equal(await page.evaluate(() => /** @type {any} */ (navigator).serial.choosers), 0, 'the chooser never opened');

  const [picked] = await turn(
    'use my serial device',
    [{ id: 'r2', name: 'serial_request', arguments: { reason: 'to talk to the board' } }],
    'Picked.',
    async () => {
      const dialog = page.getByRole('dialog', { name: 'The agent asks to use a device' });
      // The fake, like Chromium, refuses requestPort without the user's activation: this real click gives it.
      await dialog.getByRole('button', { name: 'Choose a device…' }).click();
    },
  );
  const m = /^The user picked (serial:2341:0043:[0-9a-f]{8}): USB serial port, vendor 2341 product 0043\.$/.exec(picked);
  assert.ok(m, picked);
  id = m[1];
  const [listed] = await turn('list them', [{ id: 'l1', name: 'serial_list', arguments: {} }], 'Listed.');
  assert.equal(listed, `${id}: USB serial port, vendor 2341 product 0043`);
});

test('write then read through the echo port, asked first; the bytes come back as hex; "Always allow" covers only that device', async () => {
  const [wrote, read] = await turn(
    'say hello to it',
    [
      { id: 'w1', name: 'serial_write', arguments: { device: id, text: 'hello' } },
      { id: 'd1', name: 'serial_read', arguments: { device: id, maxBytes: 16 } },
    ],
    'It echoed.',
    async () => {
      await answer('serial_write', 'Allow once');
      await answer('serial_read', `Allow always: only the device ${id}`);
    },
  );
  assert.equal(wrote, `Wrote 5 bytes to ${id}: 68 65 6c 6c 6f`);
  assert.equal(read, `Read 5 bytes from ${id}: 68 65 6c 6c 6f\nAs text: hello`);

  // The rule covers this device: the next read of it does not ask (a read past the time limit, nothing having been written).
  const [late] = await turn('read again', [{ id: 'd2', name: 'serial_read', arguments: { device: id, timeoutMs: 200 } }], 'Nothing.');
  assert.equal(late, 'Timed out after 200 ms: no bytes came from the device. (timeout)');

  // Another device id (one the user never picked) is not covered: asked, then refused; control: the picked one works.
  const guess = id.replace(/:[0-9a-f]{8}$/, ':00000000');
  const [refused, control] = await turn(
    'read the other one',
    [
      { id: 'd3', name: 'serial_read', arguments: { device: guess } },
      { id: 'w2', name: 'serial_write', arguments: { device: id, hex: '2a' } },
    ],
    'Tried both.',
    async () => {
      await answer('serial_read', 'Allow once');
      await answer('serial_write', 'Allow once');
    },
  );
  assert.equal(refused, `No serial port "${guess}" was picked by the user (serial_list lists those that were). (not_picked)`);
  assert.equal(control, `Wrote 1 bytes to ${id}: 2a`);
});

test('sizes over the cap are refused before anything is sent (the read at the cap of what is there still works: control)', async () => {
  const [overRead, overWrite, atCap] = await turn(
    'too much',
    [
      { id: 'd4', name: 'serial_read', arguments: { device: id, maxBytes: 5000 } },
      { id: 'w3', name: 'serial_write', arguments: { device: id, hex: '00'.repeat(4097) } },
      { id: 'd5', name: 'serial_read', arguments: { device: id, maxBytes: 4096 } },
    ],
    'Over the cap.',
    () => answer('serial_write', 'Allow once'),
  );
  assert.equal(overRead, 'A read of 5000 bytes is over the limit of 4096 bytes. (too_large)');
  assert.equal(overWrite, 'A write of 4097 bytes is over the limit of 4096 bytes. (too_large)');
  assert.equal(atCap, `Read 1 bytes from ${id}: 2a\nAs text: *`, 'the byte written before is still there, nothing of the refused write');
});

test('Revoke in the Tools panel’s Devices section: the port is gone for the agent', async () => {
  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  const devices = page.getByRole('list', { name: 'Devices' });
  await devices.getByRole('listitem', { name: id }).waitFor();
  assert.deepEqual(await seriousViolations(page, 'section[aria-labelledby="devices-title"]'), []);
  await devices.getByRole('button', { name: `Revoke ${id}` }).click();
  await page.getByText(`Revoked ${id}: the agent can no longer use it.`).waitFor();
  await devices.getByText('No device picked.').waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();

  const [listed, refused] = await turn(
    'use it again',
    [
      { id: 'l2', name: 'serial_list', arguments: {} },
      { id: 'd6', name: 'serial_read', arguments: { device: id } },
    ],
    'Gone.',
  );
  assert.equal(listed, 'The user has picked no serial port. serial_request asks them to pick one.');
  assert.equal(refused, `No serial port "${id}" was picked by the user (serial_list lists those that were). (not_picked)`);
});

test('HID: the user picks a device in Clawser’s dialog; a report sent comes back as hex; Revoke removes it', async () => {
  const [picked] = await turn(
    'use my pad',
    [{ id: 'h1', name: 'hid_request', arguments: { reason: 'to light the pad' } }],
    'Pad picked.',
    () => page.getByRole('dialog', { name: 'The agent asks to use a device' }).getByRole('button', { name: 'Choose a device…' }).click(),
  );
  const m = /^The user picked (hid:046d:c216:[0-9a-f]{8}): HID device “Pad”, vendor 046d product c216\.$/.exec(picked);
  assert.ok(m, picked);
  const hid = m[1];
  const [sent, got] = await turn(
    'light it',
    [
      { id: 'h2', name: 'hid_send', arguments: { device: hid, reportId: 2, hex: '0a 0b' } },
      { id: 'h3', name: 'hid_receive', arguments: { device: hid } },
    ],
    'Pad answered.',
    async () => {
      await answer('hid_send', 'Allow once');
      await answer('hid_receive', 'Allow once');
    },
  );
  assert.equal(sent, `Sent report 2 of 2 bytes to ${hid}: 0a 0b`);
  assert.equal(got, `Report 2 of 2 bytes from ${hid}: 0a 0b`);

  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  const devices = page.getByRole('list', { name: 'Devices' });
  await devices.getByRole('button', { name: `Revoke ${hid}` }).click();
  await devices.getByText('No device picked.').waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();
  const [listed] = await turn('list pads', [{ id: 'h4', name: 'hid_list', arguments: {} }], 'No pads.');
  assert.equal(listed, 'The user has picked no HID device. hid_request asks them to pick one.');
});

test('USB: the user picks a device in Clawser’s dialog; bytes sent to an OUT endpoint come back IN as hex; a read with nothing \
there times out; Revoke removes it', async () => {
  const [picked] = await turn(
    'use my usb loop',
    [{ id: 'u1', name: 'usb_request', arguments: { reason: 'to test the loop' } }],
    'Loop picked.',
    () => page.getByRole('dialog', { name: 'The agent asks to use a device' }).getByRole('button', { name: 'Choose a device…' }).click(),
  );
  const m = /^The user picked (usb:1209:0001:L1:[0-9a-f]{8}): USB device “Loop”, vendor 1209 product 0001\.$/.exec(picked);
  assert.ok(m, picked);
  const usb = m[1];
  const [late, sent, got] = await turn(
    'loop it',
    [
      { id: 'u2', name: 'usb_transfer_in', arguments: { device: usb, endpoint: 1, length: 8, timeoutMs: 200 } },
      { id: 'u3', name: 'usb_transfer_out', arguments: { device: usb, endpoint: 1, hex: 'de ad be ef' } },
      { id: 'u4', name: 'usb_transfer_in', arguments: { device: usb, endpoint: 1, length: 8 } },
    ],
    'Looped.',
    async () => {
      await answer('usb_transfer_in', `Allow always: only the device ${usb}`);
      await answer('usb_transfer_out', 'Allow once');
    },
  );
  assert.equal(late, 'Timed out after 200 ms: no bytes came from the device. (timeout)');
  assert.equal(sent, `Sent 4 bytes to endpoint 1 of ${usb}: de ad be ef`);
  assert.equal(got, `Read 4 bytes from endpoint 1 of ${usb}: de ad be ef`, 'the read that timed out did not swallow them');

  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  const devices = page.getByRole('list', { name: 'Devices' });
  await devices.getByRole('button', { name: `Revoke ${usb}` }).click();
  await devices.getByText('No device picked.').waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();
  const [listed] = await turn('list usb', [{ id: 'u5', name: 'usb_list', arguments: {} }], 'No usb.');
  assert.equal(listed, 'The user has picked no USB device. usb_request asks them to pick one.');
});

test('Bluetooth: the user picks a device in Clawser’s dialog (the services named); a value written is read back as hex; a \
service not named is refused; Revoke removes it', async () => {
  const [picked] = await turn(
    'use my band',
    [{ id: 'b1', name: 'bluetooth_request', arguments: { reason: 'to reset the band', services: ['heart_rate'] } }],
    'Band picked.',
    () => page.getByRole('dialog', { name: 'The agent asks to use a device' }).getByRole('button', { name: 'Choose a device…' }).click(),
  );
  assert.equal(picked, 'The user picked bluetooth:band-1: Bluetooth device “Band”.');
  const band = 'bluetooth:band-1';
  const gatt = { device: band, service: 'heart_rate', characteristic: 'heart_rate_control_point' };
  const [wrote, read, other] = await turn(
    'reset it',
    [
      { id: 'b2', name: 'bluetooth_write', arguments: { ...gatt, hex: '01' } },
      { id: 'b3', name: 'bluetooth_read', arguments: gatt },
      { id: 'b4', name: 'bluetooth_read', arguments: { ...gatt, service: 'battery_service' } },
    ],
    'Band reset.',
    async () => {
      await answer('bluetooth_write', 'Allow once');
      await answer('bluetooth_read', `Allow always: only the device ${band}`);
    },
  );
  assert.equal(wrote, `Wrote 1 bytes to heart_rate_control_point of ${band}: 01`);
  assert.equal(read, `Read 1 bytes of heart_rate_control_point from ${band}: 01\nAs text: .`);
  assert.equal(other, 'Origin is not allowed to access the service battery_service.');

  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  const devices = page.getByRole('list', { name: 'Devices' });
  await devices.getByRole('button', { name: `Revoke ${band}` }).click();
  await devices.getByText('No device picked.').waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();
  const [listed] = await turn('list bands', [{ id: 'b5', name: 'bluetooth_list', arguments: {} }], 'No bands.');
  assert.equal(listed, 'The user has picked no Bluetooth device. bluetooth_request asks them to pick one.');
});
