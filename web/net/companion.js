// The page's side of the companion extension (extension/, docs/extension.md): requests go to it
// through `chrome.runtime.sendMessage(id, …)` — which a page has only when an installed extension
// lists the page's origin in its `externally_connectable` — and every answer is checked with zod
// before anything uses it (the extension is outside code too).
import { z } from 'zod';

/**
 * The id of the extension as this repository builds it: Chrome derives it from the public `key` of
 * extension/manifest.json (tests/unit/companion.test.mjs checks they agree). A copy published
 * under another id (the Chrome Web Store's, an organization's own key) is set in the Tools panel.
 */
export const COMPANION_ID = 'jfcmcfpfgdklepdnajdloljiimjdkpkk';
/** The protocol this page speaks (extension/lib.js's PROTOCOL). */
export const COMPANION_PROTOCOL = 1;
/** How long one request may take: a screenshot may wait for another, then for the page to load. */
export const COMPANION_TIMEOUT_MS = 60_000;
/** How often a page that used the extension tells it it is still there (tabs of a silent page are closed after 5 minutes). */
export const HEARTBEAT_MS = 60_000;

/** What the user reads when the extension is not there: what it is, and how to install it. */
export const INSTALL_HELP =
  'The Clawser companion extension is not installed in this browser (or does not list this address as Clawser). It lets the ' +
  'agent see and act in your other tabs. To install it: open chrome://extensions, use the Developer mode switch at the top right, ' +
  'choose “Load unpacked” and pick the extension/ folder of Clawser’s repository (an organization can install it for everyone ' +
  'by policy), then reload Clawser. docs/extension.md says more, and how to add your own address.';

/** A request the extension refused or could not answer, or no extension: a stable `code`, and a hint for the agent. */
export class CompanionError extends Error {
  /** @param {string} code @param {string} message @param {string} [hint] */
  constructor(code, message, hint) {
    super(message);
    this.name = 'CompanionError';
    this.code = code;
    this.hint = hint;
  }
}

const Readiness = z.object({ waitMs: z.number(), timedOut: z.boolean() });
const TabSummary = z.object({ tabId: z.number().int(), title: z.string(), url: z.string() });

/** The result of each command, as the extension must send it. */
export const COMPANION_RESULTS = {
  hello: z.object({
    protocol: z.number().int(),
    version: z.string(),
    commands: z.array(z.string()),
    schemes: z.array(z.string()),
    clawserOrigins: z.array(z.string()),
    agentTabs: z.number().int(),
  }),
  tabs_list: z.object({
    tabs: z.array(
      z.object({
        tabId: z.number().int(),
        windowId: z.number().int(),
        active: z.boolean(),
        title: z.string(),
        url: z.string(),
        status: z.string().optional(),
        openedByAgent: z.boolean(),
      }),
    ),
    otherTabs: z.number().int(),
  }),
  tab_read: z.object({
    tabId: z.number().int(),
    title: z.string(),
    url: z.string(),
    selection: z.string(),
    text: z.string(),
    offset: z.number().int(),
    total: z.number().int(),
    readiness: Readiness,
  }),
  tab_screenshot: TabSummary.extend({ dataUrl: z.string().startsWith('data:image/'), readiness: Readiness }),
  tab_navigate: TabSummary.extend({ readiness: Readiness }),
  tab_click: TabSummary.extend({ done: z.string(), readiness: Readiness }),
  tab_type: TabSummary.extend({ done: z.string(), readiness: Readiness }),
  tab_open: TabSummary.extend({ readiness: Readiness }),
  tab_close: z.object({ closed: z.number().int() }),
};

/** @typedef {keyof typeof COMPANION_RESULTS} CompanionCommand */
/** @template {CompanionCommand} C @typedef {z.infer<(typeof COMPANION_RESULTS)[C]>} CompanionResult */

/** Every answer's envelope. */
export const ReplySchema = z.union([
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({
    ok: z.literal(false),
    error: z.object({ code: z.string().regex(/^[a-z_]{1,40}$/), message: z.string().max(2000), hint: z.string().max(500).optional() }),
  }),
]);

/**
 * What the page needs of `chrome.runtime` (the part a web page has).
 * @typedef {{sendMessage: (id: string, message: unknown, callback: (reply: unknown) => void) => void,
 *   lastError?: {message?: string}}} RuntimeLike
 */

/**
 * Whether the extension is there, in the words and facts the Tools panel shows.
 * @typedef {{state: 'connected', id: string, version: string, commands: string[], clawserOrigins: string[]}
 *   | {state: 'missing' | 'error', id: string, message: string}} CompanionStatus
 */

/** A session id for this page: the extension closes the tabs a session opened once it stops hearing from it. */
function newSession() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Talks to the companion extension: `call(command, params)` answers the command's checked result
 * or throws a CompanionError (`not_installed` when there is no extension to answer).
 */
export class CompanionClient {
  /** @type {ReturnType<typeof setInterval> | undefined} */
  #heartbeat;

  /**
   * @param {{runtime: () => RuntimeLike | undefined, extensionId?: () => string, session?: string, timeoutMs?: number}} options
   *   runtime: the page's `chrome.runtime` (read each time: it appears once an extension is installed and the page reloads);
   *   extensionId: the extension's id (default COMPANION_ID)
   */
  constructor(options) {
    this.options = options;
    this.session = options.session ?? newSession();
  }

  /** The extension's id this client asks. */
  get id() {
    return this.options.extensionId?.() || COMPANION_ID;
  }

  /**
   * Sends one command and returns its checked result.
   * @template {CompanionCommand} C
   * @param {C} command @param {Record<string, unknown>} [params] @param {AbortSignal} [signal]
   * @returns {Promise<CompanionResult<C>>}
   */
  async call(command, params = {}, signal) {
    const runtime = this.options.runtime();
    if (!runtime || typeof runtime.sendMessage !== 'function') throw new CompanionError('not_installed', INSTALL_HELP);
    const id = this.id;
    const message = { v: COMPANION_PROTOCOL, session: this.session, command, params };
    const raw = await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new CompanionError('no_answer', `The companion extension did not answer ${command} within a minute.`)),
        this.options.timeoutMs ?? COMPANION_TIMEOUT_MS,
      );
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason ?? new DOMException('Aborted', 'AbortError'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        runtime.sendMessage(id, message, (reply) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          const lost = runtime.lastError?.message;
          if (lost)
            reject(/receiving end does not exist|invalid extension id/i.test(lost) ? notInstalled() : new CompanionError('lost', lost));
          else resolve(reply);
        });
      } catch (err) {
        clearTimeout(timer);
        // Chrome throws at once for an id no installed extension has, or one that does not list this page.
        reject(/invalid extension id|not allowed|receiving end/i.test(String(err)) ? notInstalled() : err);
      }
    });
    const reply = ReplySchema.safeParse(raw);
    if (!reply.success)
      throw new CompanionError('bad_reply', `The companion extension answered ${command} in a form Clawser does not know.`);
    if (!reply.data.ok) throw new CompanionError(reply.data.error.code, reply.data.error.message, reply.data.error.hint);
    const result = COMPANION_RESULTS[command].safeParse(reply.data.result);
    if (!result.success)
      throw new CompanionError(
        'bad_reply',
        `The companion extension's answer to ${command} is not what Clawser expects (an older version?).`,
      );
    this.#keepAlive();
    return /** @type {CompanionResult<C>} */ (result.data);
  }

  /** Whether the extension is installed and answers, and what it may do. @returns {Promise<CompanionStatus>} */
  async status() {
    try {
      const hello = await this.call('hello');
      if (hello.protocol !== COMPANION_PROTOCOL)
        return {
          state: 'error',
          id: this.id,
          message: `The extension speaks protocol ${hello.protocol}; this Clawser speaks ${COMPANION_PROTOCOL}.`,
        };
      return { state: 'connected', id: this.id, version: hello.version, commands: hello.commands, clawserOrigins: hello.clawserOrigins };
    } catch (err) {
      const e = /** @type {CompanionError} */ (err);
      return { state: e.code === 'not_installed' ? 'missing' : 'error', id: this.id, message: e.message };
    }
  }

  /** After a first answer, tells the extension every minute that this page is still there (its tabs are not orphans). */
  #keepAlive() {
    if (this.#heartbeat) return;
    this.#heartbeat = setInterval(() => {
      this.call('hello').catch(() => {});
    }, HEARTBEAT_MS);
  }

  /** Stops the heartbeat (the page is closing, or a test is done). */
  close() {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }
}

const notInstalled = () => new CompanionError('not_installed', INSTALL_HELP);
