#!/usr/bin/env node
// `npx wsh-server --key "ssh-ed25519 …"` (or `--keys FILE`): the wsh server on this machine. Its first line on stdout is the
// URL to connect to; everything else (who signed in, refusals, relay requests) goes to stderr.
import { parseArgs } from 'node:util';
import { NO_KEYS_MESSAGE, createWshServer } from '../server/index.js';
import { parseKeyLine } from '../server/keys-file.js';

const HELP = `Usage: wsh-server --key "ssh-ed25519 AAAA… name" [options]
       wsh-server --keys FILE [options]

  --key LINE            a public key allowed in, as Clawser's Remote panel shows it (repeatable); its options
                        go first, as in a keys file: --key "dirs=~/code commands=git,ls ssh-ed25519 AAAA… name"
  --keys FILE           public keys allowed in, one a line, with what each may do (see README); re-read at every
                        sign-in, so a key added there counts at once
  --port N              port to listen on (default 0: any free port; the URL says which)
  --host ADDR           address to bind (default 127.0.0.1: this machine only)
  --relay-allow H,...   hosts the HTTP relay may forward to (host, host:port, *.domain); none: no relay
  --origins O,...       browser origins allowed to connect (default: pages on localhost/127.0.0.1);
                        an exact origin such as https://app.example, or http://host:* for any port
  --allowed-hosts H,... more names clients may reach this server by (Host header check)
  --idle-timeout SEC    close a signed-in connection with nothing open after SEC seconds (default 600)
  --no-pty              never use a PTY, even if node-pty is installed
  --webtransport URL    advertise a WebTransport endpoint (served by a front end)
  --help                this text

The same port also serves MCP (Streamable HTTP) at /mcp for the tools a signed-in client exposes
(Clawser's "Expose this workspace over MCP"), to outside MCP clients holding a token it made.
`;

/** @param {string | undefined} value */
const list = (value) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** What the terminals are, said on start. @param {boolean} pty @param {boolean | undefined} off */
function terminals(pty, off) {
  if (pty) return 'PTY (node-pty)';
  if (off) return 'pipes (--no-pty)';
  return (
    'pipes (node-pty is not installed here, or did not build: no prompt, no full-screen programs; a real terminal ' +
    'needs node-pty built where wsh-server is installed: `npm install node-pty`, install scripts allowed, a C++ toolchain)'
  );
}

try {
  const { values } = parseArgs({
    options: {
      keys: { type: 'string' },
      key: { type: 'string', multiple: true },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      'relay-allow': { type: 'string' },
      origins: { type: 'string' },
      'allowed-hosts': { type: 'string' },
      'idle-timeout': { type: 'string', default: '600' },
      'no-pty': { type: 'boolean', default: false },
      webtransport: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  const inline = [];
  for (const line of values.key ?? []) {
    try {
      inline.push(await parseKeyLine(line.trim()));
    } catch (err) {
      throw new Error(`--key "${line}": ${/** @type {Error} */ (err).message}`);
    }
  }
  if (!values.keys && inline.length === 0) throw new Error(NO_KEYS_MESSAGE);
  const port = Number(values.port);
  const idle = Number(values['idle-timeout']);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port ${values.port} is not a port number.`);
  if (!(idle > 0)) throw new Error(`--idle-timeout ${values['idle-timeout']} is not a number of seconds.`);
  const server = await createWshServer({
    host: values.host,
    port,
    keysFile: values.keys,
    keys: inline,
    relayAllow: list(values['relay-allow']),
    origins: values.origins === undefined ? undefined : list(values.origins),
    allowedHosts: list(values['allowed-hosts']),
    idleTimeoutMs: idle * 1000,
    pty: values['no-pty'] ? null : 'auto',
    webtransport: values.webtransport,
  });
  process.stdout.write(`${server.url}\n`);
  const keySources = [inline.length ? `${inline.length} given with --key` : '', values.keys ? `from ${values.keys}` : ''];
  const relay = list(values['relay-allow']);
  process.stderr.write(
    `wsh-server: listening on ${server.url}; keys: ${keySources.filter(Boolean).join(' and ')}; ` +
      `terminals: ${terminals(server.pty, values['no-pty'])}; ` +
      `relay: ${relay.length ? relay.join(', ') : 'off'}; MCP for a workspace Clawser exposes: ${server.mcpUrl}\n`,
  );
  const stop = () => server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (err) {
  process.stderr.write(`wsh-server: ${/** @type {Error} */ (err).message}\n`);
  process.exit(2);
}
