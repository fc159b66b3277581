// Runs first on the page (its own module script, ahead of main.js): opened on a workspace's
// chat, it starts that first view at once: asks for its modules, alongside the home screen's that
// the page preloads, looks up the workspace's folder meanwhile, and paints it as soon as they are
// in, without waiting for main.js and its own modules.
/** @import { WorkspaceFirstView } from './workspace-first-view.js' */
/** @import { Route } from './router.js' */
import { parseRoute } from './router.js';

/** How long the app waits for the workspace's first view: storage that does not answer is the app's to report. */
const PAINT_WAIT_MS = 2000;

/**
 * Asks for the modules listed in the page's JSON block `id` (index.html lists them:
 * scripts/index-html.mjs) at once, instead of level by level as their imports are found; `batch`
 * at a time, one task each, when the page is on screen: each link costs the page about a
 * millisecond, and a hundred in one task held up input (and a reload) for ~80 ms.
 * @param {string} id
 * @param {number} [batch]
 */
export async function preload(id, batch = Infinity) {
  /** @type {unknown} */
  let files = [];
  try {
    files = JSON.parse(document.getElementById(id)?.textContent ?? '[]');
  } catch {
    // A damaged list only costs speed: the imports still find every module.
  }
  if (!Array.isArray(files)) return;
  let issued = 0;
  for (const href of files) {
    if (typeof href !== 'string') continue;
    if (issued > 0 && issued % batch === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    const link = document.createElement('link');
    link.rel = 'modulepreload';
    link.href = href;
    document.head.append(link);
    issued++;
  }
}

/**
 * Paints the workspace's chat from its saved conversation list into #app. Null when it cannot,
 * or not within PAINT_WAIT_MS (the app paints then).
 * @param {Extract<Route, {name: 'workspace'}>} route
 * @returns {Promise<WorkspaceFirstView | null>}
 */
async function paintWorkspace(route) {
  const root = document.getElementById('app');
  if (!root || !navigator.storage?.getDirectory) return null;
  // Looked up now: a page's first storage calls take tens of milliseconds, spent while the
  // modules arrive rather than after them.
  const folder = conversationsFolder(navigator.storage.getDirectory(), route.workspaceId);
  folder.catch(() => {}); // nothing to report here: the first view paints nothing, the app reads storage itself
  void preload('workspace-view-modules');
  const late = new AbortController();
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const timeout = new Promise(
    (resolve) =>
      (timer = setTimeout(() => {
        late.abort();
        resolve(null);
      }, PAINT_WAIT_MS)),
  );
  const painting = import('./workspace-first-view.js')
    .then((m) => m.paintWorkspaceFirstView(root, route, folder, late.signal))
    .catch(() => null);
  const painted = /** @type {Awaited<typeof painting>} */ (await Promise.race([painting, timeout]));
  clearTimeout(timer);
  return painted;
}

/**
 * The folder of a workspace's conversations in the browser's storage. Refused while a backup
 * restore's marker is at the root (a restore interrupted by a crash): its files may be half
 * moved, and the app finishes or undoes the restore before it shows anything.
 * @param {Promise<FileSystemDirectoryHandle>} storageRoot @param {string} workspaceId
 */
async function conversationsFolder(storageRoot, workspaceId) {
  const root = await storageRoot;
  const restoring = root.getFileHandle('.restore-state.json').then(
    () => true,
    () => false,
  );
  let dir = root;
  for (const name of ['clawser_workspaces', workspaceId, '.conversations']) dir = await dir.getDirectoryHandle(name);
  if (await restoring) throw new Error('A backup restore was interrupted: the app finishes or undoes it first.');
  return dir;
}

const route = parseRoute(location.hash);
/** On a workspace's chat, its first view being painted; elsewhere null. */
export const workspaceFirstView = route.name === 'workspace' && route.panel === 'chat' ? paintWorkspace(route) : Promise.resolve(null);
