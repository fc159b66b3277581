// The wsh server (`npx wsh-server`, or `createWshServer()` in-process): an HTTP server whose
// /wsh path upgrades to the wsh protocol. Before a connection is accepted, its Host header must
// name this server (a DNS-rebinding defence: a page on another name that resolves here is
// refused) and its Origin, when a browser sends one, must be on the list. Keys are read from
// the keys file at every sign-in, so a key added or removed there counts at once. /mcp serves
// MCP (Streamable HTTP) for the tools a signed-in client exposes (server/mcp.js); /hook/<token>
// takes incoming webhooks for a client that listens with that token (server/hooks.js).
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { readKeysFile } from './keys-file.js';
import { Connection } from './connection.js';
import { loadNodePty } from './processes.js';
import { relayMatcher } from './relay.js';
import { MCP_PATH, McpGateway } from './mcp.js';
import { HOOK_PREFIX, HookGateway } from './hooks.js';
import { MAX_FRAME_BYTES } from '../protocol.js';

/** @import { KeyEntry } from './keys-file.js' */
/** @import { PtyModule } from './processes.js' */
/** @import { IncomingMessage, ServerResponse } from 'node:http' */
/** @import { Duplex } from 'node:stream' */

/** Browser origins accepted without --origins: pages served from this machine. */
export const DEFAULT_ORIGINS = ['http://localhost:*', 'http://127.0.0.1:*', 'http://[::1]:*', 'https://localhost:*', 'https://127.0.0.1:*'];
export const WSH_PATH = '/wsh';
/** What a server started without any key says: exactly what to pass. */
export const NO_KEYS_MESSAGE =
  'wsh-server needs at least one public key: pass --key "ssh-ed25519 AAAA… name" (the line Clawser\'s Remote panel shows ' +
  'for a machine; repeat --key for more; options go first, as in a keys file: --key "dirs=~/code ssh-ed25519 AAAA… name") ' +
  'or --keys FILE (one such line a line).';

/**
 * @typedef {object} WshServerOptions
 * @property {string} [host] the address to bind (127.0.0.1)
 * @property {number} [port] 0: any free port (the default)
 * @property {string} [keysFile] the keys file, read at every sign-in
 * @property {KeyEntry[]} [keys] keys given directly (--key, tests, embedding); with a keys file, both count
 * @property {string[]} [relayAllow] hosts the relay forwards to (none: no relay)
 * @property {string[]} [origins] allowed browser Origins (exact, or with `:*` for any port; `*` for any)
 * @property {string[]} [allowedHosts] more Host header names this server answers to (the bound address and loopback names always)
 * @property {number} [idleTimeoutMs] a signed-in connection with nothing open is closed after this long (10 minutes)
 * @property {number} [authTimeoutMs] a connection must sign in within this (10 s)
 * @property {'auto' | PtyModule | null} [pty] 'auto': node-pty when installed; null: pipes only
 * @property {string | ((port: number) => string)} [webtransport] a WebTransport URL to advertise (a front end that speaks
 *   it), or a function of the port this server got
 * @property {(line: string) => void} [log] where log lines go (stderr); never bodies or secrets
 * @property {(req: IncomingMessage, res: ServerResponse) => void} [httpHandler] other HTTP requests (after the Host and Origin checks)
 */

/**
 * @typedef {object} WshServer
 * @property {string} url the WebSocket URL clients connect to
 * @property {number} port
 * @property {string} host
 * @property {boolean} pty whether terminals get a real PTY
 * @property {import('node:http').Server} http
 * @property {string} mcpUrl the MCP endpoint (Streamable HTTP) outside MCP clients use, with a token an exposing client gave
 * @property {string} hookUrl where incoming webhooks go: this, then a token a listening client gave (`/hook/TOKEN`)
 * @property {() => number} connections how many are open
 * @property {() => void} disconnectAll drops every connection (their processes are stopped)
 * @property {() => Promise<void>} close
 */

/**
 * Starts a wsh server.
 * @param {WshServerOptions} [options]
 * @returns {Promise<WshServer>}
 */
export async function createWshServer(options = {}) {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const pty =
    options.pty === undefined || options.pty === 'auto'
      ? await loadNodePty(undefined, (reason) => log(`node-pty could not be loaded, terminals run on pipes: ${reason}`))
      : options.pty;
  const relayAllow = options.relayAllow ?? [];
  const origins = options.origins ?? DEFAULT_ORIGINS;
  const { keysFile, keys } = options;
  if (!keysFile && !keys) throw new Error(NO_KEYS_MESSAGE);
  /** @type {() => Promise<KeyEntry[]>} */
  const currentKeys = async () => {
    if (!keysFile) return keys ?? [];
    const { keys: found, problems } = await readKeysFile(keysFile);
    for (const p of problems) log(`keys file ${keysFile}, line ${p.line}: ${p.message} (line skipped)`);
    return [...(keys ?? []), ...found]; // keys given inline (--key) and the file's, read at every sign-in
  };
  if (keysFile) await currentKeys(); // a missing or unreadable file fails now, not at the first sign-in
  /** @type {import('./connection.js').ServerContext} */
  const context = {
    keys: currentKeys,
    pty,
    relayAllowed: relayMatcher(relayAllow),
    relayEnabled: relayAllow.length > 0,
    webtransport: typeof options.webtransport === 'string' ? options.webtransport : undefined,
    idleTimeoutMs: options.idleTimeoutMs ?? 10 * 60 * 1000,
    authTimeoutMs: options.authTimeoutMs ?? 10 * 1000,
    sessions: new Map(),
    log,
    mcp: new McpGateway(log),
    hooks: new HookGateway(log),
  };
  /** @type {Set<Connection>} */
  const open = new Set();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  let port = 0;

  /** Why a request is refused (Host or Origin), or null. @param {IncomingMessage} req */
  const refusal = (req) => {
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    if (!allowedHostNames(host, port, options.allowedHosts ?? []).has(hostHeader))
      return (
        `Host "${hostHeader}" is not this server's name (a DNS-rebinding defence); ` +
        `start it with --allowed-hosts ${hostHeader || 'NAME'} to allow it.`
      );
    const origin = req.headers.origin;
    if (origin !== undefined && !originAllowed(origin, origins))
      return `Origin "${origin}" is not allowed; start the server with --origins ${origin} to allow pages from it.`;
    return null;
  };

  const http = createServer((req, res) => {
    const why = refusal(req);
    if (why) {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end(`${why}\n`);
      return;
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === MCP_PATH) {
      context.mcp.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
      return;
    }
    if (path.startsWith(HOOK_PREFIX)) {
      context.hooks.handle(req, res, path.slice(HOOK_PREFIX.length)).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
      return;
    }
    if (options.httpHandler) {
      options.httpHandler(req, res);
      return;
    }
    if (path === WSH_PATH || path === '/') {
      res
        .writeHead(426, { 'content-type': 'text/plain; charset=utf-8', upgrade: 'websocket' })
        .end(`This is a wsh server: connect a wsh client to ws://${req.headers.host}${WSH_PATH}\n`);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
  });

  http.on('upgrade', (/** @type {IncomingMessage} */ req, /** @type {Duplex} */ socket, /** @type {Buffer} */ head) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const why = path === WSH_PATH ? refusal(req) : `No WebSocket endpoint at ${path}; wsh is at ${WSH_PATH}.`;
    if (why) {
      log(`refused a connection from ${req.socket.remoteAddress}: ${why}`);
      socket.end(
        `HTTP/1.1 ${path === WSH_PATH ? '403 Forbidden' : '404 Not Found'}\r\n` +
          `content-type: text/plain; charset=utf-8\r\nconnection: close\r\n\r\n${why}\n`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const connection = new Connection(ws, context, { host: req.headers.host ?? '', remote: String(req.socket.remoteAddress) });
      open.add(connection);
      ws.on('close', () => {
        open.delete(connection);
        connection.cleanup();
      });
      ws.on('error', () => ws.terminate());
    });
  });

  await new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => resolve(undefined));
  });
  const address = http.address();
  port = typeof address === 'object' && address ? address.port : 0;
  if (typeof options.webtransport === 'function') context.webtransport = options.webtransport(port);
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `ws://${urlHost}:${port}${WSH_PATH}`,
    mcpUrl: `http://${urlHost}:${port}${MCP_PATH}`,
    hookUrl: `http://${urlHost}:${port}${HOOK_PREFIX}`,
    port,
    host,
    pty: Boolean(pty),
    http,
    connections: () => open.size,
    disconnectAll: () => {
      for (const c of open) c.socket.terminate();
    },
    close: async () => {
      for (const c of open) c.socket.terminate();
      await new Promise((resolve) => http.close(() => resolve(undefined)));
    },
  };
}

/**
 * The Host header values this server answers to.
 * @param {string} host @param {number} port @param {string[]} extra
 */
export function allowedHostNames(host, port, extra) {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]', host.includes(':') ? `[${host}]` : host, ...extra.map((h) => h.toLowerCase())]);
  const out = new Set();
  for (const n of names) {
    if (/:\d+$/.test(n) && !n.endsWith(']')) out.add(n);
    else {
      out.add(`${n}:${port}`);
      if (port === 80) out.add(n);
    }
  }
  return out;
}

/** @param {string} origin @param {string[]} allowed */
export function originAllowed(origin, allowed) {
  const o = origin.toLowerCase();
  return allowed.some((a) => {
    const rule = a.toLowerCase().replace(/\/$/, '');
    if (rule === '*') return true;
    if (rule.endsWith(':*'))
      return (o.startsWith(`${rule.slice(0, -2)}:`) && /^\d+$/.test(o.slice(rule.length - 1))) || o === rule.slice(0, -2);
    return o === rule;
  });
}
