// Issue 39 §3, Web Bluetooth with the browser's own emulated device (no fake): Chromium 156 with
// --enable-experimental-web-platform-features has navigator.bluetooth, its CDP BluetoothEmulation
// domain (on a browser-level session) simulates an adapter and a peripheral, and the DeviceAccess
// domain (on the page's session) sees the chooser and picks in it. The scripted model asks for a
// device; the user clicks Clawser's dialog; the real requestDevice() resolves with the emulated
// peripheral; bluetooth_list lists it under the browser's own device id; Revoke forgets it.
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

test('the user picks the emulated band through Clawser’s dialog and the browser’s chooser; listed by the browser’s id; Revoke \
forgets it', async () => {
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

  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  const devices = page.getByRole('list', { name: 'Devices' });
  await devices.getByRole('button', { name: `Revoke ${id}` }).click();
  await devices.getByText('No device picked.').waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();
  const [gone] = await turn('list again', [{ id: 'b3', name: 'bluetooth_list', arguments: {} }], 'Gone.');
  assert.equal(gone, 'The user has picked no Bluetooth device. bluetooth_request asks them to pick one.');
});
