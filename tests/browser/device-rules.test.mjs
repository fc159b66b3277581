// Issue 39 §3, each device an approval rule of its own, kept across reloads, with the fakes at the
// API boundary of tests/fixtures/fake-serial.mjs, fake-hid.mjs and fake-usb.mjs (Chromium offers no
// virtual serial, HID or USB device), each told which devices the browser remembers as granted to
// the origin (`granted`: re-found by getPorts()/getDevices() after a reload, as Chromium does).
// Covered: the Tools panel's rule form has a "device" kind — a device rule is added, edited and
// removed there, by accessible names; after a reload a USB device with a serial number, and a
// serial port and a HID device that are the only ones of their vendor and product, keep their ids
// and so their rules (the agent writes without being asked); with two ports of one identity the
// rule is not reused and the user is asked (the control of the reload above).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appView, sendMessage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { seriousViolations } from './axe.mjs';
import { installFakeSerial } from '../fixtures/fake-serial.mjs';
import { installFakeHid } from '../fixtures/fake-hid.mjs';
import { installFakeUsb } from '../fixtures/fake-usb.mjs';

const PORTS = [
  { label: 'echo', usbVendorId: 0x2341, usbProductId: 0x0043 },
  { label: 'other', usbVendorId: 0x2341, usbProductId: 0x0043 },
];

const fx = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
  beforePage: async (f) => {
    await f.browser.context.addInitScript(installFakeSerial, { ports: PORTS, granted: ['echo'] });
    await f.browser.context.addInitScript(installFakeHid, {
      devices: [{ productName: 'Pad', vendorId: 0x046d, productId: 0xc216 }],
      granted: ['Pad'],
    });
    await f.browser.context.addInitScript(installFakeUsb, {
      devices: [{ productName: 'Loop', vendorId: 0x1209, productId: 0x0001, serialNumber: 'L1' }],
      granted: ['Loop'],
    });
  },
});
const { llm, page } = fx;

const rules = () => page.getByRole('region', { name: 'Narrowed “Always allow” rules' });

/** Opens the Tools panel and returns the ids of the picked devices it lists, by kind. */
async function devicesListed() {
  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  await page.locator('li[aria-label^="usb:"]').waitFor();
  /** @param {string} kind */
  const ids = (kind) => page.locator(`li[aria-label^="${kind}:"]`).evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
  return { serial: await ids('serial'), hid: await ids('hid'), usb: await ids('usb') };
}

/** Adds a device rule through the form. @param {string} tool @param {string} device */
async function addDeviceRule(tool, device) {
  await rules().getByRole('combobox', { name: 'Tool' }).selectOption(tool);
  await rules().getByRole('combobox', { name: 'Kind' }).selectOption('device');
  await rules().getByRole('combobox', { name: 'Allow' }).fill(device);
  await rules().getByRole('button', { name: 'Add rule' }).click();
  await rules().getByText(`${tool} may run without asking for the device ${device}`).waitFor();
}

/** The tool results the model was sent in its last request, in order. */
const toolResults = () =>
  (llm.requests.at(-1)?.body.messages ?? [])
    .filter((/** @type {any} */ m) => m.role === 'tool')
    .map((/** @type {any} */ m) => String(m.content));

/** @type {{serial: string[], hid: string[], usb: string[]}} */
let before;

test('the rule form has a "device" kind: a device rule is added for a picked device, edited and removed, by accessible names', async () => {
  before = await devicesListed();
  assert.equal(before.serial.length, 1);
  const [serial] = before.serial;
  // The picked devices are offered as the pattern of a device rule.
  await rules().getByRole('combobox', { name: 'Kind' }).selectOption('device');
  assert.deepEqual(
    await page.locator('#rule-devices option').evaluateAll((els) => els.map((e) => e.getAttribute('value'))),
    [before.serial, before.hid, before.usb].flat(),
  );
  await addDeviceRule('serial_write', serial);
  await rules()
    .getByRole('button', { name: `Edit the rule: serial_write for the device ${serial}` })
    .click();
  assert.equal(await rules().getByRole('combobox', { name: 'Allow' }).inputValue(), serial);
  assert.equal(await rules().getByRole('combobox', { name: 'Kind' }).inputValue(), 'device');
  await rules().getByRole('combobox', { name: 'Tool' }).selectOption('serial_read');
  await rules().getByRole('button', { name: 'Save rule' }).click();
  await rules().getByText(`serial_read may run without asking for the device ${serial}`).waitFor();
  assert.equal(await rules().getByText(`serial_write may run without asking for the device ${serial}`).count(), 0, 'replaced');
  assert.deepEqual(await seriousViolations(page, 'section[aria-labelledby="rules-title"]'), []);
  await rules()
    .getByRole('button', { name: `Remove the rule: serial_read for the device ${serial}` })
    .click();
  await rules().getByText('No rules yet.', { exact: false }).waitFor();
});

test('after a reload, a USB device with a serial number and a serial port and HID device that are the only ones of their \
identity keep their ids and rules: the agent writes to each without being asked', async () => {
  await addDeviceRule('serial_write', before.serial[0]);
  await addDeviceRule('hid_send', before.hid[0]);
  await addDeviceRule('usb_transfer_out', before.usb[0]);
  await page.reload();
  await appView(page);
  const after = await devicesListed();
  assert.deepEqual(after, before, 'the same ids after the reload');
  await page.getByRole('button', { name: 'Back to chat' }).click();
  llm.enqueue(
    {
      toolCalls: [
        { id: 'w1', name: 'serial_write', arguments: { device: after.serial[0], text: 'hi' } },
        { id: 'w2', name: 'hid_send', arguments: { device: after.hid[0], reportId: 1, hex: '01 02' } },
        { id: 'w3', name: 'usb_transfer_out', arguments: { device: after.usb[0], endpoint: 1, hex: 'de ad' } },
      ],
    },
    { text: 'Wrote to all three.' },
  );
  await sendMessage(page, 'write to my devices');
  await page.getByText('Wrote to all three.', { exact: true }).waitFor();
  const [serial, hid, usb] = toolResults().slice(-3);
  assert.match(serial, /^Wrote 2 bytes to serial:/);
  assert.match(hid, /^Sent report 1 of 2 bytes to hid:/);
  assert.match(usb, /^Sent 2 bytes to endpoint 1 of usb:1209:0001:L1:/);
  assert.equal(await page.getByRole('dialog', { name: /Allow/ }).count(), 0, 'no question: each device’s rule covered it');
});

test('two ports of one identity after a reload: neither takes the rule’s id, and a write asks (control: one port re-found kept \
it, above)', async () => {
  await fx.browser.context.addInitScript(installFakeSerial, { ports: PORTS, granted: ['echo', 'other'] });
  await page.reload();
  await appView(page);
  const now = await devicesListed();
  assert.equal(now.serial.length, 2);
  assert.ok(!now.serial.includes(before.serial[0]), 'the rule’s id is not given to either');
  assert.deepEqual(now.usb, before.usb, 'the USB device, with its serial number, still has its id');
  await page.getByRole('button', { name: 'Back to chat' }).click();
  llm.enqueue({ toolCalls: [{ id: 'x1', name: 'serial_write', arguments: { device: now.serial[0], text: 'hi' } }] }, { text: 'Asked.' });
  await sendMessage(page, 'write to the port');
  const ask = page.getByRole('dialog', { name: 'Allow “serial_write”?' });
  await ask.getByRole('button', { name: 'Deny' }).click();
  await page.getByText('Asked.', { exact: true }).waitFor();
  assert.match(toolResults().at(-1) ?? '', /The user denied this call to serial_write/);
});
