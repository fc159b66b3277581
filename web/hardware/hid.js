// The HID devices the user picked in the browser's chooser (WebHID), as the hid_* tools and the
// Devices section use them: the same rules as the serial ports (devices.js) — only a device in
// navigator.hid.getDevices() is reachable, its identity its vendor and product ids plus a random
// part per device object (WebHID has no serial number), reports bounded in bytes and time.
import { HardwareError, checkSize, timeLimit, idsOf } from './devices.js';

/** The largest report sent or received (a HID report is at most 64 bytes on full-speed USB; larger on others). */
export const MAX_REPORT_BYTES = 1024;

/** Input reports kept per open device until hid_receive takes them (the oldest dropped past it). */
export const QUEUED_REPORTS = 64;

/** @param {number} n */
const hex4 = (n) => n.toString(16).padStart(4, '0');

/** A HID device's identity. @param {{vendorId: number, productId: number}} device @param {string} nonce */
export const hidIdentity = (device, nonce) => `${hidBase(device)}:${nonce}`;

/** A HID device's identity without its random part. @param {{vendorId: number, productId: number}} device */
export const hidBase = (device) => `hid:${hex4(device.vendorId)}:${hex4(device.productId)}`;

/**
 * @typedef {{
 *   vendorId: number, productId: number, productName: string, opened: boolean,
 *   open(): Promise<void>, close(): Promise<void>, forget?(): Promise<void>,
 *   sendReport(reportId: number, data: Uint8Array): Promise<void>,
 *   addEventListener(type: 'inputreport', fn: (e: {reportId: number, data: DataView}) => void): void,
 *   removeEventListener(type: 'inputreport', fn: (e: {reportId: number, data: DataView}) => void): void,
 * }} HidDeviceLike
 * @typedef {{getDevices(): Promise<HidDeviceLike[]>, requestDevice(options: {filters: object[]}): Promise<HidDeviceLike[]>}} HidLike
 * @typedef {{id: string, kind: 'hid', label: string, open: boolean}} HidView
 */

/** The HID devices the user picked, for the page's lifetime. */
export class HidDevices {
  /** @type {WeakMap<HidDeviceLike, string>} */
  #ids = new WeakMap();
  /** Reports come as events, and are kept from the moment the device is opened here until taken. */
  /** @type {WeakMap<HidDeviceLike, {queue: {reportId: number, data: Uint8Array}[], wake: (() => void) | null}>} */
  #inbox = new WeakMap();

  /** @param {HidLike | undefined} hid the browser's navigator.hid */
  constructor(hid) {
    this.hid = hid;
  }

  get supported() {
    return !!this.hid;
  }

  #api() {
    if (!this.hid) throw new HardwareError('unsupported', 'This browser has no WebHID (Chromium-based browsers on desktop have it).');
    return this.hid;
  }

  /** The picked devices with their ids (minted for those seen the first time). @returns {Promise<[HidDeviceLike, string][]>} */
  async #picked() {
    const all = await this.#api().getDevices();
    const ids = idsOf(all, this.#ids, hidBase);
    return all.map((d, i) => [d, ids[i]]);
  }

  /** The id of a device just picked. @param {HidDeviceLike} d */
  async #idOfPicked(d) {
    return (await this.#picked()).find(([x]) => x === d)?.[1] ?? idsOf([d], this.#ids, hidBase)[0];
  }

  /** @param {HidDeviceLike} d @param {string} id @returns {HidView} */
  #view(d, id) {
    const name = d.productName ? `“${d.productName.slice(0, 80)}”, ` : '';
    return {
      id,
      kind: 'hid',
      label: `HID device ${name}vendor ${hex4(d.vendorId)} product ${hex4(d.productId)}`,
      open: d.opened,
    };
  }

  /** @returns {Promise<HidView[]>} */
  async list() {
    if (!this.hid) return [];
    return (await this.#picked()).map(([d, id]) => this.#view(d, id));
  }

  /** Opens the browser's chooser (from the user's click). @returns {Promise<HidView>} */
  async request() {
    const [picked] = await this.#api().requestDevice({ filters: [] });
    if (!picked) throw new HardwareError('cancelled', 'The user picked no HID device.');
    return this.#view(picked, await this.#idOfPicked(picked));
  }

  /** @param {string} id */
  async #device(id) {
    const d = (await this.#picked()).find(([, x]) => x === id)?.[0];
    if (!d) throw new HardwareError('not_picked', `No HID device "${id}" was picked by the user (hid_list lists those that were).`);
    if (!d.opened) await d.open();
    if (!this.#inbox.has(d)) {
      /** @type {{queue: {reportId: number, data: Uint8Array}[], wake: (() => void) | null}} */
      const inbox = { queue: [], wake: null };
      this.#inbox.set(d, inbox);
      d.addEventListener('inputreport', (e) => {
        const n = Math.min(e.data.byteLength, MAX_REPORT_BYTES);
        inbox.queue.push({ reportId: e.reportId, data: new Uint8Array(e.data.buffer, e.data.byteOffset, n).slice() });
        if (inbox.queue.length > QUEUED_REPORTS) inbox.queue.shift();
        inbox.wake?.();
      });
    }
    return d;
  }

  /** Sends an output report. @param {string} id @param {number} reportId @param {Uint8Array} data */
  async send(id, reportId, data) {
    checkSize(data.length, MAX_REPORT_BYTES, 'A report');
    const d = await this.#device(id);
    await d.sendReport(reportId, data);
    return data.length;
  }

  /**
   * The oldest input report not yet taken (kept since the device was opened here), or the next
   * one to come, or a timeout.
   * @param {string} id @param {{timeoutMs?: number}} [options] @returns {Promise<{reportId: number, data: Uint8Array}>}
   */
  async receive(id, options = {}) {
    const d = await this.#device(id);
    const inbox = /** @type {{queue: {reportId: number, data: Uint8Array}[], wake: (() => void) | null}} */ (this.#inbox.get(d));
    const ms = timeLimit(options.timeoutMs);
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    try {
      if (!inbox.queue.length) {
        await new Promise((resolve, reject) => {
          inbox.wake = () => resolve(undefined);
          timer = setTimeout(() => reject(new HardwareError('timeout', `Timed out after ${ms} ms: no report came from the device.`)), ms);
        });
      }
      const report = inbox.queue.shift();
      if (!report) throw new HardwareError('timeout', 'Another read took the report that came.');
      return report;
    } finally {
      clearTimeout(timer);
      inbox.wake = null;
    }
  }

  /** @param {string} id */
  async close(id) {
    const d = (await this.#picked()).find(([, x]) => x === id)?.[0];
    if (!d) throw new HardwareError('not_picked', `No HID device "${id}" was picked by the user.`);
    this.#inbox.delete(d);
    if (d.opened) await d.close();
  }

  /** Revokes the pick (device.forget()). @param {string} id */
  async forget(id) {
    const d = (await this.#picked()).find(([, x]) => x === id)?.[0];
    if (!d) throw new HardwareError('not_picked', `No HID device "${id}" was picked by the user.`);
    this.#inbox.delete(d);
    if (!d.forget) throw new HardwareError('unsupported', 'This browser cannot revoke a HID device (HIDDevice.forget).');
    await d.forget();
  }
}

/** @type {HidDevices | undefined} */
let shared;

/** The page's HID devices (one registry, shared by the tools and the Devices section). */
export function hidDevices() {
  shared ??= new HidDevices(/** @type {any} */ (globalThis.navigator)?.hid);
  return shared;
}
