/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { SecretBox } from '../storage/secrets.js' */
/** @import { McpServerConfig } from './manager.js' */
import { z } from 'zod';
import { McpError } from './client.js';
import { toBase64 } from '../storage/base64.js';

/**
 * OAuth 2.1 with PKCE for MCP servers that announce it (the MCP authorization spec): the
 * server's 401 names its protected-resource metadata (RFC 9728), which names the authorization
 * server, whose metadata (RFC 8414, or OpenID discovery) gives the endpoints; the client is
 * registered dynamically (RFC 7591) where the server offers it; the user signs in in a popup
 * that comes back to a page of this app (oauth-callback.html); the code is exchanged with the
 * PKCE verifier and the `resource` indicator (RFC 8707). Tokens are sealed like API keys and
 * refreshed before they expire.
 */

const ResourceMetadataSchema = z.object({
  resource: z.string().url(),
  authorization_servers: z.array(z.string().url()).min(1),
  scopes_supported: z.array(z.string()).optional(),
});
const AuthServerSchema = z.object({
  issuer: z.string().optional(),
  authorization_endpoint: z.string().url(),
  token_endpoint: z.string().url(),
  registration_endpoint: z.string().url().optional(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
  scopes_supported: z.array(z.string()).optional(),
});
const TokenSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.number().optional(),
  refresh_token: z.string().optional(),
  scope: z.string().optional(),
});
/** What is kept (sealed) per server after signing in. */
const SavedSchema = z.object({
  clientId: z.string(),
  tokenEndpoint: z.string().url(),
  resource: z.string(),
  accessToken: z.string(),
  refreshToken: z.string().optional(),
  expiresAt: z.number().optional(),
});
/** @typedef {z.infer<typeof SavedSchema>} SavedTokens */

/** Where a server's OAuth tokens are kept (sealed). @param {string} workspaceId @param {string} serverId */
export const oauthKey = (workspaceId, serverId) => `clawser_mcp_oauth_${workspaceId}_${serverId}`;

/** `key="value"` parameters of a WWW-Authenticate header. @param {string | null} header */
export function authenticateParams(header) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const m of (header ?? '').matchAll(/([a-z_]+)="([^"]*)"/gi)) out[m[1].toLowerCase()] = m[2];
  return out;
}

/** An http: address is accepted only on this machine (a local test or development server). @param {string} url */
const secureOrLocal = (url) => {
  const u = new URL(url);
  return u.protocol === 'https:' || (u.protocol === 'http:' && /^(127\.0\.0\.1|localhost|\[::1\])$/.test(u.hostname));
};
/** @param {string} url */
const normalized = (url) => {
  const u = new URL(url);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
};

/** @param {Uint8Array} bytes */
const base64url = (bytes) => toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** A PKCE verifier and its S256 challenge. */
export async function pkcePair() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

/**
 * @param {typeof fetch} f @param {string[]} urls the first that answers JSON wins
 * @returns {Promise<{url: string, json: unknown} | null>}
 */
async function firstJson(f, urls) {
  for (const url of urls) {
    try {
      const res = await f(url, { headers: { accept: 'application/json' }, credentials: 'omit' });
      if (res.ok) return { url, json: await res.json() };
    } catch {
      // next candidate
    }
  }
  return null;
}

/**
 * Where to sign in for a server: its protected-resource metadata, then its authorization
 * server's metadata.
 * @param {string} serverUrl @param {string | null} wwwAuthenticate @param {typeof fetch} f
 */
export async function discover(serverUrl, wwwAuthenticate, f) {
  const url = new URL(serverUrl);
  const namedRaw = authenticateParams(wwwAuthenticate).resource_metadata;
  // The metadata address the 401 names is used only on https (or this machine).
  const named =
    namedRaw &&
    (() => {
      try {
        return secureOrLocal(namedRaw);
      } catch {
        return false;
      }
    })()
      ? namedRaw
      : undefined;
  const path = url.pathname.replace(/\/$/, '');
  const prm = await firstJson(f, [
    ...(named ? [named] : []),
    `${url.origin}/.well-known/oauth-protected-resource${path}`,
    `${url.origin}/.well-known/oauth-protected-resource`,
  ]);
  const resource = prm ? ResourceMetadataSchema.safeParse(prm.json) : null;
  if (!resource?.success)
    throw new McpError(
      'auth',
      `${url.host} asks to sign in but publishes no OAuth protected-resource metadata (RFC 9728), so Clawser cannot tell where to sign ` +
        `in. Use a token instead.`,
    );
  // The token is for this server only: metadata naming another resource (another API the user
  // can sign in to) would have Clawser hand this server a token for it.
  const res = new URL(resource.data.resource);
  const resPath = res.pathname.replace(/\/+$/, '');
  if (res.origin !== url.origin || !(path === resPath || path.startsWith(`${resPath}/`) || resPath === '')) {
    throw new McpError(
      'auth',
      `${url.host} names ${resource.data.resource} as the resource to sign in for, which is not this server (${serverUrl}); Clawser ` +
        `does not sign in for another resource.`,
    );
  }
  const issuer = new URL(resource.data.authorization_servers[0]);
  if (!secureOrLocal(issuer.href))
    throw new McpError('auth', `The authorization server ${issuer.href} is not on https; Clawser does not sign in over plain http.`);
  const ipath = issuer.pathname.replace(/\/$/, '');
  const as = await firstJson(f, [
    `${issuer.origin}/.well-known/oauth-authorization-server${ipath}`,
    `${issuer.origin}/.well-known/openid-configuration${ipath}`,
    `${issuer.origin}${ipath}/.well-known/openid-configuration`,
  ]);
  const meta = as ? AuthServerSchema.safeParse(as.json) : null;
  if (!meta?.success) throw new McpError('auth', `The authorization server ${issuer.host} publishes no usable metadata (RFC 8414).`);
  if (!meta.data.code_challenge_methods_supported?.includes('S256'))
    throw new McpError(
      'auth',
      `The authorization server ${issuer.host} does not say it supports PKCE (S256); Clawser does not sign in without it.`,
    );
  if (meta.data.issuer !== undefined && normalized(meta.data.issuer) !== normalized(issuer.href))
    throw new McpError(
      'auth',
      `The authorization server's metadata names another issuer (${meta.data.issuer}, not ${issuer.href}); Clawser does not trust it.`,
    );
  for (const endpoint of [meta.data.authorization_endpoint, meta.data.token_endpoint, meta.data.registration_endpoint]) {
    if (endpoint && !secureOrLocal(endpoint))
      throw new McpError(
        'auth',
        `The authorization server's endpoint ${endpoint} is not on https; Clawser does not sign in over plain http.`,
      );
  }
  // The least the server asks for: the scope of its 401, else the resource's own list (never every scope the authorization server knows).
  const asked = authenticateParams(wwwAuthenticate).scope;
  const scopes = asked ? asked.split(/\s+/).filter(Boolean) : (resource.data.scopes_supported ?? []);
  return { resource: resource.data.resource, scopes, server: meta.data };
}

/**
 * Signing in to MCP servers, and their access tokens for requests.
 */
export class McpOAuth {
  /**
   * @param {{config: ConfigStore, secrets: SecretBox, fetch?: typeof fetch, redirectUri: string,
   *   authorize: (url: string, state: string) => Promise<{code?: string, error?: string, error_description?: string}>, now?: () => number}}
   *   deps
   *   authorize: shows the sign-in page (a popup) and resolves with what the redirect brought back for `state`
   */
  constructor(deps) {
    this.deps = deps;
    this.fetch = deps.fetch ?? globalThis.fetch.bind(globalThis);
    this.now = deps.now ?? Date.now;
  }

  /** @param {string} workspaceId @param {string} serverId */
  #key(workspaceId, serverId) {
    return oauthKey(workspaceId, serverId);
  }

  /** @param {string} workspaceId @param {string} serverId @returns {Promise<SavedTokens | null>} */
  async #load(workspaceId, serverId) {
    const sealed = this.deps.config.get(this.#key(workspaceId, serverId), null);
    if (typeof sealed !== 'string') return null;
    try {
      const parsed = SavedSchema.safeParse(JSON.parse(await this.deps.secrets.decrypt(sealed)));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** @param {string} workspaceId @param {string} serverId @param {SavedTokens} saved */
  async #save(workspaceId, serverId, saved) {
    this.deps.config.set(this.#key(workspaceId, serverId), await this.deps.secrets.encrypt(JSON.stringify(saved)));
  }

  /** @param {string} workspaceId @param {string} serverId */
  async signedIn(workspaceId, serverId) {
    return (await this.#load(workspaceId, serverId)) !== null;
  }

  /** Forgets a server's tokens. @param {string} workspaceId @param {string} serverId */
  signOut(workspaceId, serverId) {
    this.deps.config.remove(this.#key(workspaceId, serverId));
  }

  /**
   * Signs in to a server: discovery, registration, the user's sign-in page, the code exchange.
   * @param {string} workspaceId @param {McpServerConfig} server @param {string | null} wwwAuthenticate from the server's 401
   */
  async signIn(workspaceId, server, wwwAuthenticate) {
    const found = await discover(server.url, wwwAuthenticate, this.fetch);
    const as = found.server;
    let clientId;
    if (as.registration_endpoint) {
      const res = await this.fetch(as.registration_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          client_name: 'Clawser',
          redirect_uris: [this.deps.redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
        credentials: 'omit',
      }).catch(() => null);
      const body = res?.ok ? await res.json().catch(() => null) : null;
      if (!body || typeof body.client_id !== 'string')
        throw new McpError(
          'auth',
          `Clawser could not register with the authorization server ${new URL(as.registration_endpoint).host} ` +
            `(HTTP ${res?.status ?? 'no answer'}).`,
        );
      clientId = body.client_id;
    } else {
      throw new McpError(
        'auth',
        `The authorization server ${new URL(as.authorization_endpoint).host} offers no dynamic client registration; Clawser cannot sign ` +
          `in there. Use a token instead.`,
      );
    }
    const { verifier, challenge } = await pkcePair();
    const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
    const url = new URL(as.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', clientId);
    url.searchParams.set('redirect_uri', this.deps.redirectUri);
    url.searchParams.set('code_challenge', challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', state);
    url.searchParams.set('resource', found.resource);
    if (found.scopes.length) url.searchParams.set('scope', found.scopes.join(' '));
    const answer = await this.deps.authorize(url.href, state);
    if (!answer.code)
      throw new McpError(
        'auth',
        `Signing in to ${new URL(server.url).host} did not finish${
          answer.error ? `: ${answer.error}${answer.error_description ? ` ` + `(${answer.error_description})` : ''}` : ''
        }.`,
      );
    const tokens = await this.#token(as.token_endpoint, {
      grant_type: 'authorization_code',
      code: answer.code,
      redirect_uri: this.deps.redirectUri,
      client_id: clientId,
      code_verifier: verifier,
      resource: found.resource,
    });
    await this.#save(workspaceId, server.id, { clientId, tokenEndpoint: as.token_endpoint, resource: found.resource, ...tokens });
  }

  /**
   * @param {string} endpoint @param {Record<string, string>} form
   * @returns {Promise<{accessToken: string, refreshToken?: string, expiresAt?: number}>}
   */
  async #token(endpoint, form) {
    const res = await this.fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
      credentials: 'omit',
    }).catch(() => null);
    const body = res ? await res.json().catch(() => null) : null;
    const parsed = TokenSchema.safeParse(body);
    if (!res?.ok || !parsed.success)
      throw new McpError(
        'auth',
        `The authorization server refused the sign-in (${String(
          body?.error_description ?? body?.error ?? `HTTP ` + `${res?.status ?? 'no answer'}`,
        )}).`,
      );
    const t = parsed.data;
    return {
      accessToken: t.access_token,
      ...(t.refresh_token ? { refreshToken: t.refresh_token } : {}),
      ...(t.expires_in ? { expiresAt: this.now() + t.expires_in * 1000 } : {}),
    };
  }

  /**
   * The Authorization header for a server's requests: its access token, refreshed when it
   * expires within a minute. None before signing in.
   * @param {string} workspaceId @param {McpServerConfig} server
   * @returns {Promise<Record<string, string>>}
   */
  async headers(workspaceId, server) {
    // One reader at a time per server: a refresh finishing between another reader's load and its
    // check would otherwise have it replay the used refresh token.
    const key = this.#key(workspaceId, server.id);
    const before = this.#locks.get(key) ?? Promise.resolve();
    const mine = before.then(() => this.#headersNow(workspaceId, server));
    this.#locks.set(
      key,
      mine.catch(() => {}),
    );
    return mine;
  }

  /** Per-server queues of headers() calls. @type {Map<string, Promise<unknown>>} */
  #locks = new Map();

  /** @param {string} workspaceId @param {McpServerConfig} server @returns {Promise<Record<string, string>>} */
  async #headersNow(workspaceId, server) {
    let saved = await this.#load(workspaceId, server.id);
    if (!saved) return {};
    // Calls are queued per server (headers()), so one refresh happens at a time: a refresh token is often good for one use only.
    if (saved.expiresAt && saved.expiresAt - this.now() < 60_000 && saved.refreshToken) {
      try {
        const fresh = await this.#token(saved.tokenEndpoint, {
          grant_type: 'refresh_token',
          refresh_token: saved.refreshToken,
          client_id: saved.clientId,
          resource: saved.resource,
        });
        saved = { ...saved, ...fresh, refreshToken: fresh.refreshToken ?? saved.refreshToken };
        await this.#save(workspaceId, server.id, saved);
      } catch {
        // Refused: the server's 401 asks the user to sign in again.
      }
    }
    return { authorization: `Bearer ${saved.accessToken}` };
  }

  /** The tokens of a server (for redaction). @param {string} workspaceId @param {string} serverId */
  async secretValues(workspaceId, serverId) {
    const s = await this.#load(workspaceId, serverId);
    return s ? [s.accessToken, ...(s.refreshToken ? [s.refreshToken] : [])] : [];
  }
}
