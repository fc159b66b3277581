// The Bluetooth devices the user picked in the browser's chooser (Web Bluetooth), as the
// bluetooth_* tools and the Devices section use them: the same rules as the serial ports
// (devices.js). Reachable: the devices picked in this page (and those navigator.bluetooth.getDevices()
// lists where the browser has it), and only the GATT services named when the user picked (the
// browser's optionalServices). The identity is the browser's own device id (opaque, per origin),
// never the device's name; characteristic values are bounded (512 bytes, GATT's limit) and time-limited.
import { HardwareError, timeLimit } from './devices.js';

/** The largest characteristic value GATT allows. */
export const MAX_GATT_BYTES = 512;

/** A Bluetooth device's identity. @param {{id: string}} d */
export const bluetoothIdentity = (d) => `bluetooth:${d.id}`;

/**
 * @typedef {{
 *   readValue(): Promise<DataView>, writeValueWithResponse(data: Uint8Array): Promise<void>,
 * }} CharacteristicLike
 * @typedef {{
 *   connected: boolean, connect(): Promise<GattLike>, disconnect(): void,
 *   getPrimaryService(uuid: string): Promise<{getCharacteristic(uuid: string): Promise<CharacteristicLike>}>,
 * }} GattLike
 * @typedef {{id: string, name?: string, gatt?: GattLike, forget?(): Promise<void>}} BluetoothDeviceLike
 * @typedef {{
 *   requestDevice(options: {acceptAllDevices: boolean, optionalServices: string[]}): Promise<BluetoothDeviceLike>,
 *   getDevices?(): Promise<BluetoothDeviceLike[]>,
 * }} BluetoothLike
 * @typedef {{id: string, kind: 'bluetooth', label: string, open: boolean}} BluetoothView
 */

/**
 * A promise, or a timeout after `ms`.
 * @template T @param {Promise<T>} p @param {number} ms @param {string} what @returns {Promise<T>}
 */
async function within(p, ms, what) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  try {
    return await Promise.race([
      p,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new HardwareError('timeout', `Timed out after ${ms} ms: ${what}.`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The Bluetooth devices the user picked. */
export class BluetoothDevices {
  /** Devices picked in this page (getDevices() is behind a flag in some browsers). @type {Set<BluetoothDeviceLike>} */
  #picked = new Set();

  /** @param {BluetoothLike | undefined} bluetooth the browser's navigator.bluetooth */
  constructor(bluetooth) {
    this.bluetooth = bluetooth;
  }

  get supported() {
    return !!this.bluetooth;
  }

  #api() {
    if (!this.bluetooth) {
      throw new HardwareError('unsupported', 'This browser has no Web Bluetooth (Chrome and Edge on desktop and Android have it).');
    }
    return this.bluetooth;
  }

  async #all() {
    const listed = this.bluetooth?.getDevices ? await this.bluetooth.getDevices() : [];
    const byId = new Map([...this.#picked, ...listed].map((d) => [d.id, d]));
    return [...byId.values()];
  }

  /** @param {BluetoothDeviceLike} d @returns {BluetoothView} */
  #view(d) {
    const name = d.name ? `“${d.name.slice(0, 80)}”` : '(no name)';
    return { id: bluetoothIdentity(d), kind: 'bluetooth', label: `Bluetooth device ${name}`, open: !!d.gatt?.connected };
  }

  /** @returns {Promise<BluetoothView[]>} */
  async list() {
    if (!this.bluetooth) return [];
    return (await this.#all()).map((d) => this.#view(d));
  }

  /**
   * Opens the browser's chooser (from the user's click), the GATT services the agent may use named.
   * @param {string[]} services @returns {Promise<BluetoothView>}
   */
  async request(services) {
    try {
      const d = await this.#api().requestDevice({ acceptAllDevices: true, optionalServices: services });
      this.#picked.add(d);
      return this.#view(d);
    } catch (err) {
      if (/** @type {Error} */ (err)?.name === 'NotFoundError')
        throw new HardwareError('cancelled', 'The user picked no Bluetooth device.');
      throw err;
    }
  }

  /** @param {string} id */
  async #find(id) {
    this.#api();
    const d = (await this.#all()).find((x) => bluetoothIdentity(x) === id);
    if (!d) {
      throw new HardwareError('not_picked', `No Bluetooth device "${id}" was picked by the user (bluetooth_list lists those that were).`);
    }
    return d;
  }

  /** @param {string} id @param {string} service @param {string} characteristic @param {number} ms */
  async #characteristic(id, service, characteristic, ms) {
    const d = await this.#find(id);
    if (!d.gatt) throw new HardwareError('device_failed', 'The device has no GATT server.');
    const gatt = d.gatt;
    const server = gatt.connected ? gatt : await within(gatt.connect(), ms, 'the device did not connect');
    const s = await within(server.getPrimaryService(service), ms, 'the service did not answer');
    return within(s.getCharacteristic(characteristic), ms, 'the characteristic did not answer');
  }

  /** @param {string} id @param {{service: string, characteristic: string, timeoutMs?: number}} t */
  async read(id, t) {
    const ms = timeLimit(t.timeoutMs);
    const c = await this.#characteristic(id, t.service, t.characteristic, ms);
    const v = await within(c.readValue(), ms, 'the value did not come');
    return new Uint8Array(v.buffer, v.byteOffset, Math.min(v.byteLength, MAX_GATT_BYTES)).slice();
  }

  /** @param {string} id @param {{service: string, characteristic: string, data: Uint8Array, timeoutMs?: number}} t */
  async write(id, t) {
    if (t.data.length > MAX_GATT_BYTES) {
      throw new HardwareError('too_large', `A value of ${t.data.length} bytes is over the limit of ${MAX_GATT_BYTES} bytes.`);
    }
    const ms = timeLimit(t.timeoutMs);
    const c = await this.#characteristic(id, t.service, t.characteristic, ms);
    await within(c.writeValueWithResponse(t.data), ms, 'the device did not take the value');
    return t.data.length;
  }

  /** @param {string} id */
  async disconnect(id) {
    const d = await this.#find(id);
    if (d.gatt?.connected) d.gatt.disconnect();
  }

  /** Revokes the pick (device.forget()). @param {string} id */
  async forget(id) {
    const d = await this.#find(id);
    if (d.gatt?.connected) d.gatt.disconnect();
    this.#picked.delete(d);
    if (d.forget) await d.forget();
  }
}

/** @type {BluetoothDevices | undefined} */
let shared;

/** The page's Bluetooth devices (one registry, shared by the tools and the Devices section). */
export function bluetoothDevices() {
  shared ??= new BluetoothDevices(/** @type {any} */ (globalThis.navigator)?.bluetooth);
  return shared;
}
