/**
 * How scheduled jobs can run in this browser, said honestly. Clawser runs jobs in an open tab
 * (one tab leads; others stand by). Jobs due while no tab is open run when Clawser is opened
 * next (or are skipped, as the user chose). Running jobs from the service worker with
 * Periodic Background Sync is not done: the agent needs the storage worker and the page's
 * tools, which a service worker cannot host — so it is never claimed, whatever the browser grants.
 * @returns {Promise<{mode: 'background' | 'foreground', text: string}>}
 */
export async function backgroundMode() {
  const reg = await navigator.serviceWorker?.getRegistration?.().catch(() => undefined);
  const hasPeriodicSync = !!reg && 'periodicSync' in reg;
  const installed = typeof matchMedia === 'function' && matchMedia('(display-mode: standalone)').matches;
  const base = 'Jobs run while Clawser is open in a tab (one tab runs them when several are open). Jobs that fall due while it is closed are handled when you next open it, as chosen below.';
  const note = hasPeriodicSync
    ? ` This browser offers Periodic Background Sync${installed ? '' : ' to installed apps'}, but Clawser does not run jobs from the background: the browser decides when such syncs happen, and the agent needs an open tab.`
    : ' This browser does not offer background runs for web apps.';
  return { mode: 'foreground', text: `${base}${note}` };
}
