// Issue 35 §3: "the Terminal opens remote sessions: a real PTY, resize, Ctrl-C". The REAL wsh server
// (web/packages/wsh/bin/wsh-server.js) started as a user would, without --no-pty: node-pty is an
// optional dependency of the package, so where it installed and built the server's own lookup
// finds it and the Terminal's `wsh connect` gets a real terminal — `tty` names a /dev/pts device,
// `stty size` is the size of the Terminal on the page and follows it when the page is resized,
// Ctrl-C interrupts what runs in front and the shell stays. Where node-pty did not build, the same
// test asserts what the user is told instead (pipes, said by the server and the Terminal).
// remote.test.mjs covers the pipes session (--no-pty), the Remote panel and the agent's tools.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitInPage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

const fx = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});
const { page } = fx;

const dir = await fx.tempDir('clawser-remote-pty-');
const keysFile = join(dir, 'keys');
await writeFile(keysFile, '');
const BIN = fileURLToPath(new URL('../../web/packages/wsh/bin/wsh-server.js', import.meta.url));
const server = spawn(process.execPath, [BIN, '--port', '0', '--keys', keysFile], { stdio: ['ignore', 'pipe', 'pipe'] });
let serverLog = '';
server.stderr.setEncoding('utf8').on('data', (d) => {
  serverLog += d;
});
fx.defer(() => {
  server.kill();
});
/** The first line the server prints is its URL. */
const url = await new Promise((resolve, reject) => {
  server.once('exit', (code) => reject(new Error(`wsh-server exited (${code}): ${serverLog}`)));
  createInterface({ input: server.stdout }).once('line', resolve);
});
// Right after the URL the server says what its terminals are.
await waitUntil(() => Promise.resolve(serverLog.includes('terminals:')), 'the server to say what its terminals are');
const hasPty = /terminals: PTY \(node-pty\)/.test(serverLog);

/** The text of the visible terminal's rows. */
const screen = () =>
  page.evaluate(() =>
    [...document.querySelectorAll('.terminal-host .xterm-rows')].map((r) => /** @type {HTMLElement} */ (r).innerText).join('\n'),
  );

/** Waits until the visible terminal shows `pattern` @param {RegExp} pattern */
async function terminalShows(pattern) {
  await waitInPage(
    page,
    ({ source, flags }) => {
      const rows = [...document.querySelectorAll('.terminal-host .xterm-rows')].map((r) => /** @type {HTMLElement} */ (r).innerText);
      return Promise.resolve(new RegExp(source, flags).test(rows.join('\n')));
    },
    { source: pattern.source, flags: pattern.flags },
    { what: `the terminal to show ${pattern}` },
  );
  return /** @type {RegExpExecArray} */ (pattern.exec(await screen()));
}

/** Types a line into the terminal and presses Enter. @param {string} line */
async function typeLine(line) {
  await page.locator('.terminal-host:visible .xterm-helper-textarea').focus();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

/** The number of rows the visible xterm shows. */
const xtermRows = () => page.locator('.terminal-host:visible .xterm-rows > div').count();

test('wsh connect on a server with node-pty is a real terminal: tty is /dev/pts, stty size follows the Terminal, Ctrl-C \
interrupts; without node-pty, pipes, and both sides say so', async (t) => {
  t.diagnostic(`the server's terminals: ${hasPty ? 'PTY (node-pty)' : 'pipes (no node-pty here)'}`);
  // The machine and its key, as a user adds them; the key line goes into the server's keys file.
  await page.getByRole('button', { name: 'Remote', exact: true }).click();
  await page.getByRole('textbox', { name: 'Name' }).fill('laptop');
  await page.getByRole('textbox', { name: /wsh URL/ }).fill(url);
  await page.getByRole('button', { name: 'Add machine' }).click();
  const field = page.getByRole('textbox', { name: 'Public key line of laptop' });
  await waitUntil(async () => (await field.inputValue()).startsWith('ssh-ed25519 '), 'the key line of laptop');
  await appendFile(keysFile, `${await field.inputValue()}\n`);
  await page.getByRole('button', { name: 'Back to chat' }).click();

  await page.keyboard.press('Alt+KeyT');
  await page.getByRole('heading', { name: 'Terminal' }).waitFor();
  await page.locator('.terminal-host .xterm-helper-textarea').waitFor();
  await typeLine('wsh connect laptop');

  if (!hasPty) {
    assert.match(serverLog, /terminals: pipes \(node-pty is not installed here, or did not build/);
    await terminalShows(/Connected to laptop: a shell on pipes \(the server has no node-pty/);
    await typeLine('tty');
    await terminalShows(/not a tty/);
    return;
  }
  await terminalShows(/Connected to laptop: a shell on a real terminal\./);
  await typeLine('tty');
  await terminalShows(/\/dev\/pts\/\d+/);

  // The remote terminal has the Terminal's size, and follows it when the page gets smaller.
  await typeLine('echo "size-$((1+1)) $(stty size)"');
  const [, rows, cols] = (await terminalShows(/size-2 (\d+) (\d+)/)).map(Number);
  assert.equal(rows, await xtermRows(), 'stty size says the rows the Terminal shows');
  const viewport = /** @type {{width: number, height: number}} */ (page.viewportSize());
  await page.setViewportSize({ width: Math.round(viewport.width * 0.7), height: Math.round(viewport.height * 0.7) });
  await waitUntil(async () => (await xtermRows()) < rows, 'the Terminal to fit the smaller page');
  await typeLine('clear; echo "size-$((2+1)) $(stty size)"');
  const [, rows2, cols2] = (await terminalShows(/size-3 (\d+) (\d+)/)).map(Number);
  assert.equal(rows2, await xtermRows(), 'after the resize, stty size says the rows the Terminal shows now');
  assert.ok(rows2 < rows && cols2 < cols, `smaller: ${rows}x${cols} became ${rows2}x${cols2}`);
  t.diagnostic(`stty size: ${rows} ${cols}, then ${rows2} ${cols2}`);

  // Ctrl-C is a key the remote terminal turns into SIGINT for what runs in front; the shell stays.
  await typeLine('clear; sh -c \'echo "sleeping-$((2+2))"; exec sleep 300\'');
  await terminalShows(/sleeping-4/);
  await page.keyboard.press('Control+C');
  await typeLine('echo "after-$?-$((40+2))"');
  await terminalShows(/after-130-42/);
  assert.doesNotMatch(await screen(), /The session on laptop ended/);
  await typeLine('exit');
  await terminalShows(/\[The session on laptop ended/);
});
