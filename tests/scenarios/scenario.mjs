// What the PRD scenario tests (tests/scenarios/*.test.mjs) share: a user's turn in the chat with
// the model's side of it scripted, answering the approval dialogs as the user would; the tool
// results the app recorded; the workspace's files as OPFS holds them; a small web site of the
// test's own for web_fetch. Every browser and server still comes from tests/browser/fixture.mjs.
import { createServer } from 'node:http';
import { readWorkspaceFile, saveSettings, sendMessage } from '../browser/helpers.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

/** @typedef {import('playwright-core').Page} Page */
/** @typedef {import('../fixtures/llm-server.mjs').ScriptedResponse} ScriptedResponse */
/** @typedef {{enqueue: (...r: ScriptedResponse[]) => void}} Llm */

/**
 * One turn of the user's: the model's replies are queued, the message is typed and sent, and
 * every approval dialog that opens is answered (`answer`: 'Always allow' where offered, else
 * 'Allow once'; or 'Deny'). Resolves, once the final reply `done` is on screen, to the tool names
 * whose approval was asked, in order.
 * @param {Page} page @param {Llm} llm @param {string} text @param {ScriptedResponse[]} script
 * @param {string} done text of the final reply
 * @param {{answer?: 'allow' | 'once' | 'deny', send?: () => Promise<unknown>}} [options] `send`: how the turn starts instead
 *   of typing `text` (e.g. a Retry button)
 */
export async function turn(page, llm, text, script, done, options = {}) {
  llm.enqueue(...script);
  if (options.send) await options.send();
  else await sendMessage(page, text);
  const approval = page.getByRole('dialog', { name: /^Allow “/ });
  const reply = page.locator('.msg.assistant:not(.streaming) .msg-body', { hasText: done });
  /** @type {string[]} */
  const asked = [];
  for (;;) {
    await Promise.race([approval.waitFor(), reply.waitFor()]);
    if (!(await approval.isVisible())) break;
    const name = /^Allow “(.+?)”/.exec(await approval.locator('h2').innerText())?.[1];
    // This dialog, by its title's id: the next call's may open as soon as it closes.
    const shown = page.locator(`dialog[aria-labelledby="${await approval.getAttribute('aria-labelledby')}"]`);
    asked.push(name ?? '?');
    const always = approval.getByRole('button', { name: 'Always allow' });
    if (options.answer === 'deny') await approval.getByRole('button', { name: 'Deny' }).click();
    else if (options.answer !== 'once' && (await always.count())) await always.click();
    else await approval.getByRole('button', { name: 'Allow once' }).click();
    await shown.waitFor({ state: 'detached' });
  }
  return asked;
}

/**
 * The results of the tool calls of the open conversation, by call id ({ok, result}).
 * @param {Page} page
 * @returns {Promise<Record<string, {ok: boolean, result: string}>>}
 */
export async function toolResults(page) {
  const text = (await readWorkspaceFile(page, '{conversation}/events.jsonl')) ?? '';
  /** @type {Record<string, {ok: boolean, result: string}>} */
  const out = {};
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const e = JSON.parse(line);
    if (e.type === 'tool_result') out[e.data.toolCallId] = { ok: e.data.ok, result: String(e.data.result) };
  }
  return out;
}

/**
 * The names in a folder of the open workspace (empty when there is none).
 * @param {Page} page @param {string} path relative to the workspace
 * @returns {Promise<string[]>}
 */
export function listWorkspace(page, path) {
  return page.evaluate(async (p) => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    try {
      return (await fs.list(`clawser_workspaces/${location.hash.split('/')[1]}/${p}`)).map((e) => e.name).sort();
    } catch {
      return [];
    } finally {
      fs.terminate();
    }
  }, path);
}

/** @param {Page} page @param {string} path */
export const workspaceFile = (page, path) => readWorkspaceFile(page, path);

/**
 * A web site of the test's own on 127.0.0.1 (what web_fetch reads): path → text; every request's
 * path is kept in `hits`. Closed through `fx.defer`.
 * @param {{defer: (fn: () => unknown) => void}} fx @param {Record<string, string>} pages
 */
export async function startSite(fx, pages) {
  /** @type {string[]} */
  const hits = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const body = pages[req.url ?? ''];
    res.writeHead(body === undefined ? 404 : 200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' });
    res.end(body ?? 'not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  // Its keep-alive connections from the browser are cut, so closing does not wait for them.
  fx.defer(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  );
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  return { hits, host: `127.0.0.1:${port}`, url: `http://127.0.0.1:${port}` };
}

/**
 * In the Settings dialog, as the user: lets the agent reach `host` (a private address, as the
 * test's own site is).
 * @param {Page} page @param {string} host
 */
export async function allowPrivateHost(page, host) {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  await dialog.getByLabel('Private hosts the agent may reach').fill(host);
  await saveSettings(page);
}

/** The workspace's id, from the page's address. @param {Page} page */
export const workspaceId = (page) => decodeURIComponent(new URL(page.url()).hash.split('/')[1] ?? '');

/**
 * The workspace's Git history, newest first: each commit's message and the paths it changed.
 * @param {Page} page
 * @returns {Promise<{message: string, paths: string[]}[]>}
 */
export function gitLog(page) {
  return page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { WorkspaceGit } = await import('/web/git/git.js');
    const fs = new OpfsFileSystem();
    try {
      const repo = new WorkspaceGit(new ScopedFileSystem(fs, `clawser_workspaces/${location.hash.split('/')[1]}`));
      if (!(await repo.isRepo())) return [];
      const out = [];
      for (const c of await repo.log()) out.push({ message: c.message, paths: (await repo.diffCommit(c.oid)).map((d) => d.path) });
      return out;
    } finally {
      fs.terminate();
    }
  });
}

/**
 * Waits until the turn that began with `text` is committed (the app commits a turn's files just
 * after its reply), so what comes next (a browser restart, a restore) finds it in the history.
 * @param {Page} page @param {string} text
 */
export async function committed(page, text) {
  const message = `Agent: ${text.replace(/\s+/g, ' ').trim().slice(0, 40)}`;
  await waitUntil(async () => (await gitLog(page)).some((c) => c.message.startsWith(message)), `the commit of "${message}"`);
}
