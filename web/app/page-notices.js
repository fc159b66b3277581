/**
 * The page-wide banners about the page itself rather than a workspace: not a secure context,
 * storage that does not answer, offline, and a new version of Clawser (the service worker).
 */
/** @import { BannerArea } from '../ui/banners.js' */
import { registerServiceWorker } from './sw-client.js';

/** @typedef {ReturnType<typeof BannerArea>} Banners */

/** Says so when the page cannot have offline mode or storage. @param {Banners} banners */
export function noticeInsecureContext(banners) {
  if (!isSecureContext) {
    banners.show('insecure', 'This page is not a secure context, so offline mode and storage are unavailable. Open Clawser via http://localhost / http://127.0.0.1 or over https.', { kind: 'warn', dismissible: false });
  }
}

/**
 * Browser storage that never answers (it happens, e.g. after site data was cleared while a tab
 * was closing) must not look like a blank page: a banner after ten seconds, until the returned
 * function says storage answered.
 * @param {Banners} banners @returns {() => void}
 */
export function noticeStorageStall(banners) {
  const stalled = setTimeout(() => banners.show('storage-stalled', 'The browser\'s storage is not responding, so Clawser cannot open your workspaces yet. Close every Clawser tab and open it again; if that does not help, restart the browser.', { kind: 'warn', dismissible: false }), 10_000);
  return () => {
    clearTimeout(stalled);
    banners.hide('storage-stalled');
  };
}

/** Registers the service worker and offers a reload when a new version is ready. @param {Banners} banners */
export function noticeUpdates(banners) {
  return registerServiceWorker({
    onUpdateReady: (apply) => banners.show('update', 'A new version of Clawser is available.', { action: { label: 'Reload', run: apply } }),
    onUpdatedElsewhere: (reload) => banners.show('update', 'Clawser was updated in another tab. Reload this tab to use the new version (your conversations are saved).', { kind: 'warn', dismissible: false, action: { label: 'Reload', run: reload } }),
  });
}

/**
 * Offline is a normal state here (everything is stored in the browser): say so, and what still
 * works, for as long as it lasts. @param {Banners} banners
 */
export function noticeConnectivity(banners) {
  const show = () => {
    if (navigator.onLine) banners.hide('offline');
    else banners.show('offline', 'You are offline. Your workspaces, files, memory and local models keep working; cloud providers answer again once you reconnect.', { kind: 'warn', dismissible: false });
  };
  addEventListener('online', show);
  addEventListener('offline', show);
  show();
}
