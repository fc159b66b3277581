// Issue 39 §3 from the UI: the person picks a serial port, a HID, USB or Bluetooth device from the
// Tools panel's Devices section (the browser's chooser opens from their click, as it needs), without
// the agent asking first; the agent then uses the picked device through the same gates (a write
// asks). Fakes at the API boundary (tests/fixtures/fake-*.mjs): they refuse a chooser opened without
// the user's click, as Chromium does. Control: a chooser the person cancels picks nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { seriousViolations } from './axe.mjs';
import { installFakeSerial } from '../fixtures/fake-serial.mjs';
import { installFakeHid } from '../fixtures/fake-hid.mjs';
import { installFakeUsb } from '../fixtures/fake-usb.mjs';
import { installFakeBluetooth } from '../fixtures/fake-bluetooth.mjs';

const fx = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
  beforePage: async (f) => {
    const { context } = f.browser;
    await context.addInitScript(installFakeSerial, { ports: [{ label: 'echo', usbVendorId: 0x2341, usbProductId: 0x0043 }] });
    await context.addInitScript(installFakeHid, { devices: [{ productName: 'Pad', vendorId: 0x046d, productId: 0xc216 }] });
    await context.addInitScript(installFakeUsb, {
      devices: [{ productName: 'Loop', vendorId: 0x1209, productId: 0x0001, serialNumber: 'L1' }],
    });
    await context.addInitScript(installFakeBluetooth, {
      devices: [{ id: 'band-1', name: 'Band', service: 'heart_rate', characteristic: 'heart_rate_control_point', value: [0x5a] }],
    });
  },
});
const { llm, page } = fx;
const devices = () => page.getByRole('region', { name: 'Devices' });

test('the person picks a device of each kind from the Devices section; a cancelled chooser picks nothing (control)', async () => {
  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  await devices().getByText('No device picked.').waitFor();
  // Control: the person closes the chooser without picking.
  await page.evaluate(() => {
    /** @type {any} */ (navigator).serial.nextPick = null;
  });
  await devices().getByRole('button', { name: 'Pick a serial port…' }).click();
  await devices().getByRole('status').getByText('No serial port was picked.').waitFor();
  assert.equal(await devices().locator('li[aria-label^="serial:"]').count(), 0);
  await page.evaluate(() => {
    /** @type {any} */ (navigator).serial.nextPick = 'echo';
  });
  await devices().getByRole('button', { name: 'Pick a serial port…' }).click();
  await devices().locator('li[aria-label^="serial:"]').waitFor();
  await devices()
    .getByRole('status')
    .getByText(/^Picked serial:/)
    .waitFor();
  await devices().getByRole('button', { name: 'Pick a HID device…' }).click();
  await devices().locator('li[aria-label^="hid:"]').waitFor();
  await devices().getByRole('button', { name: 'Pick a USB device…' }).click();
  await devices().locator('li[aria-label^="usb:"]').waitFor();
  // Bluetooth: the GATT services the agent may use are named with the pick.
  await devices().getByLabel('Bluetooth services').fill('heart_rate');
  await devices().getByRole('button', { name: 'Pick a Bluetooth device…' }).click();
  await devices().locator('li[aria-label^="bluetooth:"]').waitFor();
  assert.deepEqual(await seriousViolations(page, 'section[aria-labelledby="devices-title"]'), []);
  // A service that is no UUID is refused before the chooser opens.
  await devices().getByLabel('Bluetooth services').fill('not a service');
  await devices().getByRole('button', { name: 'Pick a Bluetooth device…' }).click();
  await devices()
    .getByRole('status')
    .getByText(/not a GATT service/)
    .waitFor();
});

test('the agent uses the device the person picked, through the same gates: the write asks, then goes out', async () => {
  const id = String(await devices().locator('li[aria-label^="serial:"]').getAttribute('aria-label'));
  await page.getByRole('button', { name: 'Back to chat' }).click();
  llm.enqueue({ toolCalls: [{ id: 'w1', name: 'serial_write', arguments: { device: id, text: 'hi' } }] }, { text: 'Done writing.' });
  await sendMessage(page, 'say hi to my board');
  const ask = page.getByRole('dialog', { name: 'Allow “serial_write”?' });
  await ask.getByRole('button', { name: 'Allow once' }).click();
  await page.getByText('Done writing.', { exact: true }).waitFor();
  const results = (llm.requests.at(-1)?.body.messages ?? []).filter((/** @type {any} */ m) => m.role === 'tool');
  assert.match(String(results.at(-1)?.content), /^Wrote 2 bytes to serial:/);
});
