// Clawser's companion: the service worker that lets Clawser's page (and no other: manifest.json's
// `externally_connectable`, checked again below) list the browser's tabs, read them, take their
// screenshot, and navigate, click and type in them; open tabs and close the ones it opened. The
// protocol: `chrome.runtime.sendMessage(id, {v, session, command, params})` answers
// `{ok: true, result}` or `{ok: false, error: {code, message, hint?}}` (docs/extension.md).
import {
  COMMANDS,
  CompanionError,
  MAX_PAGE_CHARS,
  Mutex,
  PROTOCOL,
  READY_TIMEOUT_MS,
  emptyOwnership,
  errorReply,
  intParam,
  isWebUrl,
  orphans,
  originMatches,
  parseRequest,
  redactParams,
  redactUrl,
  tabIdParam,
  targetParam,
  webUrl,
} from './lib.js';
import { actOn, readPage, settlePage } from './page.js';

/** Clawser's origins, as the manifest lists them: the only pages that may ask anything. */
const CLAWSER = /** @type {string[]} */ (chrome.runtime.getManifest().externally_connectable?.matches ?? []);
const screenshots = new Mutex();

/** @param {string | undefined} url */
const isClawser = (url) => {
  try {
    return !!url && originMatches(new URL(url).origin, CLAWSER);
  } catch {
    return false;
  }
};

// Who opened which tab, kept in session storage: the worker may stop between two requests.
/** @type {Promise<unknown>} */
let ownershipQueue = Promise.resolve();
/**
 * Reads, changes and stores the ownership record, one change at a time.
 * @template T
 * @param {(own: import('./lib.js').Ownership) => T} change @returns {Promise<T>}
 */
function withOwnership(change) {
  const next = ownershipQueue.then(async () => {
    const stored = (await chrome.storage.session.get('own')).own;
    const own = stored && typeof stored === 'object' ? stored : emptyOwnership();
    const result = change(own);
    await chrome.storage.session.set({ own });
    return result;
  });
  ownershipQueue = next.catch(() => {});
  return next;
}

/** Closes the tabs of sessions that went silent (a Clawser tab closed or crashed). */
async function cleanOrphans() {
  const close = await withOwnership((own) => {
    const r = orphans(own, Date.now());
    own.tabs = r.own.tabs;
    own.seen = r.own.seen;
    return r.close;
  });
  if (close.length) await chrome.tabs.remove(close).catch(() => {});
  return close.length;
}

chrome.alarms.create('orphans', { periodInMinutes: 1 });
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === 'orphans') cleanOrphans();
});
chrome.tabs.onRemoved.addListener((tabId) => {
  withOwnership((own) => {
    delete own.tabs[String(tabId)];
  });
});

/** A tab the agent may act on: it exists, shows an http(s) page, and is not Clawser's own. @param {number} tabId */
async function webTab(tabId) {
  /** @type {chrome.tabs.Tab} */
  let tab;
  try {
    tab = await chrome.tabs.get(tabId);
  } catch {
    throw new CompanionError('no_tab', `There is no tab ${tabId}.`, 'List the tabs with tabs_list.');
  }
  const url = tab.pendingUrl ?? tab.url;
  if (!isWebUrl(url)) throw new CompanionError('bad_scheme', `Tab ${tabId} does not show an http or https page.`);
  if (isClawser(url)) throw new CompanionError('clawser_tab', `Tab ${tabId} is Clawser itself, which the agent does not drive.`);
  return tab;
}

/**
 * Waits until a tab has loaded and settled, at most READY_TIMEOUT_MS (then answers anyway, saying so).
 * @param {number} tabId
 */
async function whenReady(tabId) {
  const start = Date.now();
  const loaded = new Promise((resolve) => {
    /** @param {number} id @param {{status?: string}} info */
    const listener = (id, info) => {
      if (id === tabId && info.status === 'complete')
        chrome.tabs.get(tabId).then(
          (tab) => isWebUrl(tab.url) && done(true),
          () => done(false),
        );
    };
    const timer = setTimeout(() => done(false), READY_TIMEOUT_MS);
    /** @param {boolean} ok */
    const done = (ok) => {
      clearTimeout(timer);
      chrome.tabs.onUpdated.removeListener(listener);
      resolve(ok);
    };
    chrome.tabs.onUpdated.addListener(listener);
    chrome.tabs.get(tabId).then(
      (tab) => {
        if (tab.status === 'complete' && isWebUrl(tab.url)) done(true);
      },
      () => done(false),
    );
  });
  const complete = await loaded;
  const left = Math.max(0, READY_TIMEOUT_MS - (Date.now() - start));
  const settled = complete ? await inTab(tabId, settlePage, [left]).catch(() => ({ timedOut: true })) : { timedOut: true };
  return { waitMs: Date.now() - start, timedOut: !complete || !!settled.timedOut };
}

/**
 * Starts a navigation of a tab and waits until the new page has loaded (a `loading` then a
 * `complete` of that tab: the old page's state is never taken for the new one's), then settled.
 * @param {number} tabId @param {() => Promise<unknown>} start
 */
async function navigation(tabId, start) {
  let loading = false;
  const loaded = new Promise((resolve) => {
    /** @param {number} id @param {{status?: string}} info */
    const listener = (id, info) => {
      if (id !== tabId) return;
      if (info.status === 'loading') loading = true;
      else if (info.status === 'complete' && loading) done();
    };
    const timer = setTimeout(() => done(), READY_TIMEOUT_MS);
    const done = () => {
      clearTimeout(timer);
      chrome.tabs.onUpdated.removeListener(listener);
      resolve(undefined);
    };
    chrome.tabs.onUpdated.addListener(listener);
  });
  await start();
  await loaded;
  return whenReady(tabId);
}

/**
 * Runs one of page.js's functions in a tab's top frame and returns its result.
 * @template {(...args: any[]) => any} F
 * @param {number} tabId @param {F} func @param {Parameters<F>} args @returns {Promise<Awaited<ReturnType<F>>>}
 */
async function inTab(tabId, func, args) {
  try {
    const [first] = await chrome.scripting.executeScript({ target: { tabId }, func, args });
    return first?.result;
  } catch (err) {
    throw new CompanionError('cannot_script', `The page in tab ${tabId} cannot be read or changed: ${String(err?.message ?? err)}`);
  }
}

/** A tab as tabs_list and the actions describe it. @param {chrome.tabs.Tab} tab @param {Set<string>} mine */
const describe = (tab, mine) => ({
  tabId: tab.id,
  windowId: tab.windowId,
  active: tab.active,
  title: tab.title ?? '',
  url: redactUrl(tab.url ?? tab.pendingUrl ?? ''),
  status: tab.status,
  openedByAgent: mine.has(String(tab.id)),
});

/** @param {number} tabId */
async function summary(tabId) {
  const tab = await chrome.tabs.get(tabId);
  return { tabId, title: tab.title ?? '', url: redactUrl(tab.url ?? tab.pendingUrl ?? '') };
}

/** @type {Record<string, (params: Record<string, unknown>, session: string) => Promise<unknown>>} */
const HANDLERS = {
  async hello(_params, session) {
    const mine = await withOwnership((own) => Object.values(own.tabs).filter((t) => t.session === session).length);
    return {
      protocol: PROTOCOL,
      version: chrome.runtime.getManifest().version,
      commands: COMMANDS,
      schemes: ['http', 'https'],
      clawserOrigins: CLAWSER,
      agentTabs: mine,
    };
  },

  async tabs_list() {
    const own = await withOwnership((o) => new Set(Object.keys(o.tabs)));
    const all = await chrome.tabs.query({});
    const web = all.filter((t) => isWebUrl(t.url ?? t.pendingUrl) && !isClawser(t.url ?? t.pendingUrl));
    return { tabs: web.map((t) => describe(t, own)), otherTabs: all.length - web.length };
  },

  async tab_read(params) {
    const tab = await webTab(tabIdParam(params.tabId));
    const tabId = /** @type {number} */ (tab.id);
    const readiness = await whenReady(tabId);
    const offset = intParam(params.offset, 0, 0, 1e9);
    const max = intParam(params.maxChars, 20_000, 100, MAX_PAGE_CHARS);
    const page = await inTab(tabId, readPage, [offset, max]);
    return { tabId, ...page, url: redactUrl(page.url), readiness };
  },

  async tab_screenshot(params) {
    const tab = await webTab(tabIdParam(params.tabId));
    const tabId = /** @type {number} */ (tab.id);
    return screenshots.run(`tab ${tabId}`, async () => {
      const [before] = await chrome.tabs.query({ active: true, windowId: tab.windowId });
      await chrome.tabs.update(tabId, { active: true });
      try {
        const readiness = await whenReady(tabId);
        const dataUrl = await chrome.tabs.captureVisibleTab(tab.windowId, { format: 'jpeg', quality: 60 }).catch((err) => {
          throw new CompanionError('capture_failed', `The browser did not capture tab ${tabId}: ${String(err?.message ?? err)}`);
        });
        return { ...(await summary(tabId)), dataUrl, readiness };
      } finally {
        if (before?.id !== undefined && before.id !== tabId) await chrome.tabs.update(before.id, { active: true }).catch(() => {});
      }
    });
  },

  async tab_navigate(params) {
    const tabId = /** @type {number} */ ((await webTab(tabIdParam(params.tabId))).id);
    const url = webUrl(params.url);
    if (isClawser(url.href)) throw new CompanionError('clawser_tab', 'The agent does not open Clawser itself in a tab.');
    const readiness = await navigation(tabId, () => chrome.tabs.update(tabId, { url: url.href }));
    return { ...(await summary(tabId)), readiness };
  },

  async tab_click(params) {
    return act('click', params);
  },

  async tab_type(params) {
    if (typeof params.text !== 'string') throw new CompanionError('bad_request', 'tab_type needs the text to type.');
    return act('type', params);
  },

  async tab_open(params, session) {
    const url = webUrl(params.url);
    if (isClawser(url.href)) throw new CompanionError('clawser_tab', 'The agent does not open Clawser itself in a tab.');
    const tab = await chrome.tabs.create({ url: url.href, active: params.active === true });
    const tabId = /** @type {number} */ (tab.id);
    await withOwnership((own) => {
      own.tabs[String(tabId)] = { session, openedAt: Date.now() };
    });
    const readiness = await whenReady(tabId);
    return { ...(await summary(tabId)), readiness };
  },

  async tab_close(params) {
    const tabId = tabIdParam(params.tabId);
    const owned = await withOwnership((own) => String(tabId) in own.tabs);
    if (!owned)
      throw new CompanionError(
        'not_owned',
        `Tab ${tabId} was not opened by the agent: it closes only the tabs it opened.`,
        'Ask the user to close it.',
      );
    await chrome.tabs.remove(tabId).catch(() => {});
    await withOwnership((own) => {
      delete own.tabs[String(tabId)];
    });
    return { closed: tabId };
  },
};

/** tab_click and tab_type: the page acts, then the extension waits for whatever the action loaded. @param {'click' | 'type'} kind */
async function act(kind, /** @type {Record<string, unknown>} */ params) {
  const tabId = /** @type {number} */ ((await webTab(tabIdParam(params.tabId))).id);
  await whenReady(tabId);
  const target = targetParam(params);
  // Every argument is sent to the page as JSON: '' for a click (undefined is not sent).
  const text = kind === 'type' ? String(params.text).slice(0, 100_000) : '';
  const done = await inTab(tabId, actOn, [kind, target, text, params.submit === true]);
  if (!done) throw new CompanionError('cannot_script', `The page in tab ${tabId} did not answer.`);
  if ('error' in done && done.error) throw new CompanionError(done.error.code, done.error.message, done.error.hint);
  const readiness = await whenReady(tabId);
  return { done: done.done, ...(await summary(tabId)), readiness };
}

/** @param {unknown} message @param {chrome.runtime.MessageSender} sender */
async function handle(message, sender) {
  if (!sender.origin || !originMatches(sender.origin, CLAWSER))
    throw new CompanionError('forbidden_origin', `${sender.origin ?? 'This page'} is not Clawser: the extension answers only Clawser.`);
  const { command, session, params } = parseRequest(message);
  await withOwnership((own) => {
    own.seen[session] = Date.now();
  });
  console.info('[clawser]', command, redactParams(params));
  return HANDLERS[command](params, session);
}

chrome.runtime.onMessageExternal.addListener((message, sender, sendResponse) => {
  handle(message, sender).then(
    (result) => sendResponse({ ok: true, result }),
    (err) => sendResponse(errorReply(err)),
  );
  return true;
});

cleanOrphans();
