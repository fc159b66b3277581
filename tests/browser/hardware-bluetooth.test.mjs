// Issue 39 §3, Web Bluetooth with the browser's own emulated device (no fake): Chromium 156 with
// --enable-experimental-web-platform-features has navigator.bluetooth, its CDP BluetoothEmulation
// domain (on a browser-level session) simulates an adapter and a peripheral, and the DeviceAccess
// domain (on the page's session) sees the chooser and picks in it. The scripted model asks for a
// device; the user clicks Clawser's dialog; the real requestDevice() resolves with the emulated
// peripheral; bluetooth_list lists it under the browser's own device id; a value written to its
// characteristic is read back as hex (the emulated peripheral answers each GATT operation); Revoke
// forgets it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const fx = await useFixture({
  llm: {},
  browser: { args: ['--enable-experimental-web-platform-features'] },
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});
const { llm, page, browser } = fx;

const owner = browser.context.browser();
assert.ok(owner, 'the persistent context has its browser (a browser-level CDP session)');
const emulation = await owner.newBrowserCDPSession();
await emulation.send('BluetoothEmulation.enable', { state: 'powered-on', leSupported: true });
await emulation.send('BluetoothEmulation.simulatePreconnectedPeripheral', {
  address: '09:09:09:09:09:01',
  name: 'Band',
  manufacturerData: [],
  knownServiceUuids: ['0000180d-0000-1000-8000-00805f9b34fb'],
});
// Its heart-rate service, with the control point the agent writes and reads back (the peripheral keeps the value).
const { serviceId } = await emulation.send('BluetoothEmulation.addService', {
  address: '09:09:09:09:09:01',
  serviceUuid: '0000180d-0000-1000-8000-00805f9b34fb',
});
const { characteristicId } = await emulation.send('BluetoothEmulation.addCharacteristic', {
  serviceId,
  characteristicUuid: '00002a39-0000-1000-8000-00805f9b34fb',
  properties: { read: true, write: true },
});
let kept = Buffer.from([0x5a]);
/** The GATT operations the peripheral answered, in order. @type {string[]} */
const operations = [];
emulation.on('BluetoothEmulation.gattOperationReceived', (e) => {
  operations.push(e.type);
  emulation.send('BluetoothEmulation.simulateGATTOperationResponse', { address: e.address, type: e.type, code: 0 }).catch(() => {});
});
emulation.on('BluetoothEmulation.characteristicOperationReceived', (e) => {
  if (e.characteristicId !== characteristicId) return;
  operations.push(`characteristic ${e.type}`);
  if (e.type === 'write') kept = Buffer.from(e.data ?? '', 'base64');
  const data = e.type === 'read' ? { data: kept.toString('base64') } : {};
  emulation
    .send('BluetoothEmulation.simulateCharacteristicOperationResponse', {
      characteristicId: e.characteristicId,
      type: e.type,
      code: 0,
      ...data,
    })
    .catch(() => {});
});
const chooser = await browser.context.newCDPSession(page);
await chooser.send('DeviceAccess.enable');
/** The devices each chooser offered. @type {{id: string, name: string}[][]} */
const offered = [];
chooser.on('DeviceAccess.deviceRequestPrompted', (e) => {
  offered.push(e.devices);
  // The user picks the emulated band in the browser's chooser.
  const band = e.devices.find((d) => d.id === '09:09:09:09:09:01');
  if (band) chooser.send('DeviceAccess.selectPrompt', { id: e.id, deviceId: band.id }).catch(() => {});
});

/** The tool results the model was sent in its last request, in order. */
const toolResults = () =>
  (llm.requests.at(-1)?.body.messages ?? [])
    .filter((/** @type {any} */ m) => m.role === 'tool')
    .map((/** @type {any} */ m) => String(m.content));

/**
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

test('the user picks the emulated band through Clawser’s dialog and the browser’s chooser; listed by the browser’s id; a GATT \
write read back as hex; Revoke forgets it', async () => {
  const [picked] = await turn(
    'use my band',
    [{ id: 'b1', name: 'bluetooth_request', arguments: { reason: 'to read the heart rate', services: ['heart_rate'] } }],
    'Band picked.',
    () => page.getByRole('dialog', { name: 'The agent asks to use a device' }).getByRole('button', { name: 'Choose a device…' }).click(),
  );
  const m = /^The user picked (bluetooth:\S+): Bluetooth device “Band”\.$/.exec(picked);
  assert.ok(m, picked);
  const id = m[1];
  assert.notEqual(id, 'bluetooth:09:09:09:09:09:01', 'the browser’s opaque id, not the hardware address');
  assert.ok(
    offered.some((list) => list.some((d) => d.id === '09:09:09:09:09:01')),
    'the browser’s chooser offered the band',
  );
  const [listed] = await turn('list bands', [{ id: 'b2', name: 'bluetooth_list', arguments: {} }], 'Listed.');
  assert.equal(listed, `${id}: Bluetooth device “Band”`);

  const gatt = { device: id, service: 'heart_rate', characteristic: 'heart_rate_control_point' };
  const [wrote, read] = await turn(
    'reset it',
    [
      { id: 'b4', name: 'bluetooth_write', arguments: { ...gatt, hex: '01' } },
      { id: 'b5', name: 'bluetooth_read', arguments: gatt },
    ],
    'Reset.',
    async () => {
      for (const tool of ['bluetooth_write', 'bluetooth_read']) {
        const ask = page.getByRole('dialog', { name: `Allow “${tool}”?` });
        await ask.getByRole('button', { name: 'Allow once' }).click();
        await ask.waitFor({ state: 'detached' });
      }
    },
  );
  assert.equal(wrote, `Wrote 1 bytes to heart_rate_control_point of ${id}: 01`);
  assert.equal(read, `Read 1 bytes of heart_rate_control_point from ${id}: 01\nAs text: .`);
  assert.ok(operations.includes('characteristic write') && operations.includes('characteristic read'), operations.join(', '));

  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  const devices = page.getByRole('list', { name: 'Devices' });
  await devices.getByRole('button', { name: `Revoke ${id}` }).click();
  await devices.getByText('No device picked.').waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();
  const [gone] = await turn('list again', [{ id: 'b3', name: 'bluetooth_list', arguments: {} }], 'Gone.');
  assert.equal(gone, 'The user has picked no Bluetooth device. bluetooth_request asks them to pick one.');
});
