/**
 * The page-wide banners about the page itself rather than a workspace: not a secure context,
 * storage that does not answer, offline, a new version of Clawser (the service worker), and
 * the state Clawser keeps for itself (workspace folders the list does not name, a setting that
 * could not be saved; a damaged settings or list file is in the notice of damaged files).
 */
/** @import { BannerArea } from '../ui/banners.js' */
/** @import { UnlistedWorkspace } from './workspaces.js' */
import { registerServiceWorker } from './sw-client.js';

/** @typedef {ReturnType<typeof BannerArea>} Banners */

/** Says so when the page cannot have offline mode or storage. @param {Banners} banners */
export function noticeInsecureContext(banners) {
  if (!isSecureContext) {
    banners.show(
      'insecure',
      'This page is not a secure context, so offline mode and storage are unavailable. Open ' +
        'Clawser via http://localhost / http://127.0.0.1 or over https.',
      { kind: 'warn', dismissible: false },
    );
  }
}

/**
 * Browser storage that never answers (it happens, e.g. after site data was cleared while a tab
 * was closing) must not look like a blank page: a banner after ten seconds, until the returned
 * function says storage answered.
 * @param {Banners} banners @returns {() => void}
 */
export function noticeStorageStall(banners) {
  const stalled = setTimeout(
    () =>
      banners.show(
        'storage-stalled',
        "The browser's storage is not responding, so Clawser cannot open your workspaces yet. Close every " +
          'Clawser tab and open it again; if that does not help, restart the browser.',
        { kind: 'warn', dismissible: false },
      ),
    10_000,
  );
  return () => {
    clearTimeout(stalled);
    banners.hide('storage-stalled');
  };
}

/** Registers the service worker and offers a reload when a new version is ready. @param {Banners} banners */
export function noticeUpdates(banners) {
  return registerServiceWorker({
    onUpdateReady: (apply) => banners.show('update', 'A new version of Clawser is available.', { action: { label: 'Reload', run: apply } }),
    onUpdatedElsewhere: (reload) =>
      banners.show('update', 'Clawser was updated in another tab. Reload this tab to use the new version (your conversations are saved).', {
        kind: 'warn',
        dismissible: false,
        action: { label: 'Reload', run: reload },
      }),
  });
}

/**
 * Offline is a normal state here (everything is stored in the browser): say so, and what still
 * works, for as long as it lasts. @param {Banners} banners
 */
export function noticeConnectivity(banners) {
  const show = () => {
    if (navigator.onLine) banners.hide('offline');
    else
      banners.show(
        'offline',
        'You are offline. Your workspaces, files, memory and local models keep working; cloud providers answer again once you reconnect.',
        { kind: 'warn', dismissible: false },
      );
  };
  addEventListener('online', show);
  addEventListener('offline', show);
  show();
}

/**
 * Workspace folders in the browser's storage that the list does not name (a list lost or set
 * aside): offered back, under the name each one's record knows.
 * @param {Banners} banners
 * @param {UnlistedWorkspace[]} found
 * @param {() => Promise<void>} addBack
 */
export function noticeUnlistedWorkspaces(banners, found, addBack) {
  if (!found.length) {
    banners.hide('unlisted');
    return;
  }
  const names = found.map((f) => (f.name ? `“${f.name}”` : `an unnamed one (${f.id})`)).join(', ');
  const text =
    found.length === 1
      ? `A workspace was found in the browser's storage that your workspace list does not show: ${names}. Its files and conversations ` +
        `are there.`
      : `${found.length} workspaces were found in the browser's storage that your workspace list does not show: ${names}. Their files ` +
        `and conversations are there.`;
  banners.show('unlisted', text, {
    kind: 'warn',
    action: {
      label: found.length === 1 ? 'Add it back' : 'Add them back',
      run: () => {
        addBack().then(
          () => banners.show('unlisted', `Added back to your workspace list: ${names}.`, { kind: 'info' }),
          (err) => noticeUnsaved(banners, err, { always: true }),
        );
      },
    },
  });
}

/**
 * A change that could not be saved in the background (storage full…). Damage and a restore in
 * another tab have banners of their own, so they are not repeated here unless `always`.
 * @param {Banners} banners @param {unknown} err @param {{always?: boolean}} [options]
 */
export function noticeUnsaved(banners, err, options = {}) {
  const code = /** @type {{code?: string}} */ (err)?.code;
  if (!options.always && (code === 'damaged' || code === 'restore_in_progress')) return;
  banners.show('unsaved', `Not saved: ${/** @type {Error} */ (err)?.message ?? String(err)}`, { kind: 'error' });
}
