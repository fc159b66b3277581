/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
import { z } from 'zod';
import { checkUrl } from '../safety/tool-call-validator.js';
import { offlineExplains, offlineMessage } from '../net/offline.js';

/** Redirects web_fetch follows at most (each one checked like the first address). */
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = [301, 302, 303, 307, 308];

/**
 * Turns HTML into readable text: drops scripts, styles and navigation chrome, keeps
 * headings, paragraphs, list items and link targets. Uses DOMParser when present.
 * @param {string} html
 */
export function htmlToText(html) {
  if (typeof DOMParser !== 'undefined') {
    const doc = new DOMParser().parseFromString(html, 'text/html');
    doc
      .querySelectorAll('script, style, noscript, template, svg, iframe, nav, footer, header[role="banner"], form')
      .forEach((n) => n.remove());
    const title = doc.title ? `# ${doc.title.trim()}\n\n` : '';
    const root = doc.querySelector('main, article') ?? doc.body;
    if (!root) return title.trim();
    root.querySelectorAll('a[href]').forEach((a) => {
      const href = a.getAttribute('href') ?? '';
      if (/^https?:/.test(href) && a.textContent?.trim()) a.append(` (${href})`);
    });
    root.querySelectorAll('h1,h2,h3,h4,h5,h6,p,li,tr,br,div,section,pre,blockquote').forEach((el) => el.append('\n'));
    root.querySelectorAll('li').forEach((el) => el.prepend('- '));
    return (title + (root.textContent ?? ''))
      .replace(/[ \t\f\v]+/g, ' ')
      .replace(/ *\n */g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  }
  return html
    .replace(/<(script|style|noscript|template|svg)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>|<\/(p|div|li|h\d|tr)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n\s*\n\s*\n+/g, '\n\n')
    .trim();
}

/** @param {string} host @param {string[]} allowlist */
export function hostAllowed(host, allowlist) {
  if (allowlist.length === 0) return true;
  const h = host.toLowerCase();
  return allowlist.some((d) => {
    const dom = d.toLowerCase().replace(/^\*\./, '');
    return h === dom || h.endsWith(`.${dom}`);
  });
}

/**
 * Why web_fetch's rules refuse an address (scheme, private addresses, the workspace's
 * allowlist), or null: applied to the first address and to every redirect, by web_fetch and
 * by the shell's curl.
 * @param {URL} u @param {{allowedPrivateHosts: string[], fetchAllowlist: string[]}} settings
 */
export function urlRefusal(u, settings) {
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'Only http and https URLs can be fetched.';
  const bad = checkUrl(u.href, { allowedPrivateHosts: settings.allowedPrivateHosts });
  if (bad) return bad;
  if (!hostAllowed(u.hostname, settings.fetchAllowlist))
    return `${u.hostname} is not in this workspace's fetch allowlist (${settings.fetchAllowlist.join(', ')}).`;
  return null;
}

/**
 * A fetch for the shell's `curl` (just-bash's SecureFetch shape) under web_fetch's rules:
 * every hop is checked before it is requested, `authorize` is asked first (the agent's shell
 * passes it through the tool gates as a web_fetch call), bodies are capped.
 * @param {{fetch: typeof fetch, settings: {allowedPrivateHosts: string[], fetchAllowlist: string[]}, authorize?: (url: string) =>
 *   Promise<string | null>, maxBytes?: number}} options
 * @returns {(url: string, init?: {method?: string, headers?: Headers | Record<string, string>, body?: string, followRedirects?: boolean,
 *   maxRedirects?: number, timeoutMs?: number, signal?: AbortSignal}) => Promise<{status: number, statusText: string,
 *   headers: Record<string, string>, body: Uint8Array, url: string}>}
 */
export function ruleFetch(options) {
  const maxBytes = options.maxBytes ?? 50 * 1024 * 1024;
  return async (url, init = {}) => {
    let current = new URL(url);
    const refusedFirst = urlRefusal(current, options.settings);
    if (refusedFirst) throw new Error(`curl: ${refusedFirst}`);
    const denied = await options.authorize?.(current.href);
    if (denied) throw new Error(`curl: ${denied}`);
    const timeout = AbortSignal.timeout(init.timeoutMs ?? 30_000);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    let method = init.method ?? 'GET';
    let body = init.body;
    for (let hop = 0; ; hop++) {
      const refused = urlRefusal(current, options.settings);
      if (refused) throw new Error(`curl: redirected to ${current.href}, which is refused: ${refused}`);
      /** @type {Response} */
      let res;
      try {
        res = await options.fetch(current.href, {
          method,
          headers: init.headers,
          body,
          signal,
          redirect: 'manual',
          credentials: 'omit',
          referrerPolicy: 'no-referrer',
        });
      } catch (err) {
        if (timeout.aborted) throw new Error(`curl: ${current.host} did not answer in time`);
        if (init.signal?.aborted) throw err;
        if (offlineExplains(current.href)) throw new Error(`curl: ${offlineMessage(current.href)}`);
        throw new Error(`curl: could not reach ${current.href} (the site is unreachable or does not allow requests from a web page: CORS)`);
      }
      if (res.type === 'opaqueredirect')
        throw new Error(`curl: ${current.host} redirects, and the browser hides where to, so the next address cannot be checked`);
      if (REDIRECT_STATUSES.includes(res.status) && init.followRedirects !== false) {
        const location = res.headers.get('location');
        await res.body?.cancel();
        if (!location) throw new Error(`curl: HTTP ${res.status} without a Location`);
        if (hop >= Math.min(init.maxRedirects ?? MAX_REDIRECTS, MAX_REDIRECTS))
          throw new Error(`curl: more than ${MAX_REDIRECTS} redirects`);
        current = new URL(location, current);
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      const chunks = [];
      let size = 0;
      const reader = res.body?.getReader();
      while (reader) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.length;
        if (size > maxBytes) {
          reader.cancel().catch(() => {});
          throw new Error(`curl: the response is larger than ${maxBytes} bytes`);
        }
        chunks.push(value);
      }
      const bytes = new Uint8Array(size);
      let at = 0;
      for (const c of chunks) {
        bytes.set(c, at);
        at += c.length;
      }
      /** @type {Record<string, string>} */
      const headers = {};
      res.headers.forEach((v, k) => {
        headers[k] = v;
      });
      return { status: res.status, statusText: res.statusText, headers, body: bytes, url: current.href };
    }
  };
}

/** @type {ToolDefinition} */
export const webFetch = {
  name: 'web_fetch',
  description: 'Fetch a web page or API (http/https) and return its readable text. HTML is reduced to text; JSON is pretty-printed.',
  permission: 'network',
  untrusted: 'a web page',
  schema: z.object({
    url: z.string().max(4096).describe('Absolute http(s) URL'),
    maxChars: z.number().int().min(100).max(200_000).optional(),
  }),
  async run({ url, maxChars }, /** @type {ToolContext} */ ctx) {
    /** Scheme, private-address and allowlist rules, applied to the first address and to every redirect. @param {URL} u */
    const refusal = (u) => urlRefusal(u, ctx.settings);
    /** @type {URL} */
    let current;
    try {
      current = new URL(url);
    } catch {
      return { ok: false, output: `"${url.slice(0, 100)}" is not a valid absolute URL.` };
    }
    const cap = Math.min(maxChars ?? ctx.settings.maxFetchChars, ctx.settings.maxFetchChars);
    /** @type {Response} */
    let res;
    const timeout = AbortSignal.timeout(30_000);
    const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout;
    // Redirects are followed here, not by fetch, so each hop passes the same checks before it is requested.
    for (let hop = 0; ; hop++) {
      const refused = refusal(current);
      if (refused)
        return { ok: false, output: hop === 0 ? refused : `The site redirected to ${current.href}, which is refused: ${refused}` };
      try {
        res = await ctx.fetch(current.href, { signal, redirect: 'manual', credentials: 'omit', referrerPolicy: 'no-referrer' });
      } catch (err) {
        if (timeout.aborted) return { ok: false, output: `${current.host} did not answer within 30 s.` };
        if (ctx.signal?.aborted) throw err;
        if (offlineExplains(current.href)) return { ok: false, output: offlineMessage(current.href) };
        return {
          ok: false,
          output: `Could not fetch ${current.href}: the site is unreachable or does not allow requests from a web page (CORS).`,
        };
      }
      if (res.type === 'opaqueredirect') {
        // Browsers hide a redirect's target from the page: the next hop cannot be checked, so it is not followed.
        return {
          ok: false,
          output:
            `${current.host} answered with a redirect, and the browser does not let Clawser see where it leads, so the next ` +
            `address cannot be checked and is not followed. If you know the page's final address, fetch that directly.`,
        };
      }
      if (!REDIRECT_STATUSES.includes(res.status)) break;
      const location = res.headers.get('location');
      await res.body?.cancel();
      if (!location) return { ok: false, output: `${current.host} answered HTTP ${res.status} (a redirect) without saying where to.` };
      if (hop >= MAX_REDIRECTS) return { ok: false, output: `Stopped: ${url} led through more than ${MAX_REDIRECTS} redirects.` };
      try {
        current = new URL(location, current);
      } catch {
        return { ok: false, output: `${current.host} redirected to an invalid address.` };
      }
    }
    const type = (res.headers.get('content-type') ?? '').toLowerCase();
    const head = `HTTP ${res.status} ${res.statusText} — ${current.href}\nContent-Type: ${type || 'unknown'}\n\n`;
    if (!/^(text\/|application\/(json|xml|xhtml\+xml|javascript|ld\+json|rss\+xml|atom\+xml)|image\/svg\+xml)/.test(type) && type) {
      const len = res.headers.get('content-length');
      await res.body?.cancel();
      return { ok: res.ok, output: `${head}Binary content (${type}${len ? `, ${len} bytes` : ''}) is not shown.` };
    }
    // Read at most a few times the cap, so a huge page cannot exhaust memory.
    const reader = res.body?.getReader();
    let raw = '';
    if (reader) {
      const dec = new TextDecoder();
      while (raw.length < cap * 4) {
        const { done, value } = await reader.read();
        if (done) break;
        raw += dec.decode(value, { stream: true });
      }
      reader.cancel().catch(() => {});
    }
    let text = raw;
    if (type.includes('html')) text = htmlToText(raw);
    else if (type.includes('json')) {
      try {
        text = JSON.stringify(JSON.parse(raw), null, 2);
      } catch {
        text = raw;
      }
    }
    const cut = text.length > cap ? `${text.slice(0, cap)}\n…[cut at ${cap} characters]` : text;
    return { ok: res.ok, output: head + cut };
  },
};

/** @type {ToolDefinition} */
export const webSearch = {
  name: 'web_search',
  description:
    'Search the web through the search service configured in Settings (SearXNG or Brave Search). Returns titles, URLs and snippets.',
  permission: 'network',
  untrusted: 'web search results',
  schema: z.object({ query: z.string().min(1).max(500), count: z.number().int().min(1).max(20).optional() }),
  async run({ query, count = 8 }, /** @type {ToolContext} */ ctx) {
    const endpoint = ctx.settings.searchEndpoint.trim();
    if (!endpoint) {
      return {
        ok: false,
        output:
          'Web search is not configured for this workspace. The user can add a SearXNG URL or a ' +
          'Brave Search API key in Settings → Tools. No results were made up.',
      };
    }
    // The key goes only to Brave's own host, never to a URL that merely contains its name.
    const isBrave = (() => {
      try {
        return new URL(endpoint).hostname === 'api.search.brave.com';
      } catch {
        return false;
      }
    })();
    const url = new URL(isBrave ? endpoint : `${endpoint.replace(/\/+$/, '')}/search`);
    url.searchParams.set('q', query);
    if (isBrave) url.searchParams.set('count', String(count));
    else url.searchParams.set('format', 'json');
    /** @type {Record<string, string>} */
    const headers = { accept: 'application/json' };
    if (isBrave && ctx.settings.searchApiKey) headers['x-subscription-token'] = ctx.settings.searchApiKey;
    let res;
    try {
      res = await ctx.fetch(url.href, { headers, signal: ctx.signal, credentials: 'omit' });
    } catch {
      if (offlineExplains(url.href)) return { ok: false, output: offlineMessage(`the search service at ${url.host}`) };
      return { ok: false, output: `The search service at ${url.host} could not be reached (or does not allow requests from this page).` };
    }
    if (!res.ok) return { ok: false, output: `The search service answered HTTP ${res.status}.` };
    const json = await res.json().catch(() => null);
    /** @type {{title: string, url: string, content: string}[]} */
    const items = (isBrave ? (json?.web?.results ?? []) : (json?.results ?? [])).slice(0, count).map((/** @type {any} */ r) => ({
      title: String(r.title ?? ''),
      url: String(r.url ?? ''),
      content: String(r.content ?? r.description ?? ''),
    })); // search JSON read defensively
    if (items.length === 0) return { ok: true, output: `No results for "${query}".` };
    return {
      ok: true,
      output: items.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${htmlToText(r.content).slice(0, 300)}`).join('\n'),
    };
  },
};

export const WEB_TOOLS = [webFetch, webSearch];

/** @type {ToolFamily} */
export const family = { id: 'web', tools: WEB_TOOLS };
