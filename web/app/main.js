// Entry point of the page: paint the first view (the home screen, or a workspace's chat, from a
// handful of modules), then start the app in #app; the app adopts the painted view.
import { paintFirstView } from './first-view.js';
import { preload, workspaceFirstView } from './route-preload.js';
import { parseRoute } from './router.js';

/**
 * After the next frame is on screen (or a moment, in a hidden tab, which draws no frames): asking
 * for a hundred modules takes the page a while, and the painted view should not wait for it.
 */
const afterFrame = () =>
  new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100);
  });

const root = document.getElementById('app');
if (root) {
  const firstView = paintFirstView(root);
  (async () => {
    // A workspace's chat: route-preload.js started painting it before this module ran.
    const workspaceView = firstView ? null : await workspaceFirstView;
    // The app's modules, and on a workspace the storage worker (its view reads conversations
    // first thing), only once the first view is on screen: asked for together with its
    // modules, they made it twice as slow.
    if (firstView || workspaceView) await afterFrame();
    const fs = firstView
      ? null
      : import('../storage/opfs-fs.js')
          .then(({ OpfsFileSystem }) => (OpfsFileSystem.isAvailable() ? new OpfsFileSystem() : null))
          .catch(() => null);
    // What a workspace needs beyond the app (its services, tools, chat and views: the app loads them
    // with import() when a workspace opens): at once on any other route than the home screen, and
    // there only once the app is ready and its next frame is on screen, so that opening a workspace
    // finds them in but the home screen never waits for them.
    const home = parseRoute(location.hash).name === 'home';
    void preload('app-modules', 8).then(() => (home ? undefined : preload('workspace-modules', 8)));
    const [{ ClawserApp }, started] = await Promise.all([import('./app.js'), fs]);
    await new ClawserApp(root, { firstView, workspaceView, fs: started }).start();
    if (home) {
      await afterFrame();
      void preload('workspace-modules', 8);
    }
  })().catch((err) => {
    root.replaceChildren();
    const p = document.createElement('p');
    p.setAttribute('role', 'alert');
    p.textContent = `Clawser failed to start: ${err?.message ?? err}`;
    root.append(p);
  });
}
