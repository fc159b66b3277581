// The pure parts of Clawser's companion extension: no `chrome.*` here, so Node's unit tests import
// this file as it is (tests/unit/extension-lib.test.mjs). The service worker (background.js)
// does the browser's side with them.

/** The protocol's version: a reply says which it speaks, and Clawser refuses another. */
export const PROTOCOL = 1;

/** What a Clawser page may ask, each a command of background.js. */
export const COMMANDS = Object.freeze([
  'hello',
  'tabs_list',
  'tab_read',
  'tab_screenshot',
  'tab_navigate',
  'tab_click',
  'tab_type',
  'tab_open',
  'tab_close',
]);

/** An agent's session not heard from for this long has its tabs closed (orphans of a closed Clawser tab). */
export const ORPHAN_MS = 5 * 60_000;
/** How long a screenshot waits for the one before it before it gives up (mutex_busy). */
export const SCREENSHOT_WAIT_MS = 10_000;
/** How long an action waits for the page to finish loading before it answers anyway (`readiness.timedOut`). */
export const READY_TIMEOUT_MS = 15_000;
/** Characters of a page one tab_read returns at most; the rest is read by `offset`. */
export const MAX_PAGE_CHARS = 100_000;

/**
 * What marks a query parameter (or a field) as holding a secret: its name contains one of
 * SENSITIVE_PARTS, or one of its words (split at `_`, `-`, `.` and camelCase) is one of
 * SENSITIVE_WORDS. Such values are `[REDACTED]` in every URL the extension returns or logs.
 */
export const SENSITIVE_PARTS = Object.freeze(['password', 'passwd', 'secret', 'token', 'apikey', 'credential', 'signature', 'session']);
export const SENSITIVE_WORDS = Object.freeze(['pwd', 'pass', 'key', 'auth', 'sid', 'sig', 'code', 'otp', 'jwt']);

/** A failure the extension reports to Clawser: a stable `code`, words a person can act on, a hint for the agent. */
export class CompanionError extends Error {
  /** @param {string} code @param {string} message @param {string} [hint] */
  constructor(code, message, hint) {
    super(message);
    this.name = 'CompanionError';
    this.code = code;
    this.hint = hint;
  }
}

/**
 * The answer for a failure: a CompanionError as it is, anything else as `internal`.
 * @param {unknown} err @returns {{ok: false, error: {code: string, message: string, hint?: string}}}
 */
export function errorReply(err) {
  if (err instanceof CompanionError) {
    return { ok: false, error: { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}) } };
  }
  return { ok: false, error: { code: 'internal', message: String(/** @type {Error} */ (err)?.message ?? err) } };
}

/**
 * An http(s) URL as a URL, or a CompanionError: the extension opens, reads and acts only on
 * web pages, never on browser pages (`chrome:`), files, `javascript:` or `data:` addresses.
 * @param {unknown} url @returns {URL}
 */
export function webUrl(url) {
  if (typeof url !== 'string' || !url) throw new CompanionError('bad_request', 'No URL was given.');
  /** @type {URL} */
  let u;
  try {
    u = new URL(url);
  } catch {
    throw new CompanionError('bad_url', `"${url.slice(0, 100)}" is not an absolute URL.`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new CompanionError(
      'bad_scheme',
      `Only http and https pages are allowed, not ${u.protocol}`,
      'Use an http:// or https:// address.',
    );
  if (u.username || u.password) throw new CompanionError('bad_url', 'An address with a user name or password in it is refused.');
  return u;
}

/** Whether a tab's address is a web page the extension may touch. @param {string | undefined} url */
export function isWebUrl(url) {
  try {
    webUrl(url);
    return true;
  } catch {
    return false;
  }
}

/** Whether a name (a query parameter's, a field's) names a secret. @param {string} name */
export function isSensitiveName(name) {
  const lower = name.toLowerCase();
  if (SENSITIVE_PARTS.some((p) => lower.includes(p))) return true;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((w) => SENSITIVE_WORDS.includes(w));
}

/**
 * A URL with the values of secret-looking query parameters (and the fragment's, for OAuth's
 * implicit flow) replaced by `[REDACTED]`; anything that is not a URL is returned as it is.
 * @param {string} url
 */
export function redactUrl(url) {
  /** @type {URL} */
  let u;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (u.username || u.password) {
    u.username = '';
    u.password = '';
  }
  let changed = false;
  for (const key of [...u.searchParams.keys()]) {
    if (isSensitiveName(key)) {
      u.searchParams.set(key, '[REDACTED]');
      changed = true;
    }
  }
  if (u.hash.includes('=')) {
    const params = new URLSearchParams(u.hash.slice(1));
    let hashChanged = false;
    for (const key of [...params.keys()]) {
      if (isSensitiveName(key)) {
        params.set(key, '[REDACTED]');
        hashChanged = true;
      }
    }
    if (hashChanged) {
      u.hash = params.toString();
      changed = true;
    }
  }
  return changed || url !== u.href ? u.href : url;
}

/**
 * A command's parameters as the extension logs them: typed text and secret-looking values
 * replaced, URLs redacted. Logs are for debugging the extension; they never hold what the user typed.
 * @param {Record<string, unknown>} params
 */
export function redactParams(params) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [key, value] of Object.entries(params ?? {})) {
    if (key === 'text' || isSensitiveName(key)) out[key] = typeof value === 'string' ? `[REDACTED ${value.length} chars]` : '[REDACTED]';
    else if (typeof value === 'string' && /^[a-z][a-z0-9+.-]*:/i.test(value)) out[key] = redactUrl(value);
    else out[key] = value;
  }
  return out;
}

/**
 * Whether an origin is one of the match patterns of `externally_connectable` (`http://127.0.0.1/*`,
 * `https://*.example.com/*`): the scheme and host must match (a pattern without a port matches
 * every port, as Chrome's do).
 * @param {string} origin @param {readonly string[]} patterns
 */
export function originMatches(origin, patterns) {
  /** @type {URL} */
  let u;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  return patterns.some((pattern) => {
    const m = /^(https?|\*):\/\/([^/]+)\//.exec(pattern);
    if (!m) return false;
    const [, scheme, hostPort] = m;
    if (scheme === '*' ? !['http:', 'https:'].includes(u.protocol) : `${scheme}:` !== u.protocol) return false;
    const [host, port] = hostPort.split(/:(?=[^:\]]*$)/);
    if (port && port !== '*' && port !== (u.port || (u.protocol === 'https:' ? '443' : '80'))) return false;
    if (host === '*') return true;
    if (host.startsWith('*.')) return u.hostname === host.slice(2) || u.hostname.endsWith(host.slice(1));
    return u.hostname === host;
  });
}

/**
 * One holder at a time (the screenshot's: capturing needs the tab in front, so two captures
 * would show each other's tab). A caller that cannot get it within `waitMs` gets `mutex_busy`,
 * saying who holds it and for how long.
 */
export class Mutex {
  /** @type {Promise<void>} */
  #tail = Promise.resolve();
  /** @type {{what: string, since: number} | null} */
  holder = null;
  #now;

  /** @param {() => number} [now] */
  constructor(now = Date.now) {
    this.#now = now;
  }

  /**
   * Runs `fn` once every earlier holder is done; refuses when they are not done within `waitMs`.
   * @template T
   * @param {string} what @param {() => Promise<T>} fn @param {number} [waitMs]
   * @returns {Promise<T>}
   */
  async run(what, fn, waitMs = SCREENSHOT_WAIT_MS) {
    const before = this.#tail;
    /** @type {() => void} */
    let release = () => {};
    const mine = new Promise((resolve) => {
      release = () => resolve(undefined);
    });
    this.#tail = before.then(() => mine);
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const busy = Symbol('busy');
    const waited = await Promise.race([
      before.then(() => null),
      new Promise((resolve) => {
        timer = setTimeout(() => resolve(busy), waitMs);
      }),
    ]);
    clearTimeout(timer);
    if (waited === busy) {
      const holder = this.holder;
      // Give the turn on once the earlier holders are done, so later callers are not stuck behind this one.
      before.then(release);
      const heldFor = holder ? this.#now() - holder.since : 0;
      throw new CompanionError(
        'mutex_busy',
        `Another screenshot (${holder?.what ?? 'unknown'}) has been running for ${heldFor} ms; this one was not taken.`,
        'Retry in a few seconds, or read the page with tab_read, which needs no screenshot.',
      );
    }
    this.holder = { what, since: this.#now() };
    try {
      return await fn();
    } finally {
      this.holder = null;
      release();
    }
  }
}

/**
 * Tabs the agent opened, by session, and when each session was last heard from: tab_close closes
 * only these, and a session silent for ORPHAN_MS has its tabs closed (`orphans`). Plain data, so
 * the service worker keeps it in `chrome.storage.session` across its restarts.
 * @typedef {{tabs: Record<string, {session: string, openedAt: number}>, seen: Record<string, number>}} Ownership
 */

/** @returns {Ownership} */
export const emptyOwnership = () => ({ tabs: {}, seen: {} });

/**
 * The tabs to close because their session went silent, and the ownership without them.
 * @param {Ownership} own @param {number} now @param {number} [orphanMs]
 * @returns {{close: number[], own: Ownership}}
 */
export function orphans(own, now, orphanMs = ORPHAN_MS) {
  const silent = new Set(Object.keys(own.seen).filter((s) => now - own.seen[s] > orphanMs));
  /** @type {number[]} */
  const close = [];
  /** @type {Ownership} */
  const next = { tabs: {}, seen: {} };
  for (const [id, tab] of Object.entries(own.tabs)) {
    if (silent.has(tab.session) || !(tab.session in own.seen)) close.push(Number(id));
    else next.tabs[id] = tab;
  }
  for (const [s, t] of Object.entries(own.seen)) if (!silent.has(s)) next.seen[s] = t;
  return { close, own: next };
}

/**
 * A request as the service worker takes it: `{v, session, command, params}`; a CompanionError otherwise.
 * @param {unknown} message
 * @returns {{command: string, session: string, params: Record<string, unknown>}}
 */
export function parseRequest(message) {
  const m = /** @type {{v?: unknown, session?: unknown, command?: unknown, params?: unknown} | null} */ (
    message && typeof message === 'object' ? message : null
  );
  if (!m) throw new CompanionError('bad_request', 'A request is an object.');
  if (m.v !== PROTOCOL) throw new CompanionError('bad_version', `This extension speaks protocol ${PROTOCOL}, not ${String(m.v)}.`);
  if (typeof m.command !== 'string' || !COMMANDS.includes(m.command))
    throw new CompanionError('unknown_command', `Unknown command ${String(m.command).slice(0, 40)}.`);
  if (typeof m.session !== 'string' || !/^[A-Za-z0-9_-]{8,64}$/.test(m.session))
    throw new CompanionError('bad_request', 'A request names its session (8–64 letters, digits, _ or -).');
  const params = m.params ?? {};
  if (typeof params !== 'object' || Array.isArray(params)) throw new CompanionError('bad_request', 'The parameters are an object.');
  return { command: m.command, session: m.session, params: /** @type {Record<string, unknown>} */ (params) };
}

/** A whole number parameter, or the fallback. @param {unknown} v @param {number} fallback @param {number} min @param {number} max */
export function intParam(v, fallback, min, max) {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw new CompanionError('bad_request', `A number from ${min} to ${max} was expected, not ${String(v).slice(0, 20)}.`);
  return v;
}

/** A tab id parameter. @param {unknown} v */
export function tabIdParam(v) {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw new CompanionError('bad_request', 'tabId is a tab’s number (tabs_list).');
  return v;
}

/**
 * What to act on in a page: a CSS selector or an accessible name (exactly one).
 * @param {Record<string, unknown>} params @returns {{selector?: string, name?: string}}
 */
export function targetParam(params) {
  const selector = typeof params.selector === 'string' && params.selector ? params.selector.slice(0, 1000) : undefined;
  const name = typeof params.name === 'string' && params.name ? params.name.slice(0, 300) : undefined;
  if (!selector === !name) throw new CompanionError('bad_request', 'Give either a CSS selector or an accessible name (one of them).');
  return selector ? { selector } : { name };
}
