// Clawser service worker: precaches the whole app (shell, every module, vendor files)
// under a versioned cache so the app loads with the network off after the first visit, and,
// where the browser grants Periodic Background Sync, checks for due jobs and notifies.
/// <reference lib="webworker" />
// @ts-check
/** @type {ServiceWorkerGlobalScope} */
const sw = /** @type {any} */ (self); // `self` is typed as Window in the shared lib set; this file runs in a ServiceWorker.

importScripts('./precache-manifest.js');

/** @type {{version: string, files: string[]}} */
const manifest = /** @type {any} */ (self).CLAWSER_PRECACHE; // set by precache-manifest.js
const CACHE_PREFIX = 'clawser-app-';
const CACHE_NAME = CACHE_PREFIX + manifest.version;
const SHELL_URL = new URL('./index.html', sw.registration.scope).href;
const PRECACHED = new Set(manifest.files.map((f) => new URL(f, sw.registration.scope).href));

sw.addEventListener('install', (event) => {
  // Chromium's static routing: the app's modules come straight from this version's cache,
  // without waking this worker's fetch handler for each of the ~100 requests of a start (the
  // handler served them one after another). A file not in the cache falls back to the network.
  const routes = /** @type {{addRoutes?: (rules: unknown) => Promise<void>}} */ (/** @type {unknown} */ (event));
  const scopePath = new URL(sw.registration.scope).pathname;
  if (typeof routes.addRoutes === 'function' && typeof URLPattern === 'function') {
    event.waitUntil(
      routes
        .addRoutes([
          // Python's runtime is not precached: the fetch handler keeps it on first use (see RUNTIME_ON_USE).
          { condition: { urlPattern: new URLPattern({ pathname: `${scopePath}web/vendor/pyodide/*` }) }, source: 'fetch-event' },
          {
            // Module scripts and fetches (mode cors); navigations (the sandbox frame) keep the handler.
            condition: { urlPattern: new URLPattern({ pathname: `${scopePath}web/*` }), requestMethod: 'GET', requestMode: 'cors' },
            source: { cacheName: CACHE_NAME },
          },
        ])
        .catch((err) => console.warn('Clawser: static routes not set', err)),
    );
  }
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE_NAME);
      // cache: 'reload' so the precache never takes a stale copy from the HTTP cache.
      await cache.addAll(manifest.files.map((f) => new Request(f, { cache: 'reload' })));
    })(),
  );
});

sw.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key.startsWith(CACHE_PREFIX) && key !== CACHE_NAME) await caches.delete(key);
      }
      await sw.clients.claim();
    })(),
  );
});

sw.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'SKIP_WAITING') sw.skipWaiting();
  if (event.data && event.data.type === 'GET_VERSION') event.ports[0]?.postMessage({ version: manifest.version });
  // A tab kept the time of a snooze (this worker cannot wake itself): show what is due again.
  if (event.data && event.data.type === 'clawser-snooze-check') event.waitUntil(resurfaceSnoozed(Date.now()).catch(() => 0));
  if (event.data && event.data.type === 'SET_ISOLATION' && typeof event.data.on === 'boolean') {
    const on = event.data.on;
    event.waitUntil(saveIsolation(on).then(() => event.ports[0]?.postMessage({ on })));
  }
});

// ── Cross-origin isolation (web/net/isolation.js) ──
// Every document this worker serves gets Document-Isolation-Policy (as `npm start` sends it), so
// Clawser is isolated on a static host that sends no headers too, from the first load this worker
// serves; with the setting off it is taken out, whoever sent it. The sandbox frame never has it
// (its navigation does not come here anyway). The page tells this worker the setting (Settings →
// This browser) at every start and at each change; it is kept in a cache of its own.
const ISOLATION_HEADER = 'document-isolation-policy'; // the same as ISOLATION_HEADER/VALUE of web/net/isolation.js
const ISOLATION_VALUE = 'isolate-and-credentialless';
const SETTINGS_CACHE = 'clawser-settings'; // outside the clawser-app- prefix: a new version keeps it
const ISOLATION_URL = new URL('./clawser-isolation.json', sw.registration.scope).href;
const SANDBOX_FRAME = new URL('./web/packages/andbox/frame.html', sw.registration.scope).href;

/** @type {Promise<boolean> | null} the setting, read once per life of this worker */
let isolationOn = null;
const readIsolation = () =>
  (isolationOn ??= (async () => {
    try {
      const saved = await (await caches.open(SETTINGS_CACHE)).match(ISOLATION_URL);
      return saved ? (await saved.json())?.on !== false : true;
    } catch {
      return true; // on unless turned off
    }
  })());

/** @param {boolean} on */
async function saveIsolation(on) {
  isolationOn = Promise.resolve(on);
  const cache = await caches.open(SETTINGS_CACHE);
  await cache.put(ISOLATION_URL, new Response(JSON.stringify({ on }), { headers: { 'content-type': 'application/json' } }));
}

/**
 * A document's response with the isolation header as the setting wants it.
 * @param {Response} response @param {string} path the document's URL without query or fragment
 */
async function withIsolation(response, path) {
  if (response.type !== 'basic' && response.type !== 'default') return response; // nothing of another origin is rewritten
  const wanted = (await readIsolation()) && path !== SANDBOX_FRAME;
  const has = response.headers.get(ISOLATION_HEADER);
  if (wanted ? has === ISOLATION_VALUE : has === null) return response;
  const headers = new Headers(response.headers);
  if (wanted) headers.set(ISOLATION_HEADER, ISOLATION_VALUE);
  else headers.delete(ISOLATION_HEADER);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

sw.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== sw.location.origin) return; // provider APIs etc. go straight to the network
  url.hash = '';
  const path = url.origin + url.pathname;
  if (path.startsWith(RUNTIME_ON_USE)) {
    event.respondWith(onUse(request));
    return;
  }
  // Navigations get their own precached document (e.g. the sandbox frame), else the app shell.
  const key = request.mode === 'navigate' ? (PRECACHED.has(path) && path.endsWith('.html') ? path : SHELL_URL) : path;
  if (!PRECACHED.has(key) && request.mode !== 'navigate') return;
  event.respondWith(
    (async () => {
      // Keys are stored without a query string, so an exact match finds them (ignoreSearch
      // makes Chromium scan the whole cache on each of the ~70 module requests of a start).
      const response = (await (await appCache()).match(key)) ?? (await fetch(request));
      return request.mode === 'navigate' ? withIsolation(response, path) : response;
    })(),
  );
});

// ── Python's runtime, kept on first use ──
// web/vendor/pyodide/ (~13.5 MB) is left out of the precache (scripts/build-manifest.mjs): the first
// Python run fetches it and this worker keeps each file, so Python works offline once it has run.
// Its URLs carry the Pyodide version (?v=), so a new version is fetched anew; older copies are
// removed when a new copy is stored.
const RUNTIME_ON_USE = new URL('./web/vendor/pyodide/', sw.registration.scope).href;
const RUNTIME_CACHE = 'clawser-runtime-pyodide'; // outside the clawser-app- prefix: an app update keeps it

/** @param {Request} request */
async function onUse(request) {
  const cache = await caches.open(RUNTIME_CACHE);
  const hit = await cache.match(request.url);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok && response.type === 'basic') {
    const path = request.url.split('?')[0];
    for (const old of await cache.keys()) if (old.url.split('?')[0] === path && old.url !== request.url) await cache.delete(old);
    await cache.put(request.url, response.clone());
  }
  return response;
}

/** @type {Promise<Cache> | null} the opened cache, kept for the worker's life */
let openedCache = null;
const appCache = () => (openedCache ??= caches.open(CACHE_NAME));

// ── Background check for due scheduled jobs ──
// The agent cannot run here: its loop, providers and tools are ES modules loaded through the
// page's import map (this is a classic worker script), conversations are written through the
// storage worker (OPFS sync access handles; a service worker cannot start one) and the tools
// need the page. So when the browser grants Periodic Background Sync this worker finds the due
// jobs, queues them (the check state's `queued`: the Schedule panel's tab runs them when
// Clawser opens, by each job's catch-up policy) and asks the user, in a notification with
// "Open Clawser" and "Snooze", to open it; with a Clawser window open it asks that tab to look
// for missed jobs now.
const JOBS_SYNC_TAG = 'clawser-jobs'; // registered by web/app/background.js
const DUE_NOTIFICATION_TAG = 'clawser-due';
// Outside the clawser-app- prefix so a new version's activate keeps it.
const CHECK_CACHE = 'clawser-background';
const CHECK_STATE_URL = new URL('./clawser-background-check.json', sw.registration.scope).href; // also read by background.js
const MAX_JOBS_FILE = 4 * 1024 * 1024;
const MAX_NAMES = 5;

/** @typedef {{wsId: string, id: string, name: string, dueAt: number}} DueJob */
/**
 * What the last check found; `notified` holds the occurrences already announced, so a job that
 * stays due is not announced again on every check.
 * `queued`: the jobs waiting for a Clawser tab to run them, and why they could not run here.
 * @typedef {{version: 1, at: number, outcome: 'app-open' | 'nothing-due' | 'notified' | 'already-notified' | 'cannot-notify', due: number,
 *   notified: string[], queued?: (DueJob & {why: string})[]}} CheckState
 */
/** Why a due job waits for a tab (the queue's `why`). */
const NEEDS_TAB = 'Jobs run in a Clawser tab: the agent, its providers and tools cannot run in the background.';

/** @param {DueJob} j an occurrence: a job and the time it fell due */
const occurrence = (j) => `${j.wsId}/${j.id}@${j.dueAt}`;

/**
 * Due jobs of every workspace, from each `clawser_workspaces/{wsId}/.scheduler/jobs.json`
 * (the workspace list is in localStorage, which a service worker cannot read). Read only; a
 * missing, huge or damaged file is skipped.
 * @param {number} now
 * @returns {Promise<DueJob[]>}
 */
async function findDueJobs(now) {
  /** @type {DueJob[]} */
  const due = [];
  /** @type {FileSystemDirectoryHandle} */
  let root;
  try {
    root = await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces');
  } catch {
    return due; // no workspaces yet
  }
  /** @type {[string, FileSystemDirectoryHandle][]} */
  const workspaces = [];
  try {
    for await (const [wsId, handle] of root.entries())
      if (handle.kind === 'directory') workspaces.push([wsId, /** @type {FileSystemDirectoryHandle} */ (handle)]);
  } catch {
    // A workspace deleted while listing: check the ones listed so far.
  }
  for (const [wsId, handle] of workspaces) {
    try {
      const dir = await handle.getDirectoryHandle('.scheduler');
      const file = await (await dir.getFileHandle('jobs.json')).getFile();
      if (file.size > MAX_JOBS_FILE) continue;
      const data = JSON.parse(await file.text());
      if (data?.version !== 1 || !Array.isArray(data.jobs)) continue;
      for (const j of data.jobs) {
        // nextDueAt is written by the scheduler for this reader (it cannot evaluate cron here).
        if (!j || typeof j.id !== 'string' || j.paused || j.done || typeof j.nextDueAt !== 'number' || j.nextDueAt > now) continue;
        due.push({ wsId, id: j.id, name: typeof j.name === 'string' && j.name ? j.name.slice(0, 200) : j.id, dueAt: j.nextDueAt });
      }
    } catch {
      // No jobs in this workspace, or a damaged file: the app reports that when opened.
    }
  }
  return due.sort((a, b) => a.dueAt - b.dueAt);
}

/** @returns {Promise<CheckState | null>} */
async function readCheckState() {
  try {
    const hit = await (await caches.open(CHECK_CACHE)).match(CHECK_STATE_URL);
    return hit ? await hit.json() : null;
  } catch {
    return null;
  }
}

/** @param {CheckState} state */
async function writeCheckState(state) {
  const cache = await caches.open(CHECK_CACHE);
  await cache.put(CHECK_STATE_URL, new Response(JSON.stringify(state), { headers: { 'content-type': 'application/json' } }));
}

async function closeDueNotifications() {
  for (const n of await sw.registration.getNotifications({ tag: DUE_NOTIFICATION_TAG })) n.close();
}

/**
 * One background check: with a Clawser window open nothing is done (that tab runs the jobs);
 * otherwise due jobs not announced before are announced in one notification.
 * @param {number} now
 */
async function checkDueJobs(now) {
  /** @param {Omit<CheckState, 'version' | 'at'>} s */
  const save = (s) => writeCheckState({ version: 1, at: now, ...s });
  await resurfaceSnoozed(now).catch(() => {});
  const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  if (windows.length) {
    // The open tab handles due jobs, so an earlier reminder is stale; a job still due once
    // that tab has closed (it closed too soon to run it) is announced again.
    await closeDueNotifications().catch(() => {});
    // Woken: the tab that runs the jobs looks for missed ones now (its timers may have been held
    // back while it was in the background).
    for (const w of windows) w.postMessage({ type: 'clawser-jobs-check' });
    return save({ outcome: 'app-open', due: 0, notified: [] });
  }
  const due = await findDueJobs(now);
  if (!due.length) {
    await closeDueNotifications().catch(() => {});
    return save({ outcome: 'nothing-due', due: 0, notified: [] });
  }
  const queued = due.map((j) => ({ ...j, why: NEEDS_TAB }));
  const keys = due.map(occurrence);
  const known = new Set((await readCheckState())?.notified ?? []);
  if (keys.every((k) => known.has(k))) return save({ outcome: 'already-notified', due: due.length, notified: keys, queued });
  const names = due.slice(0, MAX_NAMES).map((j) => `• ${j.name}`);
  if (due.length > MAX_NAMES) names.push(`…and ${due.length - MAX_NAMES} more`);
  const workspaces = [...new Set(due.map((j) => j.wsId))];
  try {
    await sw.registration.showNotification(`Clawser: ${due.length} scheduled job${due.length === 1 ? '' : 's'} due`, {
      body: `${names.join('\n')}\nThey run when you open Clawser (unless you chose to skip missed jobs).`,
      tag: DUE_NOTIFICATION_TAG,
      icon: new URL('./icons/icon-192.png', sw.registration.scope).href,
      data: { kind: DUE_KIND, checkedAt: now, occurrences: keys, workspaces },
      // any: `actions` is not in TypeScript's NotificationOptions
      .../** @type {any} */ ({
        actions: [
          { action: 'open', title: 'Open Clawser' },
          { action: 'snooze', title: 'Remind me in an hour' },
        ],
      }),
    });
  } catch {
    // Notifications not allowed: nothing was announced, so a later check tries again.
    return save({ outcome: 'cannot-notify', due: due.length, notified: [], queued });
  }
  return save({ outcome: 'notified', due: due.length, notified: keys, queued });
}

// ── Notifications with actions ──
// The due-jobs notification above, and the ones a Clawser tab shows while it is not visible
// (web/app/job-notifications.js): a job's result (open its conversation, snooze) and an approval
// a job waits for (Allow once, Deny). An approval's answer goes to the tab as a message, where it
// answers the same request as the approval dialog (the ToolRunner's gate): nothing runs here.
const DUE_KIND = 'clawser-jobs-due';
const RESULT_KIND = 'clawser-job-result'; // JOB_NOTIFICATION of web/app/job-notifications.js
const APPROVAL_KIND = 'clawser-job-approval';
const SNOOZE_MS = 60 * 60 * 1000;
const SNOOZED_URL = new URL('./clawser-snoozed.json', sw.registration.scope).href;

/** @typedef {{until: number, title: string, options: NotificationOptions}} Snoozed */

/** @returns {Promise<Snoozed[]>} */
async function readSnoozed() {
  try {
    const hit = await (await caches.open(CHECK_CACHE)).match(SNOOZED_URL);
    const list = hit ? await hit.json() : [];
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** @param {Snoozed[]} list */
async function writeSnoozed(list) {
  const cache = await caches.open(CHECK_CACHE);
  await cache.put(SNOOZED_URL, new Response(JSON.stringify(list), { headers: { 'content-type': 'application/json' } }));
}

/**
 * Shows again the snoozed notifications whose hour has passed (at each wake: a periodic sync, or
 * a tab that kept the time). A due-jobs reminder is dropped when a Clawser window is open (that
 * tab runs the jobs).
 * @param {number} now
 */
async function resurfaceSnoozed(now) {
  const list = await readSnoozed();
  const ready = list.filter((s) => s.until <= now);
  if (!ready.length) return 0;
  await writeSnoozed(list.filter((s) => s.until > now));
  const open = (await sw.clients.matchAll({ type: 'window', includeUncontrolled: true })).length > 0;
  let shown = 0;
  for (const s of ready) {
    if (open && s.options.data?.kind === DUE_KIND) continue;
    await sw.registration.showNotification(s.title, s.options).catch(() => {});
    shown++;
  }
  return shown;
}

/** A window of the app: focused, told the route to show; or opened on it. @param {string} hash */
async function openApp(hash) {
  const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  // Focusing or opening needs the click's permission: a call without it is refused (and ignored).
  if (windows.length) {
    if (hash) windows[0].postMessage({ type: 'clawser-open', hash });
    await windows[0].focus().catch(() => {});
  } else await sw.clients.openWindow(new URL(`./${hash}`, sw.registration.scope).href).catch(() => {});
}

/**
 * What a click on a job notification (or one of its actions) does. A function of its own so a
 * test can call it with no page open (a notification click cannot be made through the DevTools
 * protocol, and a script's NotificationEvent cannot be waited on).
 * @param {Notification} notification @param {string} action '' for the notification itself
 */
async function jobNotificationClick(notification, action) {
  const data = notification.data ?? {};
  const kind = notification.tag === DUE_NOTIFICATION_TAG ? DUE_KIND : data.kind;
  if (kind !== DUE_KIND && kind !== RESULT_KIND && kind !== APPROVAL_KIND) return 'not-ours';
  notification.close();
  if (action === 'snooze' && kind !== APPROVAL_KIND) {
    const list = await readSnoozed();
    // any: `actions` is not in TypeScript's Notification type
    const actions = /** @type {any} */ (notification).actions;
    list.push({
      until: Date.now() + SNOOZE_MS,
      title: notification.title,
      options: /** @type {NotificationOptions} */ ({
        body: notification.body,
        tag: notification.tag,
        icon: notification.icon,
        data,
        actions,
      }),
    });
    await writeSnoozed(list.slice(-50));
    // An open tab keeps the time (a timer here would not outlive this worker); else the next periodic sync shows it.
    for (const w of await sw.clients.matchAll({ type: 'window' }))
      w.postMessage({ type: 'clawser-snoozed', until: Date.now() + SNOOZE_MS });
    return 'snoozed';
  }
  if (kind === APPROVAL_KIND) {
    if (action === 'approve' || action === 'deny') {
      // To the tab whose job asked; it answers only the request with this id, if it still waits.
      const answer = { type: 'clawser-approval-answer', id: String(data.id ?? ''), answer: action === 'approve' ? 'once' : 'deny' };
      for (const w of await sw.clients.matchAll({ type: 'window' })) w.postMessage(answer);
      return action;
    }
    await openApp('');
    return 'opened';
  }
  if (kind === DUE_KIND) {
    /** @type {string[]} */
    const workspaces = Array.isArray(data.workspaces) ? data.workspaces : [];
    // One workspace: straight to its Schedule panel; several: the workspace list.
    await openApp(workspaces.length === 1 ? `#workspace/${encodeURIComponent(workspaces[0])}/schedule` : '');
    return 'opened';
  }
  await openApp(typeof data.hash === 'string' && data.hash.startsWith('#workspace/') ? data.hash : '');
  return 'opened';
}

sw.addEventListener('periodicsync', (event) => {
  // The DOM lib has no PeriodicSyncEvent type: it is an ExtendableEvent with a tag.
  const e = /** @type {ExtendableEvent & {tag?: string}} */ (event);
  if (e.tag !== JOBS_SYNC_TAG) return;
  e.waitUntil(checkDueJobs(Date.now()).catch(() => {}));
});

sw.addEventListener('notificationclick', (event) => {
  event.waitUntil(jobNotificationClick(event.notification, event.action ?? '').catch(() => {}));
});

// ── Models downloaded by the browser in the background (Background Fetch) ──
// The page hands a model's download to the browser (web/app/model-library.js). When all of it
// has come, its parts are written where a download in the page writes them,
// clawser_models/.downloads/<id>/ (the files named in that folder's download.json, by address),
// and the pages are told; the page checks the model and takes it in (LocalModelStore.adopt).
const MODEL_FETCH_PREFIX = 'clawser-model-'; // web/app/model-library.js BACKGROUND_PREFIX
const MODEL_FETCHED = 'clawser-model-fetched'; // its FETCHED_MESSAGE

/**
 * The parts of Background Fetch used here (not in TypeScript's library yet).
 * @typedef {{id: string, matchAll(): Promise<{request: Request, responseReady: Promise<Response>}[]>}} ModelFetch
 * @typedef {ExtendableEvent & {registration: ModelFetch, updateUI?: (o: {title: string}) => Promise<void>}} ModelFetchEvent
 */

/** Writes each part that came into the download's folder; true when every part came whole. @param {ModelFetch} fetched */
async function saveModelParts(fetched) {
  const id = fetched.id.slice(MODEL_FETCH_PREFIX.length);
  if (!/^dl-[a-z0-9]{1,32}$/.test(id)) return false;
  const root = await navigator.storage.getDirectory();
  const models = await root.getDirectoryHandle('clawser_models');
  const dir = await (await models.getDirectoryHandle('.downloads')).getDirectoryHandle(id);
  const note = JSON.parse(await (await (await dir.getFileHandle('download.json')).getFile()).text());
  /** @type {{url: string, file: string}[]} */
  const parts = Array.isArray(note?.parts) ? note.parts : [];
  let whole = true;
  for (const record of await fetched.matchAll()) {
    const part = parts.find((p) => p.url === record.request.url);
    const response = await record.responseReady;
    if (!part || !/^part-\d{5}\.gguf$/.test(part.file) || !response.ok || !response.body) {
      whole = false;
      continue;
    }
    const writable = await (await dir.getFileHandle(part.file, { create: true })).createWritable();
    await response.body.pipeTo(writable);
  }
  return whole;
}

sw.addEventListener(/** @type {any} */ ('backgroundfetchsuccess'), (/** @type {ModelFetchEvent} */ event) => {
  if (!event.registration.id.startsWith(MODEL_FETCH_PREFIX)) return;
  event.waitUntil(
    (async () => {
      const whole = await saveModelParts(event.registration).catch(() => false);
      await event.updateUI?.({ title: whole ? 'Model downloaded: open Clawser to use it' : 'Model download incomplete' }).catch(() => {});
      for (const client of await sw.clients.matchAll({ type: 'window', includeUncontrolled: true }))
        client.postMessage({ type: MODEL_FETCHED, id: event.registration.id });
    })(),
  );
});

sw.addEventListener(/** @type {any} */ ('backgroundfetchclick'), (/** @type {ModelFetchEvent} */ event) => {
  if (!event.registration.id.startsWith(MODEL_FETCH_PREFIX)) return;
  event.waitUntil(
    (async () => {
      const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
      if (windows.length) await windows[0].focus();
      else await sw.clients.openWindow(new URL('./', sw.registration.scope).href);
    })().catch(() => {}),
  );
});
