/**
 * Cross-origin isolation: what gives a page SharedArrayBuffer, so a model on this computer can
 * run on several threads. Clawser asks for it with one response header on its documents,
 * Document-Isolation-Policy (sent by `npm start` and added by the service worker to the pages it
 * serves): unlike COOP/COEP it does not cut the page off from the windows it opens (an OAuth
 * sign-in window) nor ask anything of frames, workers and other origins. Browsers without it are
 * not isolated and run such a model on one thread. The sandbox frame never carries it: code of
 * the model gets no shared memory (nor the precise timers that come with it).
 */

/** The header, in lower case (as Node and the Fetch API name headers). */
export const ISOLATION_HEADER = 'document-isolation-policy';
/** Cross-origin requests without CORS go without credentials rather than being refused. */
export const ISOLATION_VALUE = 'isolate-and-credentialless';

/**
 * isolated: this page is isolated; off: the setting is off; next-load: wanted, but this page
 * was not served with the header (the first visit on a host that does not send it: the service
 * worker serves the next load); unsupported: served with it, yet the browser did not isolate;
 * insecure: not a secure context, where no page can be isolated.
 * @typedef {'isolated' | 'off' | 'next-load' | 'unsupported' | 'insecure'} IsolationReason
 */

/** @typedef {{isolated: boolean, reason: IsolationReason, text: string}} IsolationState */

/**
 * What the page knows of itself; the defaults read this page's globals (a test passes its own).
 * @typedef {object} IsolationEnvironment
 * @property {boolean} crossOriginIsolated
 * @property {boolean} secure
 * @property {boolean} servedByWorker this document came through the service worker
 */

/** The user's setting as the app last said it (on until it says otherwise), and as it was when this page loaded. */
let wantedNow = true;
/** @type {boolean | null} */
let wantedAtLoad = null;

/**
 * The app says what the user's setting is (at start, which is what this page was served by, and
 * at each change), so isolationState() called from anywhere in the page (a provider, say) tells
 * "off" and "from the next load" from "not supported".
 * @param {boolean} on
 */
export function noteIsolationWanted(on) {
  wantedAtLoad ??= on;
  wantedNow = on;
}

/** @returns {IsolationEnvironment} */
function thisPage() {
  const g = /** @type {{crossOriginIsolated?: boolean, isSecureContext?: boolean}} */ (globalThis);
  // Navigation timing's workerStart is 0 unless a service worker handled this document's request.
  const nav = globalThis.performance?.getEntriesByType?.('navigation')[0];
  const servedByWorker = !!nav && 'workerStart' in nav && /** @type {PerformanceNavigationTiming} */ (nav).workerStart > 0;
  return { crossOriginIsolated: g.crossOriginIsolated === true, secure: g.isSecureContext === true, servedByWorker };
}

/**
 * Whether this page is cross-origin isolated, why, and a sentence saying so. In a worker
 * `isolated` holds too (a worker is isolated with its page); the reason is the page's to know.
 * @param {{wanted?: boolean, wantedAtLoad?: boolean, env?: IsolationEnvironment}} [options] wanted: the user's setting now;
 *   wantedAtLoad: when this page loaded (defaults: as the app noted them)
 * @returns {IsolationState}
 */
export function isolationState(options = {}) {
  const wanted = options.wanted ?? wantedNow;
  const atLoad = options.wantedAtLoad ?? wantedAtLoad ?? wanted;
  const env = options.env ?? thisPage();
  if (env.crossOriginIsolated)
    return {
      isolated: true,
      reason: 'isolated',
      text: wanted
        ? 'On: this page is cross-origin isolated, so a model on this computer can use several threads.'
        : 'Off from the next load: this page was served isolated before the setting changed.',
    };
  if (!env.secure)
    return {
      isolated: false,
      reason: 'insecure',
      text: 'Not possible here: the page is not a secure context (open Clawser over https or from localhost).',
    };
  if (!wanted)
    return {
      isolated: false,
      reason: 'off',
      text: 'Off: this page is not cross-origin isolated, so a model on this computer uses one thread.',
    };
  if (!atLoad || !env.servedByWorker)
    return {
      isolated: false,
      reason: 'next-load',
      text: 'Not yet: it starts the next time Clawser loads, once its offline copy serves the page (reload to start it now).',
    };
  return {
    isolated: false,
    reason: 'unsupported',
    text:
      'This browser does not support Document-Isolation-Policy (Chrome and Edge 137 or later do), so the page is not ' +
      'isolated and a model on this computer uses one thread.',
  };
}
