// The devices the user picked in the browser's own chooser (Web Serial here), as the hardware
// tools and the Tools panel's Devices section use them. The browser remembers what the user
// picked for this origin (navigator.serial.getPorts()); nothing else is reachable: a port the
// user did not pick is not in that list, and an id the agent makes up names nothing. Each port
// gets an identity that cannot collide — its USB vendor and product ids plus a random part minted
// the first time this page sees the port object — never a display name; after a reload a port
// that is the only one of its vendor and product takes back the id a device rule names (deviceId:
// the same for HID and USB devices). Reads and writes are bounded in bytes and in time; bytes are
// shown as hex.

/** Bounds of one read or write (bytes) and of the time it may take (milliseconds). */
export const HARDWARE_LIMITS = Object.freeze({
  maxReadBytes: 4096,
  maxWriteBytes: 4096,
  defaultReadBytes: 256,
  defaultTimeoutMs: 2000,
  maxTimeoutMs: 15_000,
});

/** Eight hex digits that tell apart two devices reporting the same identity (clones, no serial number). */
export const randomSuffix = () => Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, '0')).join('');

/** The device ids the user's rules name (set by the tools and the Tools panel from the workspace's rules). */
let knownIds = () => /** @type {string[]} */ ([]);

/**
 * Where the ids the user's device rules name come from: a device re-found after a reload takes
 * the id its rule names, when nothing else could be meant (see deviceId). @param {() => string[]} source
 */
export function setKnownDeviceIds(source) {
  knownIds = source;
}

/**
 * The id of a device this page sees for the first time: `base` (kind, vendor and product ids, the
 * USB serial number) and a random part. A device the browser re-finds after a reload (getPorts(),
 * getDevices()) takes back the id a rule names when it is the only one of its base among those
 * picked, exactly one such id is known, and no other device of the page holds it; two devices of
 * one base (clones, two adapters of one model) get new ids, so no rule covers either and the user
 * is asked.
 * @param {string} base @param {number} sameBase how many picked devices have this base, this one
 *   included @param {Set<string>} taken the ids the page's other devices hold
 */
export function deviceId(base, sameBase, taken) {
  if (sameBase === 1) {
    const ours = (/** @type {string} */ id) => id.startsWith(`${base}:`) && /^[0-9a-f]{8}$/.test(id.slice(base.length + 1));
    const known = [...new Set(knownIds())].filter((id) => ours(id) && !taken.has(id));
    if (known.length === 1) return known[0];
  }
  return `${base}:${randomSuffix()}`;
}

/** A device the tools cannot use, or a read or write that did not happen, with a stable code. */
export class HardwareError extends Error {
  /**
   * @param {'unsupported' | 'not_picked' | 'bad_hex' | 'too_large' | 'timeout' | 'device_failed' | 'cancelled' | 'invalid'} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = 'HardwareError';
    this.code = code;
  }
}

/**
 * Bytes as hex pairs separated by spaces ("48 69 0a").
 * @param {Uint8Array} bytes
 */
export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
}

/**
 * Hex as bytes: pairs of hex digits, spaces, commas, colons and `0x` prefixes allowed between them.
 * @param {string} text @returns {Uint8Array} @throws {HardwareError} bad_hex
 */
export function fromHex(text) {
  const digits = text.replace(/0x/gi, '').replace(/[\s,:]+/g, '');
  if (!/^[0-9a-f]*$/i.test(digits) || digits.length % 2) {
    throw new HardwareError('bad_hex', 'Not hex bytes: give pairs of hex digits such as "48 69 0a".');
  }
  const bytes = new Uint8Array(digits.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(digits.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/**
 * Printable ASCII of bytes, the rest as "." (beside the hex, for the model and the user).
 * @param {Uint8Array} bytes
 */
export function asciiOf(bytes) {
  return Array.from(bytes, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
}

/**
 * Refuses a size over its cap, in words.
 * @param {number} size @param {number} cap @param {string} what @throws {HardwareError} too_large
 */
export function checkSize(size, cap, what) {
  if (size > cap) throw new HardwareError('too_large', `${what} of ${size} bytes is over the limit of ${cap} bytes.`);
}

/** A time limit within the bounds. @param {number | undefined} ms */
export const timeLimit = (ms) => Math.min(Math.max(ms ?? HARDWARE_LIMITS.defaultTimeoutMs, 1), HARDWARE_LIMITS.maxTimeoutMs);

/** @param {number | undefined} n */
const hex4 = (n) => (typeof n === 'number' ? n.toString(16).padStart(4, '0') : 'none');

/**
 * A serial port's identity: its USB vendor and product ids (or Bluetooth service, or "none") and
 * the random part this page gave the port object. Two ports never share one, even two adapters of
 * the same model (Web Serial has no serial number to tell them apart).
 * @param {{usbVendorId?: number, usbProductId?: number, bluetoothServiceClassId?: number | string}} info
 * @param {string} nonce
 */
export function serialIdentity(info, nonce) {
  return `${serialBase(info)}:${nonce}`;
}

/**
 * A serial port's identity without its random part.
 * @param {{usbVendorId?: number, usbProductId?: number, bluetoothServiceClassId?: number | string}} info
 */
export function serialBase(info) {
  if (info.bluetoothServiceClassId !== undefined) return `serial:bt-${String(info.bluetoothServiceClassId).toLowerCase()}`;
  return `serial:${hex4(info.usbVendorId)}:${hex4(info.usbProductId)}`;
}

/**
 * The id of each device in `all` (the picked ones, as the browser lists them), minting those seen
 * the first time (deviceId); `ids` keeps them for the page's lifetime.
 * @template D @param {D[]} all @param {WeakMap<object, string>} ids @param {(d: D) => string} baseOf
 */
export function idsOf(all, ids, baseOf) {
  const bases = all.map(baseOf);
  for (const [i, d] of all.entries()) {
    if (ids.has(/** @type {object} */ (d))) continue;
    const taken = new Set(
      all.filter((o) => ids.has(/** @type {object} */ (o))).map((o) => /** @type {string} */ (ids.get(/** @type {object} */ (o)))),
    );
    ids.set(/** @type {object} */ (d), deviceId(bases[i], bases.filter((b) => b === bases[i]).length, taken));
  }
  return all.map((d) => /** @type {string} */ (ids.get(/** @type {object} */ (d))));
}

/**
 * What the user and the model read for a port.
 * @param {{usbVendorId?: number, usbProductId?: number, bluetoothServiceClassId?: number | string}} info
 */
export function serialLabel(info) {
  if (info.bluetoothServiceClassId !== undefined) return `Bluetooth serial port (service ${info.bluetoothServiceClassId})`;
  if (info.usbVendorId === undefined) return 'Serial port (no USB ids)';
  return `USB serial port, vendor ${hex4(info.usbVendorId)} product ${hex4(info.usbProductId)}`;
}

/**
 * @typedef {{
 *   getInfo(): {usbVendorId?: number, usbProductId?: number, bluetoothServiceClassId?: number | string},
 *   open(options: {baudRate: number}): Promise<void>, close(): Promise<void>, forget?(): Promise<void>,
 *   readable: ReadableStream<Uint8Array> | null, writable: WritableStream<Uint8Array> | null,
 * }} SerialPortLike
 * @typedef {{getPorts(): Promise<SerialPortLike[]>, requestPort(options?: object): Promise<SerialPortLike>}} SerialLike
 * @typedef {{id: string, kind: 'serial', label: string, open: boolean}} DeviceView
 */

/** @param {number} ms @param {string} what */
const timeout = (ms, what) => new HardwareError('timeout', `Timed out after ${ms} ms: ${what}.`);

/** The serial ports the user picked, for the page's lifetime (one per page: ids are the page's). */
export class SerialDevices {
  /** @type {WeakMap<SerialPortLike, string>} */
  #ids = new WeakMap();
  /** @type {WeakMap<SerialPortLike, {baudRate: number, rest: Uint8Array}>} */
  #opened = new WeakMap();

  /** @param {SerialLike | undefined} serial the browser's navigator.serial (absent: Web Serial is not available) */
  constructor(serial) {
    this.serial = serial;
  }

  get supported() {
    return !!this.serial;
  }

  #api() {
    if (!this.serial)
      throw new HardwareError('unsupported', 'This browser has no Web Serial (Chromium-based browsers on desktop have it).');
    return this.serial;
  }

  /** The picked ports with their ids (minted for those seen the first time). @returns {Promise<[SerialPortLike, string][]>} */
  async #picked() {
    const all = await this.#api().getPorts();
    const ids = idsOf(all, this.#ids, (p) => serialBase(p.getInfo()));
    return all.map((p, i) => [p, ids[i]]);
  }

  /** @param {SerialPortLike} port @param {string} id @returns {DeviceView} */
  #view(port, id) {
    return { id, kind: 'serial', label: serialLabel(port.getInfo()), open: this.#opened.has(port) };
  }

  /** The ports the user picked (and did not revoke). @returns {Promise<DeviceView[]>} */
  async list() {
    if (!this.serial) return [];
    return (await this.#picked()).map(([p, id]) => this.#view(p, id));
  }

  /**
   * Opens the browser's chooser (call it from the user's click) and returns the port picked.
   * @returns {Promise<DeviceView>} @throws {HardwareError} cancelled when the user picked none
   */
  async request() {
    try {
      const port = await this.#api().requestPort();
      const found = (await this.#picked()).find(([p]) => p === port);
      return this.#view(port, found ? found[1] : idsOf([port], this.#ids, (p) => serialBase(p.getInfo()))[0]);
    } catch (err) {
      if (/** @type {Error} */ (err)?.name === 'NotFoundError') throw new HardwareError('cancelled', 'The user picked no serial port.');
      throw err;
    }
  }

  /** @param {string} id @returns {Promise<SerialPortLike>} @throws {HardwareError} not_picked */
  async #port(id) {
    const port = (await this.#picked()).find(([, pid]) => pid === id)?.[0];
    if (!port) {
      throw new HardwareError('not_picked', `No serial port "${id}" was picked by the user (serial_list lists those that were).`);
    }
    return port;
  }

  /** @param {SerialPortLike} port @param {number} baudRate */
  async #ensureOpen(port, baudRate) {
    let state = this.#opened.get(port);
    if (!state) {
      await port.open({ baudRate });
      state = { baudRate, rest: new Uint8Array(0) };
      this.#opened.set(port, state);
    }
    return state;
  }

  /**
   * Writes bytes (at most HARDWARE_LIMITS.maxWriteBytes) within the time limit.
   * @param {string} id @param {Uint8Array} bytes @param {{baudRate?: number, timeoutMs?: number}} [options]
   */
  async write(id, bytes, options = {}) {
    checkSize(bytes.length, HARDWARE_LIMITS.maxWriteBytes, 'A write');
    const port = await this.#port(id);
    await this.#ensureOpen(port, options.baudRate ?? 9600);
    if (!port.writable) throw new HardwareError('device_failed', 'The port cannot be written to (it was closed or lost).');
    const writer = port.writable.getWriter();
    const ms = timeLimit(options.timeoutMs);
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    try {
      await Promise.race([
        writer.write(bytes),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(timeout(ms, `the device did not take ${bytes.length} bytes`)), ms);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      writer.releaseLock();
    }
    return bytes.length;
  }

  /**
   * Reads what the device sends, up to `maxBytes`: returns once some bytes came, or fails with
   * "timeout" when none came within the time limit. Bytes past `maxBytes` wait for the next read.
   * @param {string} id @param {{maxBytes?: number, baudRate?: number, timeoutMs?: number}} [options]
   * @returns {Promise<Uint8Array>}
   */
  async read(id, options = {}) {
    const maxBytes = options.maxBytes ?? HARDWARE_LIMITS.defaultReadBytes;
    checkSize(maxBytes, HARDWARE_LIMITS.maxReadBytes, 'A read');
    const port = await this.#port(id);
    const state = await this.#ensureOpen(port, options.baudRate ?? 9600);
    if (!state.rest.length) {
      if (!port.readable) throw new HardwareError('device_failed', 'The port cannot be read (it was closed or lost).');
      const reader = port.readable.getReader();
      const ms = timeLimit(options.timeoutMs);
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        reader.releaseLock();
      }, ms);
      try {
        const { value, done } = await reader.read();
        if (done) throw new HardwareError('device_failed', 'The device closed its side of the port.');
        state.rest = value ?? new Uint8Array(0);
      } catch (err) {
        if (late) throw timeout(ms, 'no bytes came from the device');
        throw err;
      } finally {
        clearTimeout(timer);
        try {
          reader.releaseLock();
        } catch {
          // released already (the time limit)
        }
      }
    }
    const out = state.rest.slice(0, maxBytes);
    state.rest = state.rest.slice(maxBytes);
    return out;
  }

  /** Closes the port (it stays picked). @param {string} id */
  async close(id) {
    const port = await this.#port(id);
    if (this.#opened.has(port)) {
      this.#opened.delete(port);
      await port.close();
    }
  }

  /** Revokes the user's pick (port.forget()): the port is no longer reachable until picked again. @param {string} id */
  async forget(id) {
    const port = await this.#port(id);
    if (this.#opened.has(port)) {
      this.#opened.delete(port);
      await port.close().catch(() => {});
    }
    if (!port.forget) throw new HardwareError('unsupported', 'This browser cannot revoke a port (SerialPort.forget).');
    await port.forget();
  }
}

/** @type {SerialDevices | undefined} */
let shared;

/** The page's serial devices (one registry, shared by the tools and the Devices section). */
export function serialDevices() {
  shared ??= new SerialDevices(/** @type {any} */ (globalThis.navigator)?.serial);
  return shared;
}
