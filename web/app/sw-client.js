/**
 * Registers the service worker (offline support) and reports when a new version is
 * waiting; the page reloads into it only when the user agrees.
 * @param {{onUpdateReady: (apply: () => void) => void, onUpdatedElsewhere?: (reload: () => void) => void}} handlers
 *   onUpdatedElsewhere: another tab switched to a new version; this page's modules still loading
 *   later (panels, the first turn) would be the new ones, so it should reload
 */
export async function registerServiceWorker({ onUpdateReady, onUpdatedElsewhere }) {
  if (!('serviceWorker' in navigator)) return null;
  const reg = await navigator.serviceWorker.register('./sw.js', { scope: './', updateViaCache: 'none' });
  let accepted = false;
  /** @param {ServiceWorker} worker */
  const offer = (worker) =>
    onUpdateReady(() => {
      accepted = true;
      worker.postMessage({ type: 'SKIP_WAITING' });
    });
  if (reg.waiting && navigator.serviceWorker.controller) offer(reg.waiting);
  reg.addEventListener('updatefound', () => {
    const worker = reg.installing;
    worker?.addEventListener('statechange', () => {
      // With no controller this is the first install, not an update.
      if (worker.state === 'installed' && navigator.serviceWorker.controller) offer(worker);
    });
  });
  const hadController = !!navigator.serviceWorker.controller;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (accepted) location.reload();
    else if (hadController) onUpdatedElsewhere?.(() => location.reload());
  });
  // Keep the background check for due jobs registered, or removed, as the browser allows it.
  navigator.serviceWorker.ready.then(async (ready) => (await import('./background.js')).syncBackgroundCheck(ready)).catch(() => {});
  // Look for a new version when the user comes back to the tab.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') reg.update().catch(() => {});
  });
  return reg;
}
