/**
 * How scheduled jobs can run in this browser, said honestly. Jobs run in an open Clawser tab
 * (one tab leads; others stand by). They never run in the background: the agent needs the
 * page (sealed provider keys, the storage worker, the tools), which a service worker cannot
 * host (docs/background.md says exactly what it lacks). Where the browser grants Periodic
 * Background Sync, the service worker (sw.js) checks for due jobs now and then while no tab is
 * open, queues them and notifies; the jobs run when Clawser opens, by each job's catch-up policy.
 */

/** The periodic sync tag sw.js checks for due jobs on. */
export const JOBS_SYNC_TAG = 'clawser-jobs';
/** Where sw.js records its last check (Cache Storage; see checkDueJobs in sw.js). */
const CHECK_CACHE = 'clawser-background';
const CHECK_STATE_FILE = 'clawser-background-check.json';
/** The shortest interval asked for; browsers space checks out further as they see fit. */
const MIN_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The part of the Periodic Background Sync API used here (not in TypeScript's DOM types).
 * @typedef {{register(tag: string, options?: {minInterval?: number}): Promise<void>, unregister(tag: string): Promise<void>,
 *   getTags(): Promise<string[]>}} PeriodicSyncManager
 */
/**
 * unsupported: no Periodic Background Sync in this browser; not-granted: the browser does not
 * allow it for Clawser; not-ready: allowed, but the service worker is not active yet; failed:
 * allowed, but registering was refused; registered: checks are set up.
 * @typedef {'unsupported' | 'not-granted' | 'not-ready' | 'failed' | 'registered'} BackgroundCheck
 */

/**
 * Registers the background check when the browser allows it (idempotent) and removes it when
 * the permission was withdrawn. Never throws.
 * @param {ServiceWorkerRegistration | undefined | null} reg
 * @returns {Promise<BackgroundCheck>}
 */
export async function syncBackgroundCheck(reg) {
  /** @type {PeriodicSyncManager | undefined} */
  const periodicSync = reg && 'periodicSync' in reg ? /** @type {any} */ (reg).periodicSync : undefined; // any: not in the DOM types
  if (!reg || !periodicSync) return 'unsupported';
  let granted;
  try {
    granted = (await navigator.permissions.query({ name: /** @type {PermissionName} */ ('periodic-background-sync') })).state === 'granted';
  } catch {
    return 'unsupported'; // the permission name is unknown to this browser
  }
  if (!granted) {
    try {
      if ((await periodicSync.getTags()).includes(JOBS_SYNC_TAG)) await periodicSync.unregister(JOBS_SYNC_TAG);
    } catch {
      // Nothing registered that could be removed.
    }
    return 'not-granted';
  }
  if (!reg.active) return 'not-ready'; // register() needs an active worker; sw-client.js retries when ready
  try {
    await periodicSync.register(JOBS_SYNC_TAG, { minInterval: MIN_INTERVAL_MS });
    return 'registered';
  } catch {
    return 'failed';
  }
}

/** When sw.js last checked, if it ever did. @param {ServiceWorkerRegistration} reg @returns {Promise<number | null>} */
async function lastCheckAt(reg) {
  try {
    // match() with a cacheName does not create the cache when it is missing.
    const hit = await caches.match(new URL(CHECK_STATE_FILE, reg.scope).href, { cacheName: CHECK_CACHE });
    const state = hit ? await hit.json() : null;
    return typeof state?.at === 'number' ? state.at : null;
  } catch {
    return null;
  }
}

/**
 * The mode and the sentence the Schedule panel (and Settings) shows. Also keeps the background
 * check registered or removed as the permission says.
 * @param {{leader: boolean, tabs: number, where?: 'schedule' | 'settings'}} here whether this tab runs the jobs, and how many Clawser
 *   tabs are open; where: the sentence's place — the choices it refers to are below it in the Schedule panel, elsewhere it names them
 * @returns {Promise<{mode: 'background' | 'foreground', text: string}>}
 */
export async function backgroundMode(here) {
  const inSchedule = (here.where ?? 'schedule') === 'schedule';
  // The choice of what happens to missed jobs, and the button that allows notifications, are in the Schedule panel.
  const asChosen = inSchedule ? 'as chosen below' : 'as chosen in the Schedule panel (“When a job was due while Clawser was closed”)';
  const allowThem = inSchedule ? 'allow them below' : 'allow them in the Schedule panel';
  const reg = await navigator.serviceWorker?.getRegistration?.().catch(() => undefined);
  const check = await syncBackgroundCheck(reg);
  const base = 'Jobs run while Clawser is open in a tab (one tab runs them when several are open).';
  const who = here.tabs > 1 ? ` ${here.tabs} Clawser tabs are open; ${here.leader ? 'this one' : 'another one'} runs the jobs.` : '';
  if (check === 'registered' && reg) {
    const notifications = typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
    const quiet =
      notifications === 'granted'
        ? ''
        : ` Notifications are not allowed for Clawser, so these checks cannot tell you anything until you ${allowThem}.`;
    const at = await lastCheckAt(reg);
    const last =
      at === null ? ' No background check has happened yet.' : ` The last background check was on ${new Date(at).toLocaleString()}.`;
    return {
      mode: 'background',
      text:
        `${base}${who} While no Clawser tab is open, this browser lets Clawser check for due jobs now and then (the browser decides ` +
        `when, typically at most about once an hour) and notify you of them; they run when you open Clawser, ${asChosen}.${quiet}${last}`,
    };
  }
  const closed = ` Jobs that fall due while it is closed are handled when you next open it, ${asChosen}.`;
  const installed = typeof matchMedia === 'function' && matchMedia('(display-mode: standalone)').matches;
  const why = {
    unsupported: ' This browser offers no background checks for web apps, so nothing checks for due jobs while Clawser is closed.',
    'not-granted':
      ` The browser has not allowed Clawser background checks (Periodic Background Sync), so nothing checks for due jobs ` +
      `while Clawser is closed.${installed ? '' : ' Installing Clawser as an app may let the browser allow them.'}`,
    'not-ready': ' The browser allows background checks; they start once Clawser has finished installing its offline copy.',
    failed: ' The browser allows background checks but refused to set them up, so nothing checks for due jobs while Clawser is closed.',
    registered: '',
  }[check];
  return { mode: 'foreground', text: `${base}${who}${closed}${why}` };
}
