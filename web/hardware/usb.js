// The USB devices the user picked in the browser's chooser (WebUSB), as the usb_* tools and the
// Devices section use them: the same rules as the serial ports (devices.js) — only a device in
// navigator.usb.getDevices() is reachable; its identity is its vendor and product ids, its serial
// number when it reports one, and a random part per device object (a serial number is the
// device's own word, and clones share one); bulk/interrupt transfers bounded in bytes and time.
import { HARDWARE_LIMITS, HardwareError, checkSize, timeLimit, idsOf } from './devices.js';

/** @param {number} n */
const hex4 = (n) => n.toString(16).padStart(4, '0');

/**
 * A USB device's identity: `usb:VVVV:PPPP:serial:nonce` (serial "none" when it reports none;
 * characters other than letters, digits, `-` and `_` written as `_`).
 * @param {{vendorId: number, productId: number, serialNumber?: string}} d @param {string} nonce
 */
export function usbIdentity(d, nonce) {
  return `${usbBase(d)}:${nonce}`;
}

/** A USB device's identity without its random part. @param {{vendorId: number, productId: number, serialNumber?: string}} d */
export function usbBase(d) {
  const serial = (d.serialNumber ?? '').replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'none';
  return `usb:${hex4(d.vendorId)}:${hex4(d.productId)}:${serial}`;
}

/**
 * @typedef {{
 *   vendorId: number, productId: number, productName?: string, serialNumber?: string, opened: boolean,
 *   configuration: object | null,
 *   open(): Promise<void>, close(): Promise<void>, forget?(): Promise<void>,
 *   selectConfiguration(n: number): Promise<void>, claimInterface(n: number): Promise<void>,
 *   transferOut(endpoint: number, data: Uint8Array): Promise<{bytesWritten: number, status: string}>,
 *   transferIn(endpoint: number, length: number): Promise<{data?: DataView, status: string}>,
 * }} UsbDeviceLike
 * @typedef {{getDevices(): Promise<UsbDeviceLike[]>, requestDevice(options: {filters: object[]}): Promise<UsbDeviceLike>}} UsbLike
 * @typedef {{id: string, kind: 'usb', label: string, open: boolean}} UsbView
 */

/** @param {number} ms @param {string} what */
const timeout = (ms, what) => new HardwareError('timeout', `Timed out after ${ms} ms: ${what}.`);

/**
 * A promise, or a timeout after `ms`.
 * @template T @param {Promise<T>} p @param {number} ms @param {string} what @returns {Promise<T>}
 */
async function within(p, ms, what) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  try {
    return await Promise.race([p, new Promise((_, reject) => (timer = setTimeout(() => reject(timeout(ms, what)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** The USB devices the user picked, for the page's lifetime. */
export class UsbDevices {
  /** @type {WeakMap<UsbDeviceLike, string>} */
  #ids = new WeakMap();
  /** @type {WeakMap<UsbDeviceLike, Set<number>>} */
  #claimed = new WeakMap();
  /**
   * Per device and IN endpoint: a transfer still under way after its call timed out (WebUSB cannot
   * cancel one; a new one would let it swallow the next bytes), and bytes past a read's length.
   * @type {WeakMap<UsbDeviceLike, Map<number, {pending: Promise<{data?: DataView, status: string}> | null, rest: Uint8Array}>>}
   */
  #inbound = new WeakMap();

  /** @param {UsbLike | undefined} usb the browser's navigator.usb */
  constructor(usb) {
    this.usb = usb;
  }

  get supported() {
    return !!this.usb;
  }

  #api() {
    if (!this.usb) throw new HardwareError('unsupported', 'This browser has no WebUSB (Chromium-based browsers on desktop have it).');
    return this.usb;
  }

  /** The picked devices with their ids (minted for those seen the first time). @returns {Promise<[UsbDeviceLike, string][]>} */
  async #picked() {
    const all = await this.#api().getDevices();
    const ids = idsOf(all, this.#ids, usbBase);
    return all.map((d, i) => [d, ids[i]]);
  }

  /** The id of a device just picked. @param {UsbDeviceLike} d */
  async #idOfPicked(d) {
    return (await this.#picked()).find(([x]) => x === d)?.[1] ?? idsOf([d], this.#ids, usbBase)[0];
  }

  /** @param {UsbDeviceLike} d @param {string} id @returns {UsbView} */
  #view(d, id) {
    const name = d.productName ? `“${d.productName.slice(0, 80)}”, ` : '';
    return {
      id,
      kind: 'usb',
      label: `USB device ${name}vendor ${hex4(d.vendorId)} product ${hex4(d.productId)}`,
      open: d.opened,
    };
  }

  /** @returns {Promise<UsbView[]>} */
  async list() {
    if (!this.usb) return [];
    return (await this.#picked()).map(([d, id]) => this.#view(d, id));
  }

  /** Opens the browser's chooser (from the user's click). @returns {Promise<UsbView>} */
  async request() {
    try {
      const d = await this.#api().requestDevice({ filters: [] });
      return this.#view(d, await this.#idOfPicked(d));
    } catch (err) {
      if (/** @type {Error} */ (err)?.name === 'NotFoundError') throw new HardwareError('cancelled', 'The user picked no USB device.');
      throw err;
    }
  }

  /** @param {string} id */
  async #find(id) {
    const d = (await this.#picked()).find(([, x]) => x === id)?.[0];
    if (!d) throw new HardwareError('not_picked', `No USB device "${id}" was picked by the user (usb_list lists those that were).`);
    return d;
  }

  /** Opens the device, its first configuration and the interface, once. @param {string} id @param {number} iface */
  async #ready(id, iface) {
    const d = await this.#find(id);
    if (!d.opened) await d.open();
    if (!d.configuration) await d.selectConfiguration(1);
    let claimed = this.#claimed.get(d);
    if (!claimed) this.#claimed.set(d, (claimed = new Set()));
    if (!claimed.has(iface)) {
      await d.claimInterface(iface);
      claimed.add(iface);
    }
    return d;
  }

  /**
   * A transfer out to an endpoint of an interface.
   * @param {string} id @param {{iface: number, endpoint: number, data: Uint8Array, timeoutMs?: number}} t
   */
  async transferOut(id, t) {
    checkSize(t.data.length, HARDWARE_LIMITS.maxWriteBytes, 'A transfer');
    const d = await this.#ready(id, t.iface);
    const ms = timeLimit(t.timeoutMs);
    const r = await within(d.transferOut(t.endpoint, t.data), ms, `the device did not take ${t.data.length} bytes`);
    if (r.status !== 'ok') throw new HardwareError('device_failed', `The transfer ended with status "${r.status}".`);
    return r.bytesWritten;
  }

  /**
   * A transfer in from an endpoint, at most `length` bytes, or a timeout.
   * @param {string} id @param {{iface: number, endpoint: number, length: number, timeoutMs?: number}} t
   */
  async transferIn(id, t) {
    checkSize(t.length, HARDWARE_LIMITS.maxReadBytes, 'A read');
    const d = await this.#ready(id, t.iface);
    let endpoints = this.#inbound.get(d);
    if (!endpoints) this.#inbound.set(d, (endpoints = new Map()));
    let state = endpoints.get(t.endpoint);
    if (!state) endpoints.set(t.endpoint, (state = { pending: null, rest: new Uint8Array(0) }));
    if (!state.rest.length) {
      const ms = timeLimit(t.timeoutMs);
      state.pending ??= d.transferIn(t.endpoint, t.length);
      /** @type {{data?: DataView, status: string}} */
      let r;
      try {
        r = await within(state.pending, ms, 'no bytes came from the device');
      } catch (err) {
        if (!(err instanceof HardwareError && err.code === 'timeout')) state.pending = null;
        throw err;
      }
      state.pending = null;
      if (r.status !== 'ok') throw new HardwareError('device_failed', `The transfer ended with status "${r.status}".`);
      state.rest = r.data ? new Uint8Array(r.data.buffer, r.data.byteOffset, r.data.byteLength).slice() : new Uint8Array(0);
    }
    const out = state.rest.slice(0, t.length);
    state.rest = state.rest.slice(t.length);
    return out;
  }

  /** @param {string} id */
  async close(id) {
    const d = await this.#find(id);
    this.#claimed.delete(d);
    this.#inbound.delete(d);
    if (d.opened) await d.close();
  }

  /** Revokes the pick (device.forget()). @param {string} id */
  async forget(id) {
    const d = await this.#find(id);
    this.#claimed.delete(d);
    this.#inbound.delete(d);
    if (!d.forget) throw new HardwareError('unsupported', 'This browser cannot revoke a USB device (USBDevice.forget).');
    await d.forget();
  }
}

/** @type {UsbDevices | undefined} */
let shared;

/** The page's USB devices (one registry, shared by the tools and the Devices section). */
export function usbDevices() {
  shared ??= new UsbDevices(/** @type {any} */ (globalThis.navigator)?.usb);
  return shared;
}
