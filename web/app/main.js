// Entry point of the page: paint the first view (the home screen, or a workspace's chat, from a
// handful of modules), then start the app in #app; the app adopts the painted view. Only the
// router is imported statically, so this runs as soon as it has arrived and a workspace's modules
// are asked for alongside the home screen's (which the page preloads) rather than after them.
import { parseRoute } from './router.js';

/**
 * Asks for the modules listed in the page's JSON block `id` at once (index.html lists them:
 * scripts/index-html.mjs), instead of level by level as their imports are found.
 * @param {string} id
 */
function preload(id) {
  /** @type {unknown} */
  let files = [];
  try {
    files = JSON.parse(document.getElementById(id)?.textContent ?? '[]');
  } catch {
    // A damaged list only costs speed: the imports still find every module.
  }
  if (!Array.isArray(files)) return;
  for (const href of files) {
    if (typeof href !== 'string') continue;
    const link = document.createElement('link');
    link.rel = 'modulepreload';
    link.href = href;
    document.head.append(link);
  }
}

/**
 * Opened on a workspace's chat: paints it from the saved conversation list (its own modules,
 * asked for at once). Null when it cannot (the app paints).
 * @param {HTMLElement} root
 */
async function paintWorkspace(root) {
  const route = parseRoute(location.hash);
  if (route.name !== 'workspace' || route.panel !== 'chat') return null;
  try {
    return await (await import('./workspace-first-view.js')).paintWorkspaceFirstView(root, route);
  } catch {
    return null;
  }
}

const root = document.getElementById('app');
if (root) {
  const route = parseRoute(location.hash);
  if (route.name === 'workspace' && route.panel === 'chat') preload('workspace-view-modules');
  (async () => {
    const firstView = (await import('./first-view.js')).paintFirstView(root);
    const workspaceView = firstView ? null : await paintWorkspace(root);
    // The app's modules, and on a workspace the storage worker (its view reads conversations
    // first thing), only once the first view is on screen: asked for together with its
    // modules, they made it twice as slow.
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
