// Clawser as an MCP server (issue 35 §4): an outside client's `tools/call` through the wsh
// server's /mcp and a real Clawser tab in Chromium that exposes its workspace (set up through the
// Remote panel as a user does), against the in-process wsh server on 127.0.0.1. The client is a
// plain JSON-RPC POST (what any MCP client sends); the tab reports the call's own time (the
// ToolRunner's checks and the tool's run, `_meta` dev.clawser/toolMs), and the overhead is the
// round trip above it: the HTTP hop, the server, the wsh frames both ways and the tab's dispatch.
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createWshServer } from '../web/packages/wsh/server/index.js';
import { launchBrowser, showWorkspace, startApp, writeWorkspaceFile } from '../tests/browser/helpers.mjs';
import { waitUntil } from '../tests/fixtures/wait.mjs';

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (/** @type {number} */ x) => Math.round(x * 1000) / 1000;

export async function mcpServeBench() {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-serve-bench-'));
  const keysFile = join(dir, 'keys');
  await writeFile(keysFile, '');
  const server = await createWshServer({ keysFile, pty: null, log: () => {} });
  const app = await startApp();
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(60_000);
    await showWorkspace(page, app.url);
    await writeWorkspaceFile(page, 'bench.txt', 'x'.repeat(1000));
    await page.getByRole('button', { name: 'Remote', exact: true }).click();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('bench');
    await page.getByRole('textbox', { name: /wsh URL/ }).fill(server.url);
    await page.getByRole('button', { name: 'Add machine' }).click();
    const field = page.getByRole('textbox', { name: 'Public key line of bench' });
    await waitUntil(async () => (await field.inputValue()).startsWith('ssh-ed25519 '), 'the key line');
    await appendFile(keysFile, `${await field.inputValue()}\n`);
    const section = page.getByRole('region', { name: 'Expose this workspace over MCP' });
    await section.getByRole('combobox', { name: /Machine whose wsh server/ }).selectOption('bench');
    await section.getByRole('checkbox', { name: /^fs_read / }).check();
    await section.getByRole('button', { name: 'Create token' }).click();
    const shown = section.getByRole('textbox', { name: 'New MCP token (shown once)' });
    await waitUntil(async () => (await shown.inputValue()).startsWith('clawser_mcp_'), 'the token');
    const token = await shown.inputValue();
    await section.getByRole('button', { name: 'Start exposing' }).click();
    await section.getByText('Exposed through', { exact: false }).waitFor();

    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` };
    let id = 1;
    const call = async () => {
      const res = await fetch(server.mcpUrl, {
        method: 'POST',
        headers: { ...headers, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: id++,
          method: 'tools/call',
          params: { name: 'fs_read', arguments: { path: 'bench.txt' } },
        }),
      });
      const body = await res.json();
      if (body.error || body.result.isError) throw new Error(`mcp-serve bench: the call failed: ${JSON.stringify(body).slice(0, 300)}`);
      return Number(body.result._meta['dev.clawser/toolMs']);
    };
    // Every call counts against the workspace's autonomy limit (100 actions an hour by default), as the agent's do.
    for (let i = 0; i < 10; i++) await call();
    /** @type {number[]} */
    const total = [];
    /** @type {number[]} */
    const own = [];
    for (let i = 0; i < 85; i++) {
      const t = performance.now();
      const toolMs = await call();
      total.push(performance.now() - t);
      own.push(toolMs);
    }
    const over = total.map((t, i) => t - own[i]);
    return { mcpServeCallMs: round(median(total)), mcpServeToolMs: round(median(own)), mcpServeCallOverheadMs: round(median(over)) };
  } finally {
    await browser.close();
    await app.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) console.log(await mcpServeBench());
