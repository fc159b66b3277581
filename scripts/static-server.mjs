// Static file server for the app: correct MIME types, no path traversal, revalidation
// on every load (no-cache) so a new version shows, and only the app's own folders served.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { precacheManifestSource } from './build-manifest.mjs';
import { ISOLATION_HEADER, ISOLATION_VALUE } from '../web/net/isolation.js';

export const appRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** @type {Record<string, string>} */
const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.tgz': 'application/gzip', // web/vendor/wsh-server.tgz, for npx on the user's machine
};

/**
 * On every response: no page of another origin may frame Clawser's documents — above all the
 * sandbox frame, which a page of another port of this site could otherwise embed without the
 * sandbox attribute (the frame refuses to run then too; this stops the load itself).
 * frame-ancestors only works as a header; X-Frame-Options is for older browsers.
 */
export const FRAMING_HEADERS = Object.freeze({ 'content-security-policy': "frame-ancestors 'self'", 'x-frame-options': 'SAMEORIGIN' });

/** The sandbox frame's document: never isolated (code of the model gets no shared memory). */
const SANDBOX_FRAME = '/andbox/frame.html';
/** The artifact frame's document (web/ui/artifact-frame.html): an opaque origin too, never isolated. */
const ARTIFACT_FRAME = '/ui/artifact-frame.html';

/**
 * How the server isolates: true (every response but the sandbox frame's carries
 * Document-Isolation-Policy), false (nothing: a static host that sends no headers). Only for
 * the tests' comparison runs: 'coop-coep' (COOP same-origin + COEP credentialless on every
 * response, the older way) and 'sandbox-too' (the sandbox frame as well).
 * @typedef {boolean | 'coop-coep' | 'sandbox-too'} IsolationMode
 */

/**
 * Cross-origin isolation (web/net/isolation.js): the app's documents get SharedArrayBuffer (a
 * model on this computer runs on several threads); the sandbox frame does not, so code of the
 * model gets no shared memory (with the header, its worker would). Every other response carries
 * it, documents or not: a same-origin document in a frame stays reachable from the app only
 * when it has the app's policy (documents use the header; other responses ignore it).
 * @param {string} urlPath @param {IsolationMode} isolation
 * @returns {Record<string, string>}
 */
export function isolationHeaders(urlPath, isolation) {
  if (isolation === 'coop-coep') return { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'credentialless' };
  if (!isolation || ((urlPath.endsWith(SANDBOX_FRAME) || urlPath.endsWith(ARTIFACT_FRAME)) && isolation !== 'sandbox-too')) return {};
  return { [ISOLATION_HEADER]: ISOLATION_VALUE };
}

/** Only these may be served: never node_modules, .git, tests or scripts. */
const ALLOWED_ROOTS = ['index.html', 'sw.js', 'manifest.webmanifest', 'precache-manifest.js', 'web', 'icons'];

/**
 * Resolves a URL path to a file under root, or null when it is outside the allowed set.
 * @param {string} root
 * @param {string} urlPath
 */
export function resolveStaticPath(root, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/').filter(Boolean);
  if (segments.some((s) => s === '..' || s === '.')) return null;
  if (segments.length === 0) segments.push('index.html');
  if (!ALLOWED_ROOTS.includes(segments[0])) return null;
  const full = normalize(join(root, ...segments));
  if (!full.startsWith(root + sep)) return null;
  return full;
}

/**
 * @param {{host?: string, port?: number, root?: string, framingHeaders?: boolean, isolation?: IsolationMode}} [options]
 *   framingHeaders: false leaves FRAMING_HEADERS out — only for the tests' control runs; isolation: see IsolationMode
 * @returns {Promise<import('node:http').Server>}
 */
export function startServer({ host = '127.0.0.1', port = 0, root = appRoot, framingHeaders = true, isolation = true } = {}) {
  const framing = framingHeaders ? FRAMING_HEADERS : {};
  const server = createServer(async (req, res) => {
    const send = (/** @type {number} */ status, /** @type {string} */ text) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...framing });
      res.end(text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'Method not allowed');
    const urlPath = new URL(req.url || '/', 'http://x').pathname;
    const file = resolveStaticPath(root, urlPath);
    const isolated = isolationHeaders(urlPath, isolation);
    if (!file) return send(404, 'Not found');
    /** @type {Buffer} */
    let body;
    if (file === join(root, 'precache-manifest.js')) {
      // Always current in development, whatever was edited since the last install.
      try {
        body = Buffer.from(await precacheManifestSource(root));
      } catch (err) {
        // An answer, not a request left hanging (no details: they are the server's business).
        console.error(`static server: ${urlPath}:`, err);
        return send(500, 'Internal server error');
      }
    } else {
      try {
        const info = await stat(file);
        if (!info.isFile()) return send(404, 'Not found');
        body = await readFile(file);
      } catch {
        return send(404, 'Not found');
      }
    }
    // The sandbox frame's navigation never reaches the service worker (its origin is opaque), so
    // the versioned frame (frame.html?v=<hash>) is kept by the browser's own cache instead: its
    // URL changes with every new version, so a cached copy is never stale.
    // The artifact frame likewise (artifact-frame.html?v=<hash>).
    const immutable =
      (urlPath.endsWith(SANDBOX_FRAME) || urlPath.endsWith(ARTIFACT_FRAME)) && new URL(req.url || '/', 'http://x').searchParams.has('v');
    res.writeHead(200, {
      'content-type': MIME[extname(file)] || 'application/octet-stream',
      'content-length': body.length,
      // Revalidate on every load so an update is seen at once; the service worker does the offline caching.
      'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      'x-content-type-options': 'nosniff',
      ...framing,
      ...isolated,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
