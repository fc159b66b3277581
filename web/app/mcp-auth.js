/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { SecretBox } from '../storage/secrets.js' */
/** @import { McpServerConfig } from '../mcp/manager.js' */
import { McpOAuth } from '../mcp/oauth.js';
import { McpError } from '../mcp/client.js';

/** How long a sign-in window may stay open before Clawser stops waiting. */
const SIGN_IN_MS = 10 * 60_000;

/**
 * The page side of OAuth for MCP servers: the sign-in popup (opened at the user's click, so no
 * pop-up blocker stops it) and the redirect back to oauth-callback.html, which answers over a
 * BroadcastChannel. One McpOAuth for the page.
 */
export class McpAuth {
  /** @param {{config: ConfigStore, secrets: SecretBox}} deps */
  constructor(deps) {
    /** The window opened by the click that started the current sign-in. @type {Window | null} */
    this.popup = null;
    this.oauth = new McpOAuth({
      config: deps.config,
      secrets: deps.secrets,
      redirectUri: new URL('web/app/oauth-callback.html', document.baseURI).href,
      authorize: (url, state) => this.#authorize(url, state),
    });
  }

  /**
   * Opens the sign-in window now, in the click's turn (a later window.open could be blocked),
   * then runs the sign-in in it.
   * @param {string} workspaceId @param {McpServerConfig} server @param {string | null} authenticate the server's WWW-Authenticate
   */
  signIn(workspaceId, server, authenticate) {
    this.popup = window.open('about:blank', 'clawser-oauth', 'popup,width=520,height=720');
    return this.oauth.signIn(workspaceId, server, authenticate).finally(() => {
      if (this.popup && !this.popup.closed) this.popup.close();
      this.popup = null;
    });
  }

  /** @param {string} url @param {string} state @returns {Promise<{code?: string, error?: string, error_description?: string}>} */
  #authorize(url, state) {
    const popup = this.popup;
    if (!popup)
      return Promise.reject(new McpError('auth', 'The sign-in window was blocked: allow pop-ups for Clawser, then sign in again.'));
    popup.location.href = url;
    return new Promise((resolve) => {
      const channel = new BroadcastChannel('clawser-oauth');
      /** @param {{code?: string, error?: string, error_description?: string}} answer */
      const done = (answer) => {
        channel.close();
        clearInterval(watch);
        clearTimeout(limit);
        resolve(answer);
      };
      channel.onmessage = (e) => {
        if (e.data?.state === state) done(e.data);
      };
      // A closed window without an answer: the user gave up (a little grace for the last message).
      const watch = setInterval(() => {
        if (popup.closed) setTimeout(() => done({ error: 'the sign-in window was closed' }), 700);
      }, 500);
      const limit = setTimeout(() => done({ error: 'no answer within ten minutes' }), SIGN_IN_MS);
    });
  }
}
