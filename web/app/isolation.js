/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { IsolationState } from '../net/isolation.js' */
import { isolationState, noteIsolationWanted } from '../net/isolation.js';

/** The setting, one for every workspace of this browser: {on: boolean}; missing means on. */
export const ISOLATION_KEY = 'clawser_isolation';

/** How long the page waits for the service worker to confirm a change before reloading anyway. */
const TELL_TIMEOUT_MS = 3000;

/**
 * The cross-origin isolation setting (Settings → This browser) and what this page is: the
 * setting is kept in the ConfigStore and handed to the service worker, which puts the header on
 * (or takes it off) the documents it serves, so a change shows from the next load.
 */
export class IsolationSetting {
  /** @param {{config: ConfigStore}} deps */
  constructor(deps) {
    this.config = deps.config;
    noteIsolationWanted(this.wanted());
  }

  /** Whether the user wants the page isolated (on unless turned off). */
  wanted() {
    const v = this.config.get(ISOLATION_KEY, null);
    return !(v && typeof v === 'object' && 'on' in v && v.on === false);
  }

  /** This page's state, as the setting wants it. @returns {IsolationState} */
  state() {
    return isolationState({ wanted: this.wanted() });
  }

  /**
   * Stores the setting and tells the service worker; resolves once both hold (a reload right
   * after is served as the setting says).
   * @param {boolean} on
   */
  async set(on) {
    this.config.set(ISOLATION_KEY, { on });
    noteIsolationWanted(on);
    await this.config.flush();
    await this.tellServiceWorker();
  }

  /**
   * Hands the setting to the active service worker (at every start too: a worker installed anew,
   * or whose cache was cleared, learns it again). Nothing to do without one.
   */
  async tellServiceWorker() {
    const worker = (await navigator.serviceWorker?.getRegistration())?.active;
    if (!worker) return;
    const on = this.wanted();
    const channel = new MessageChannel();
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, TELL_TIMEOUT_MS);
      channel.port1.onmessage = () => {
        clearTimeout(timer);
        resolve(undefined);
      };
      worker.postMessage({ type: 'SET_ISOLATION', on }, [channel.port2]);
    });
    channel.port1.close();
  }
}
