// Entry point of the page: paint the first view (the home screen, from a handful of modules),
// then start the app in #app; the app adopts the painted view.
import { paintFirstView } from './first-view.js';

/**
 * Asks for all of the app's modules at once (index.html lists them: scripts/index-html.mjs),
 * instead of level by level as app.js's imports are found. Not before the first view is
 * painted: asked for together with its modules, they made it twice as slow.
 */
function preloadApp() {
  /** @type {unknown} */
  let files = [];
  try {
    files = JSON.parse(document.getElementById('app-modules')?.textContent ?? '[]');
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

const root = document.getElementById('app');
if (root) {
  const firstView = paintFirstView(root);
  // Opened on a workspace, its view reads conversations first thing: the storage worker starts
  // now, alongside the app's modules, rather than after them (it takes a few hundred ms).
  const fs = firstView ? null : import('../storage/opfs-fs.js').then(({ OpfsFileSystem }) => (OpfsFileSystem.isAvailable() ? new OpfsFileSystem() : null)).catch(() => null);
  preloadApp();
  Promise.all([import('./app.js'), fs])
    .then(([{ ClawserApp }, started]) => new ClawserApp(root, { firstView, fs: started }).start())
    .catch((err) => {
      root.replaceChildren();
      const p = document.createElement('p');
      p.setAttribute('role', 'alert');
      p.textContent = `Clawser failed to start: ${err?.message ?? err}`;
      root.append(p);
    });
}
