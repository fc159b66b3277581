// Runs first on the page (its own module script, ahead of main.js, importing only the router):
// opened on a workspace's chat, it asks at once for the modules of that first view, alongside the
// home screen's that the page preloads, instead of after them.
import { parseRoute } from './router.js';

/**
 * Asks for the modules listed in the page's JSON block `id` at once (index.html lists them:
 * scripts/index-html.mjs), instead of level by level as their imports are found.
 * @param {string} id
 */
export function preload(id) {
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

/** The route opens a workspace's chat (the view workspace-first-view.js paints). */
export function opensWorkspaceChat() {
  const route = parseRoute(location.hash);
  return route.name === 'workspace' && route.panel === 'chat';
}

if (opensWorkspaceChat()) preload('workspace-view-modules');
