// MCP (issue 15), in Node against server-everything on 127.0.0.1: the client's overhead on a
// `tools/call` round trip over the server's own time, measured as the same JSON-RPC request sent
// by hand (fetch, same session headers) — the difference is what the client adds.
import { performance } from 'node:perf_hooks';
import { McpClient } from '../web/mcp/client.js';
import { startEverythingServer } from '../tests/fixtures/mcp-everything.mjs';

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (/** @type {number} */ x) => Math.round(x * 1000) / 1000;

export async function mcpBench() {
  const server = await startEverythingServer();
  try {
    const client = new McpClient({ url: server.url });
    await client.connect();
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': String(client.sessionId),
      'mcp-protocol-version': String(client.protocolVersion),
    };
    let id = 1_000_000;
    const raw = async () => {
      const res = await fetch(server.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'echo', arguments: { message: 'bench' } } }),
      });
      await res.text();
    };
    const viaClient = () => client.callTool('echo', { message: 'bench' });
    for (let i = 0; i < 50; i++) {
      await raw();
      await viaClient();
    }
    // Interleaved pairs (the same moment's load on both), the median of their differences, unclamped.
    /** @type {number[]} */
    const own = [];
    /** @type {number[]} */
    const diff = [];
    for (let i = 0; i < 700; i++) {
      const t0 = performance.now();
      await raw();
      const t1 = performance.now();
      await viaClient();
      const t2 = performance.now();
      own.push(t1 - t0);
      diff.push(t2 - t1 - (t1 - t0));
    }
    await client.close();
    return { mcpToolCallServerMs: round(median(own)), mcpToolCallOverheadMs: round(median(diff)) };
  } finally {
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await mcpBench(), null, 1));
