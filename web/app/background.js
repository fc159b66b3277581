/**
 * How scheduled jobs can run in this browser, said honestly. Clawser runs jobs in an open tab
 * (one tab leads; others stand by). Jobs due while no tab is open run when Clawser is opened
 * next (or are skipped, as the user chose). Running jobs from the service worker with
 * Periodic Background Sync is not done: the agent needs the storage worker and the page's
 * tools, which a service worker cannot host — so it is never claimed, whatever the browser grants.
 * @param {{leader: boolean, tabs: number}} here whether this tab runs the jobs, and how many Clawser tabs are open
 * @returns {Promise<{mode: 'background' | 'foreground', text: string}>}
 */
export async function backgroundMode(here) {
  const reg = await navigator.serviceWorker?.getRegistration?.().catch(() => undefined);
  const hasPeriodicSync = !!reg && 'periodicSync' in reg;
  const installed = typeof matchMedia === 'function' && matchMedia('(display-mode: standalone)').matches;
  const base = 'Jobs run while Clawser is open in a tab (one tab runs them when several are open). Jobs that fall due while it is closed are handled when you next open it, as chosen below.';
  const note = hasPeriodicSync
    ? ` This browser offers Periodic Background Sync${installed ? '' : ' to installed apps'}, but Clawser does not run jobs from the background: the browser decides when such syncs happen, and the agent needs an open tab.`
    : ' This browser does not offer background runs for web apps.';
  const who = here.tabs > 1 ? ` ${here.tabs} Clawser tabs are open; ${here.leader ? 'this one' : 'another one'} runs the jobs.` : '';
  return { mode: 'foreground', text: `${base}${who}${note}` };
}
