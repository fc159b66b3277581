/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { KeyStore } from '../packages/wsh/keys.js' */
// The user's own machines reachable through wsh (web/packages/wsh/): their names and addresses
// (in the ConfigStore, validated with zod), each with an Ed25519 key of its own whose private half
// stays non-extractable in IndexedDB (the package's IndexedDbKeyStore). Page-wide, like the keys:
// every workspace reaches the same machines. The remote_* tools and the Remote panel use it.
import { z } from 'zod';
import { MACHINE_NAME, RelayError } from '../net/relay.js';

export const MACHINES_KEY = 'clawser_remote_machines';
/** The name of a machine's key in the key store. @param {string} id */
export const keyNameOf = (id) => `clawser-remote:${id}`;

const NAME = MACHINE_NAME;

export const MachineNameSchema = z
  .string()
  .regex(NAME, 'A machine name is 1–32 letters, digits, dots, dashes or underscores, starting with a letter or digit.');

export const MachineUrlSchema = z
  .string()
  .max(2048)
  .refine((url) => {
    try {
      return ['ws:', 'wss:'].includes(new URL(url).protocol);
    } catch {
      return false;
    }
  }, 'A wsh address starts with ws:// or wss:// — the first line wsh-server prints, such as ws://127.0.0.1:40211/wsh.');

export const MachineSchema = z.object({
  id: z.string().min(1).max(64),
  name: MachineNameSchema,
  url: MachineUrlSchema,
  createdAt: z.number(),
  lastUsed: z.number().nullable().default(null),
});
/** @typedef {z.infer<typeof MachineSchema>} Machine */

const MachinesSchema = z.array(MachineSchema).max(100);

/** A machine refused or not reachable, with what to do. */
export class RemoteError extends Error {
  /**
   * @param {'invalid' | 'taken' | 'not_found' | 'no_key' | 'unavailable' | 'connect_failed'} code
   * @param {string} message @param {{cause?: unknown}} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'RemoteError';
    this.code = code;
  }
}

/**
 * The wsh client module, loaded the first time a machine is used (the page's start does not load it).
 * @typedef {typeof import('../packages/wsh/index.js')} WshModule
 * @typedef {import('../packages/wsh/index.js').WshClient} WshClient
 */

/**
 * A machine's shared connection as the Remote panel shows it; `reason`: why it is not connected
 * (the error's code and words), '' when connected or connecting.
 * @typedef {{state: 'connected' | 'connecting' | 'reconnecting' | 'disconnected', reason: string}} ConnectionStatus
 */

/** @param {unknown} err @returns {string} */
const reasonOf = (err) => {
  const e = /** @type {{code?: string, message?: string} | undefined} */ (err);
  if (!e) return '';
  return e.code ? `${e.code}: ${e.message ?? ''}`.trim() : String(e.message ?? err);
};

export class RemoteMachines {
  /** @type {ConfigStore} */
  #config;
  /** @type {() => Promise<WshModule>} */
  #wsh;
  /** @type {KeyStore | null} */
  #keys = null;
  /** Signed-in clients by machine id (reused across calls; dropped when they end). @type {Map<string, Promise<WshClient>>} */
  #clients = new Map();
  /** @type {Set<() => void>} */
  #listeners = new Set();
  /** How a dropped connection is made again: a few tries, then calls fail (a tool call must not wait for ever). */
  #reconnect;
  /** Each machine's connection status, by id. @type {Map<string, ConnectionStatus>} */
  #status = new Map();
  /** @type {Set<(name: string) => void>} */
  #statusListeners = new Set();
  /** How many watch each machine (by id); a watched machine's connection is made again when it ends. @type {Map<string, number>} */
  #watchers = new Map();
  /** A watched machine's next try, and its delay. @type {Map<string, {timer: ReturnType<typeof setTimeout> | null, delay: number}>} */
  #retries = new Map();
  /** @type {{minDelayMs: number, maxDelayMs: number}} */
  #watchRetry;

  /**
   * @param {{config: ConfigStore, wsh?: () => Promise<WshModule>, keys?: KeyStore, reconnect?: {minDelayMs?: number,
   *   maxAttempts?: number}, watchRetry?: {minDelayMs: number, maxDelayMs: number}}} deps
   *   wsh: loads the client (default: the package's browser entry); keys: where keys live (default: IndexedDB);
   *   reconnect: the client's back-off (default: 5 tries from 250 ms, about 6 s in all); watchRetry: how soon a watched
   *   machine's ended connection is tried again (default: from 1 s, doubling to 5 s)
   */
  constructor(deps) {
    this.#watchRetry = deps.watchRetry ?? { minDelayMs: 1000, maxDelayMs: 5000 };
    this.#reconnect = deps.reconnect ?? { maxAttempts: 5 };
    this.#config = deps.config;
    this.#wsh = deps.wsh ?? (() => import('../packages/wsh/index.js'));
    this.#keys = deps.keys ?? null;
  }

  /** @returns {Promise<KeyStore>} */
  async #keyStore() {
    if (this.#keys) return this.#keys;
    const store = (await this.#wsh()).defaultKeyStore();
    if (!store) throw new RemoteError('unavailable', 'This browser has no IndexedDB, where a machine’s key is kept.');
    this.#keys = store;
    return store;
  }

  /** Every machine, in the order they were added. @returns {Machine[]} */
  list() {
    const parsed = MachinesSchema.safeParse(this.#config.get(MACHINES_KEY, []));
    return parsed.success ? parsed.data : [];
  }

  /** @param {Machine[]} machines */
  #save(machines) {
    this.#config.set(MACHINES_KEY, machines);
    for (const fn of this.#listeners) fn();
  }

  /** Called after every change. @param {() => void} fn @returns {() => void} stops it */
  onChange(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** @param {string} name @returns {Machine} */
  get(name) {
    const machine = this.list().find((m) => m.name === name);
    if (!machine) {
      const known = this.list().map((m) => m.name);
      throw new RemoteError(
        'not_found',
        `No machine is named “${name}”. ${known.length ? `The machines: ${known.join(', ')}.` : 'Add one in the Remote panel.'}`,
      );
    }
    return machine;
  }

  /**
   * Adds a machine and makes its key (kept in IndexedDB, the private half not extractable).
   * @param {{name: string, url: string}} input @returns {Promise<Machine>}
   */
  async add(input) {
    const name = MachineNameSchema.safeParse(input.name.trim());
    if (!name.success) throw new RemoteError('invalid', name.error.issues[0].message);
    const url = MachineUrlSchema.safeParse(input.url.trim());
    if (!url.success) throw new RemoteError('invalid', url.error.issues[0].message);
    if (this.list().some((m) => m.name === name.data)) {
      throw new RemoteError('taken', `A machine is already named “${name.data}”: choose another name, or remove it first.`);
    }
    const machine = MachineSchema.parse({ id: crypto.randomUUID(), name: name.data, url: url.data, createdAt: Date.now(), lastUsed: null });
    const wsh = await this.#wsh();
    await wsh.generateKey({ name: keyNameOf(machine.id), store: await this.#keyStore() });
    this.#save([...this.list(), machine]);
    return machine;
  }

  /** Removes a machine, its key and its connection. @param {string} name */
  async remove(name) {
    const machine = this.get(name);
    this.#drop(machine.id);
    this.#watchers.delete(machine.id);
    this.#status.delete(machine.id);
    await (await this.#keyStore()).delete(keyNameOf(machine.id));
    this.#save(this.list().filter((m) => m.id !== machine.id));
  }

  /** @param {string} id */
  #drop(id) {
    const client = this.#clients.get(id);
    this.#clients.delete(id);
    client?.then((c) => c.close()).catch(() => {});
    this.#stopRetry(id);
    if (client) this.#setStatus(id, 'disconnected', 'closed');
  }

  /**
   * The live status of a machine's shared connection (the one its tools, terminal and relay use).
   * @param {string} name @returns {ConnectionStatus}
   */
  connection(name) {
    return this.#status.get(this.get(name).id) ?? { state: 'disconnected', reason: 'not connected yet' };
  }

  /** Called with a machine's name whenever its connection status changes. @param {(name: string) => void} fn @returns {() => void} */
  onStatus(fn) {
    this.#statusListeners.add(fn);
    return () => this.#statusListeners.delete(fn);
  }

  /** @param {string} id @param {ConnectionStatus['state']} state @param {string} [reason] */
  #setStatus(id, state, reason = '') {
    const was = this.#status.get(id);
    if (was && was.state === state && was.reason === reason) return;
    this.#status.set(id, { state, reason });
    const name = this.list().find((m) => m.id === id)?.name;
    if (name) for (const fn of this.#statusListeners) fn(name);
  }

  /**
   * Keeps a machine connected while watched (the Remote panel is open): connects now, and when
   * the connection ends (the server went, the client's tries ran out) tries again with back-off
   * until it is back. Watching is not using: "last used" does not change.
   * @param {string} name @returns {() => void} stops watching
   */
  watch(name) {
    const machine = this.get(name);
    this.#watchers.set(machine.id, (this.#watchers.get(machine.id) ?? 0) + 1);
    if (!this.#clients.has(machine.id)) this.#shared(machine).catch(() => {});
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      const left = (this.#watchers.get(machine.id) ?? 1) - 1;
      if (left > 0) this.#watchers.set(machine.id, left);
      else {
        this.#watchers.delete(machine.id);
        this.#stopRetry(machine.id);
      }
    };
  }

  /** A watched machine whose connection ended: tried again after a delay that doubles up to a cap. @param {string} id */
  #retryLater(id) {
    if (!this.#watchers.has(id)) return;
    const retry = this.#retries.get(id) ?? { timer: null, delay: this.#watchRetry.minDelayMs / 2 };
    if (retry.timer) return;
    retry.delay = Math.min(retry.delay * 2, this.#watchRetry.maxDelayMs);
    retry.timer = setTimeout(() => {
      retry.timer = null;
      const machine = this.list().find((m) => m.id === id);
      if (machine && this.#watchers.has(id) && !this.#clients.has(id)) this.#shared(machine).catch(() => {});
    }, retry.delay);
    this.#retries.set(id, retry);
  }

  /** @param {string} id */
  #stopRetry(id) {
    const retry = this.#retries.get(id);
    if (retry?.timer) clearTimeout(retry.timer);
    this.#retries.delete(id);
  }

  /** @param {Machine} machine */
  async #key(machine) {
    const key = await (await this.#keyStore()).get(keyNameOf(machine.id));
    if (!key)
      throw new RemoteError('no_key', `The key of “${machine.name}” is gone from this browser: remove the machine and add it again.`);
    return key;
  }

  /** The line to paste into the server's keys file. @param {string} name @returns {Promise<string>} */
  async publicKeyLine(name) {
    const machine = this.get(name);
    return (await this.#wsh()).publicKeyLine(await this.#key(machine), `clawser-${machine.name}`);
  }

  /**
   * Connects and signs in once, to say whether the machine is reachable (a connection of its own, closed after).
   * @param {string} name @param {AbortSignal} [signal]
   * @returns {Promise<{ok: true, pty: boolean, key: string} | {ok: false, code: string, message: string}>}
   */
  async test(name, signal) {
    const machine = this.get(name);
    try {
      const wsh = await this.#wsh();
      const client = await wsh.WshClient.connect(machine.url, { key: await this.#key(machine), signal, reconnect: false });
      const pty = client.server?.pty ?? false;
      const key = client.server?.key ?? '';
      client.close();
      this.#touch(machine.id);
      return { ok: true, pty, key };
    } catch (err) {
      const e = /** @type {{code?: string, message?: string}} */ (err);
      return { ok: false, code: String(e.code ?? 'connect_failed'), message: String(e.message ?? err) };
    }
  }

  /**
   * The signed-in client of a machine (made once, reused; it reconnects by itself), and marks it used.
   * @param {string} name @param {AbortSignal} [signal] @returns {Promise<WshClient>}
   */
  async client(name, signal) {
    const machine = this.get(name);
    const connected = await this.#shared(machine, signal);
    this.#touch(machine.id);
    return connected;
  }

  /**
   * The machine's shared client (made once; dropped when it ends), its status followed.
   * @param {Machine} machine @param {AbortSignal} [signal] @returns {Promise<WshClient>}
   */
  #shared(machine, signal) {
    const id = machine.id;
    const existing = this.#clients.get(id);
    if (existing) return existing;
    this.#setStatus(id, 'connecting');
    const client = (async () => {
      const wsh = await this.#wsh();
      return wsh.WshClient.connect(machine.url, { key: await this.#key(machine), signal, reconnect: this.#reconnect });
    })();
    this.#clients.set(id, client);
    const mine = () => this.#clients.get(id) === client;
    client.then(
      (c) => {
        if (!mine()) return;
        this.#setStatus(id, 'connected');
        this.#retries.delete(id);
        c.addEventListener('status', (event) => {
          if (!mine()) return;
          const { error } = /** @type {Event & {error?: unknown}} */ (event);
          if (c.status === 'open') this.#setStatus(id, 'connected');
          else if (c.status === 'connecting') this.#setStatus(id, 'connecting');
          else if (c.status === 'reconnecting') this.#setStatus(id, 'reconnecting', reasonOf(error) || 'the connection dropped');
          else if (c.status === 'idle') this.#setStatus(id, 'disconnected', 'idle: connects again when used');
          else if (c.status === 'closed') {
            this.#clients.delete(id);
            this.#setStatus(id, 'disconnected', reasonOf(error) || 'closed');
            this.#retryLater(id);
          }
        });
      },
      (err) => {
        if (!mine()) return;
        this.#clients.delete(id);
        this.#setStatus(id, 'disconnected', reasonOf(err));
        this.#retryLater(id);
      },
    );
    return client;
  }

  /**
   * A fetch whose requests the machine's wsh server makes (its HTTP relay, to the hosts its
   * --relay-allow lists), for a provider or MCP server marked "through my relay". The response
   * streams as it arrives. The relay sees the request as sent (its own headers, a key among them),
   * nothing else of the page's. A failure is a RelayError naming the machine.
   * @param {string} name @returns {typeof fetch}
   */
  relayFetch(name) {
    return async (input, init = {}) => {
      const signal = init.signal ?? (input instanceof Request ? input.signal : undefined);
      /** @param {unknown} err @param {string} what */
      const failed = (err, what) => {
        if (signal?.aborted) return err;
        const e = /** @type {{message?: string}} */ (err);
        return new RelayError(`${what}: ${e?.message ?? String(err)}`, { cause: err });
      };
      let client;
      try {
        client = await this.client(name, signal ?? undefined);
      } catch (err) {
        throw failed(err, `The relay on “${name}” is not reachable`);
      }
      const request = input instanceof Request ? new Request(input, init) : null;
      const url = request ? request.url : String(input);
      /** @type {RequestInit} */
      const options = request
        ? { method: request.method, headers: request.headers, body: request.body ? await request.arrayBuffer() : null, signal }
        : init;
      try {
        return await client.fetch(url, options);
      } catch (err) {
        throw failed(err, `Through the relay on “${name}”`);
      }
    };
  }

  /** @param {string} id */
  #touch(id) {
    const now = Date.now();
    // A relayed provider or MCP server uses the machine for every request: "last used" is written at most once a minute.
    const last = this.list().find((m) => m.id === id)?.lastUsed;
    if (last && now - last < 60_000 && now >= last) return;
    this.#save(this.list().map((m) => (m.id === id ? { ...m, lastUsed: now } : m)));
  }

  /** Closes every connection (the page goes). */
  closeAll() {
    for (const id of [...this.#clients.keys()]) this.#drop(id);
    for (const id of [...this.#retries.keys()]) this.#stopRetry(id);
    this.#watchers.clear();
  }
}
