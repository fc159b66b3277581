// Entry point of the page: paint the first view (the home screen, or a workspace's chat, from a
// handful of modules), then start the app in #app; the app adopts the painted view.
import { paintFirstView } from './first-view.js';
import { parseRoute } from './router.js';
import { preload, opensWorkspaceChat } from './route-preload.js';

/** How long the app waits for the workspace's first view: storage that does not answer is the app's to report. */
const PAINT_WAIT_MS = 2000;

/**
 * Opened on a workspace's chat: paints it from the saved conversation list (its modules were
 * asked for by route-preload.js). Null when it cannot, or not in time (the app paints).
 * @param {HTMLElement} root
 */
async function paintWorkspace(root) {
  if (!opensWorkspaceChat()) return null;
  const late = new AbortController();
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const timeout = new Promise((resolve) => (timer = setTimeout(() => { late.abort(); resolve(null); }, PAINT_WAIT_MS)));
  const painting = import('./workspace-first-view.js').then((m) => m.paintWorkspaceFirstView(root, parseRoute(location.hash), late.signal)).catch(() => null);
  const painted = /** @type {Awaited<typeof painting>} */ (await Promise.race([painting, timeout]));
  clearTimeout(timer);
  return painted;
}

/**
 * After the next frame is on screen (or a moment, in a hidden tab, which draws no frames): asking
 * for a hundred modules takes the page a while, and the painted view should not wait for it.
 */
const afterFrame = () => new Promise((resolve) => {
  requestAnimationFrame(() => setTimeout(resolve, 0));
  setTimeout(resolve, 100);
});

const root = document.getElementById('app');
if (root) {
  const firstView = paintFirstView(root);
  (async () => {
    const workspaceView = firstView ? null : await paintWorkspace(root);
    // The app's modules, and on a workspace the storage worker (its view reads conversations
    // first thing), only once the first view is on screen: asked for together with its
    // modules, they made it twice as slow.
    if (firstView || workspaceView) await afterFrame();
    const fs = firstView ? null : import('../storage/opfs-fs.js').then(({ OpfsFileSystem }) => (OpfsFileSystem.isAvailable() ? new OpfsFileSystem() : null)).catch(() => null);
    preload('app-modules');
    const [{ ClawserApp }, started] = await Promise.all([import('./app.js'), fs]);
    await new ClawserApp(root, { firstView, workspaceView, fs: started }).start();
  })().catch((err) => {
    root.replaceChildren();
    const p = document.createElement('p');
    p.setAttribute('role', 'alert');
    p.textContent = `Clawser failed to start: ${err?.message ?? err}`;
    root.append(p);
  });
}
