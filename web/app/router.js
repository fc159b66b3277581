/** @typedef {{name: 'home'} | {name: 'workspace', workspaceId: string, panel: string, conversationId?: string}} Route */

/** The routes of a workspace that are not panels of the registry. */
const BASE_ROUTES = ['chat', 'settings'];

/**
 * Parses a location hash into a route. Unknown hashes go home; with `panels`, unknown panels go
 * to the chat. Without it (code that runs before the panel registry exists: the first views) a
 * panel name is kept as written, so a panel registered later is never taken for the chat.
 * @param {string} hash e.g. "#workspace/abc/conversation/c1"
 * @param {readonly string[]} [panels] the panel names there are (the registry's)
 * @returns {Route}
 */
export function parseRoute(hash, panels) {
  const parts = hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  if (parts[0] !== 'workspace' || !parts[1]) return { name: 'home' };
  const workspaceId = parts[1];
  if (parts[2] === 'conversation' && parts[3]) return { name: 'workspace', workspaceId, panel: 'chat', conversationId: parts[3] };
  return {
    name: 'workspace',
    workspaceId,
    panel: parts[2] && (!panels || BASE_ROUTES.includes(parts[2]) || panels.includes(parts[2])) ? parts[2] : 'chat',
  };
}

/**
 * @param {Route} route
 * @returns {string}
 */
export function formatRoute(route) {
  if (route.name === 'home') return '#home';
  const ws = `#workspace/${encodeURIComponent(route.workspaceId)}`;
  if (route.conversationId) return `${ws}/conversation/${encodeURIComponent(route.conversationId)}`;
  return route.panel && route.panel !== 'chat' ? `${ws}/${route.panel}` : ws;
}

/** Hash router: back/forward work because every view change is a hash change. */
export class Router {
  /** @type {Set<(route: Route) => void>} */
  #listeners = new Set();

  /** @param {{panels: () => readonly string[]}} options panels: the names of the panels there are (the registry's) */
  constructor(options) {
    this.panels = options.panels;
    addEventListener('hashchange', () => this.#emit());
  }

  get current() {
    return parseRoute(location.hash, this.panels());
  }

  /** @param {(route: Route) => void} fn */
  onChange(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** @param {Route} route @param {{replace?: boolean}} [options] */
  go(route, options = {}) {
    const hash = formatRoute(route);
    if (location.hash === hash) return;
    if (options.replace) {
      history.replaceState(null, '', hash);
      this.#emit();
    } else {
      location.hash = hash;
    }
  }

  #emit() {
    const route = this.current;
    for (const fn of this.#listeners) fn(route);
  }
}
