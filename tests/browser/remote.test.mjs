// Issue 35 §3: Clawser reaches the user's own machine through the REAL wsh server
// (web/packages/wsh/bin/wsh-server.js, spawned on 127.0.0.1 with a keys file this test writes
// from the key line the Remote panel shows). The panel adds a machine, shows its key line (Copy),
// tests the connection — refused while the key is not listed, connected once it is; the scripted
// model's remote_exec asks first (denied: nothing runs; approved: it runs, its output reaches the
// model capped with the cap stated, and the turn is tainted); remote_put / remote_get move a
// binary file both ways byte-exact; Remove asks first (Cancel keeps the machine and its key) and deletes
// the machine and its key from IndexedDB.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readWorkspaceFile, sendMessage, waitInPage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

const fx = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});
const { app, llm, browser, page } = fx;

const dir = await fx.tempDir('clawser-remote-');
const keysFile = join(dir, 'keys');
await writeFile(keysFile, '# the keys the browser test pastes from the Remote panel\n');
const BIN = fileURLToPath(new URL('../../web/packages/wsh/bin/wsh-server.js', import.meta.url));
const server = spawn(process.execPath, [BIN, '--port', '0', '--keys', keysFile, '--no-pty'], { stdio: ['ignore', 'pipe', 'pipe'] });
/** @type {string[]} */
const serverLog = [];
server.stderr.setEncoding('utf8').on('data', (d) => serverLog.push(d));
fx.defer(() => {
  server.kill();
});
/** The first line the server prints is its URL. */
const url = await new Promise((resolve, reject) => {
  server.once('exit', (code) => reject(new Error(`wsh-server exited (${code}): ${serverLog.join('')}`)));
  createInterface({ input: server.stdout }).once('line', resolve);
});
assert.match(url, /^ws:\/\/127\.0\.0\.1:\d+\/wsh$/);

/** The key line the panel shows for a machine, once it is made. @param {string} name */
async function keyLineOf(name) {
  const field = page.getByRole('textbox', { name: `Public key line of ${name}` });
  await waitUntil(async () => (await field.inputValue()).startsWith('ssh-ed25519 '), `the key line of ${name}`);
  return field.inputValue();
}

const machine = (/** @type {string} */ name) => page.getByRole('listitem', { name, exact: true });

/** The last tool result the model was sent. */
const lastToolResult = () => {
  const messages = llm.requests.at(-1)?.body.messages ?? [];
  return String(messages.filter((/** @type {any} */ m) => m.role === 'tool').at(-1)?.content ?? '');
};

test('the Remote panel adds a machine with its own key; the key line is shown (Copy); the test is refused until the key is \
listed', async () => {
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(app.url).origin });
  await page.getByRole('button', { name: 'Remote', exact: true }).click();
  await page.getByRole('textbox', { name: 'Name' }).fill('laptop');
  await page.getByRole('textbox', { name: /wsh URL/ }).fill('http://127.0.0.1:1/wsh');
  await page.getByRole('button', { name: 'Add machine' }).click();
  await page.getByText('A wsh address starts with ws:// or wss://', { exact: false }).waitFor();
  assert.equal(await machine('laptop').count(), 0, 'a wrong address adds nothing');

  await page.getByRole('textbox', { name: /wsh URL/ }).fill(url);
  await page.getByRole('button', { name: 'Add machine' }).click();
  const line = await keyLineOf('laptop');
  assert.match(line, /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5\S+ clawser-laptop$/);
  await page.getByRole('button', { name: 'Copy the key line of laptop' }).click();
  await page.getByText('Copied the key line of “laptop”.').waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), line);
  // The command to run on the machine: npx with this app's tarball, the URL's port, this key.
  const command = await machine('laptop').getByRole('textbox', { name: 'Command to run on laptop' }).inputValue();
  const port = new URL(url).port;
  const tgz = `${new URL(app.url).origin}/web/vendor/wsh-server.tgz`;
  assert.equal(command, `npx --yes --package=${tgz} wsh-server --port ${port} --key "${line}"`);
  await page.getByRole('button', { name: 'Copy the command to run on laptop' }).click();
  await page.getByText('Copied the command to run on “laptop”.').waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), command);
  const served = await fetch(tgz);
  assert.equal(served.status, 200, 'the app serves the tarball the command names');

  // The private key stays in IndexedDB, not extractable.
  const stored = await page.evaluate(async () => {
    const { IndexedDbKeyStore } = await import('/web/packages/wsh/index.js');
    const store = new IndexedDbKeyStore();
    const names = await store.list();
    const pair = await store.get(names[0]);
    return { names, extractable: pair?.privateKey.extractable };
  });
  assert.equal(stored.names.length, 1);
  assert.match(stored.names[0], /^clawser-remote:/);
  assert.equal(stored.extractable, false);

  // Not listed in the keys file yet: refused, and said so.
  await machine('laptop').getByRole('button', { name: 'Test the connection to laptop' }).click();
  await machine('laptop')
    .getByText(/^Not connected \(auth_failed\): .*key/)
    .waitFor();
  assert.match(await machine('laptop').getByText('never used').innerText(), /never used/);

  // Control: once the line is in the keys file, the same test signs in.
  await appendFile(keysFile, `${line}\n`);
  await machine('laptop').getByRole('button', { name: 'Test the connection to laptop' }).click();
  await machine('laptop').getByText('Connected: signed in as “clawser-laptop”, with pipes (no PTY on the server).').waitFor();
  await machine('laptop')
    .getByText(/last used/)
    .waitFor();

  // A second machine whose key is never listed (the agent's refusal below).
  await page.getByRole('textbox', { name: 'Name' }).fill('stranger');
  await page.getByRole('textbox', { name: /wsh URL/ }).fill(url);
  await page.getByRole('button', { name: 'Add machine' }).click();
  assert.notEqual(await keyLineOf('stranger'), line, 'each machine has a key of its own');
  await page.getByRole('button', { name: 'Back to chat' }).click();
});

test('remote_exec asks first: denied, nothing runs and nothing taints; approved, it runs, its output reaches the model capped with \
the cap stated, and the turn is tainted', async () => {
  const denied = join(dir, 'denied-marker');
  const ran = join(dir, 'ran-marker');
  llm.enqueue(
    { toolCalls: [{ id: 'x1', name: 'remote_exec', arguments: { machine: 'laptop', command: `touch ${denied}` } }] },
    { toolCalls: [{ id: 'x2', name: 'memory_store', arguments: { key: 'plain', content: 'Nothing came from outside.' } }] },
    { text: 'Not run then.' },
  );
  await sendMessage(page, 'touch the marker on my laptop');
  const ask = page.getByRole('dialog', { name: 'Allow “remote_exec”?' });
  await ask.waitFor();
  await ask.getByText(`Run on “laptop” (${url})`, { exact: false }).waitFor();
  await ask.getByRole('button', { name: 'Deny' }).click();
  // Control for the taint below: the denied call brought nothing in, so this question names no untrusted content.
  const plain = page.getByRole('dialog', { name: 'Allow “memory_store”?' }).filter({ hasText: 'Nothing came from outside.' });
  await plain.waitFor();
  assert.equal(await plain.getByText('Untrusted content.').count(), 0);
  await plain.getByRole('button', { name: 'Deny' }).click();
  await page.locator('.msg.assistant', { hasText: 'Not run then.' }).waitFor();
  assert.equal(existsSync(denied), false, 'a denied call runs nothing on the machine');

  llm.enqueue(
    {
      toolCalls: [
        {
          id: 'x3',
          name: 'remote_exec',
          arguments: { machine: 'laptop', command: `touch ${ran} && echo hello-remote && head -c 30000 /dev/zero | tr '\\0' a` },
        },
      ],
    },
    { toolCalls: [{ id: 'x4', name: 'memory_store', arguments: { key: 'remote', content: 'Do what the laptop said.' } }] },
    { text: 'Ran it.' },
  );
  await sendMessage(page, 'now run it for real');
  const again = page.getByRole('dialog', { name: 'Allow “remote_exec”?' });
  await again.waitFor();
  await again.getByRole('button', { name: 'Allow once' }).click();
  const tainted = page.getByRole('dialog', { name: 'Allow “memory_store”?' }).filter({ hasText: 'Do what the laptop said.' });
  await tainted.waitFor();
  await tainted.getByText('Untrusted content.').waitFor();
  await tainted.getByText('the output of a command run on a remote machine', { exact: false }).waitFor();
  assert.equal(await tainted.getByRole('button', { name: 'Always allow' }).count(), 0);
  await tainted.getByRole('button', { name: 'Deny' }).click();
  await page.locator('.msg.assistant', { hasText: 'Ran it.' }).waitFor();
  assert.equal(existsSync(ran), true, 'the approved command ran on the machine');

  const sent = llm.requests.at(-1)?.body.messages.filter((/** @type {any} */ m) => m.role === 'tool' && m.tool_call_id === 'x3');
  const output = String(sent?.[0]?.content ?? '');
  assert.match(output, /exit code 0\n--- stdout ---\nhello-remote\na{19987}\n/);
  assert.match(output, /\[Output capped at 20000 characters: 10013 more characters not shown\.\]/);
  assert.doesNotMatch(output, /a{19988}/, 'no more than the cap reaches the model');

  const log = /** @type {string} */ (await readWorkspaceFile(page, '{conversation}/events.jsonl'));
  const call = log
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((e) => e.type === 'tool_call' && e.data.id === 'x4');
  assert.equal(call?.data.taint?.[0]?.tool, 'remote_exec');
});

test('remote_get and remote_put move a binary file both ways byte-exact; a machine whose key is not listed is refused, nothing \
run', async () => {
  const original = new Uint8Array(70_000).map((_, i) => (i * 7919 + (i >> 8)) & 0xff);
  await writeFile(join(dir, 'in.bin'), original);
  const back = join(dir, 'out.bin');
  llm.enqueue(
    { toolCalls: [{ id: 'g1', name: 'remote_get', arguments: { machine: 'laptop', from: join(dir, 'in.bin'), to: 'bin/got.bin' } }] },
    { toolCalls: [{ id: 'p1', name: 'remote_put', arguments: { machine: 'laptop', from: 'bin/got.bin', to: back } }] },
    { toolCalls: [{ id: 's1', name: 'remote_exec', arguments: { machine: 'stranger', command: `touch ${join(dir, 'stranger')}` } }] },
    { text: 'Copied both ways.' },
  );
  await sendMessage(page, 'copy the file there and back');
  for (const name of ['remote_get', 'remote_put', 'remote_exec']) {
    const ask = page.getByRole('dialog', { name: `Allow “${name}”?` });
    await ask.waitFor();
    await ask.getByRole('button', { name: 'Allow once' }).click();
  }
  await page.locator('.msg.assistant', { hasText: 'Copied both ways.' }).waitFor();

  const inWorkspace = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    try {
      return [...(await fs.readBytes(`clawser_workspaces/${location.hash.split('/')[1]}/bin/got.bin`))];
    } finally {
      fs.terminate();
    }
  });
  assert.deepEqual(new Uint8Array(inWorkspace), original, 'remote_get: the workspace has the same bytes');
  assert.deepEqual(new Uint8Array(await readFile(back)), original, 'remote_put: the machine has the same bytes');

  assert.match(lastToolResult(), /^Running the command on “stranger” failed \(auth_failed\): .*key/);
  assert.equal(existsSync(join(dir, 'stranger')), false, 'an unlisted key runs nothing');
});

/** Waits until the visible terminal shows `text`. @param {string | RegExp} text */
async function terminalShows(text) {
  const pattern = typeof text === 'string' ? { source: text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags: '' } : text;
  await waitInPage(
    page,
    ({ source, flags }) => {
      const rows = [...document.querySelectorAll('.terminal-host .xterm-rows')].map((r) => /** @type {HTMLElement} */ (r).innerText);
      return Promise.resolve(new RegExp(source, flags).test(rows.join('\n')));
    },
    { source: pattern.source, flags: pattern.flags },
    { what: `the terminal to show ${text}` },
  );
}

/** Types a line into the terminal and presses Enter. @param {string} line */
async function typeLine(line) {
  await page.locator('.terminal-host:visible .xterm-helper-textarea').focus();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

test('the Terminal: wsh connect opens a shell on the machine, lines run there, Ctrl-C stops what runs there, and the local shell \
comes back when it ends', async () => {
  await page.keyboard.press('Alt+KeyT');
  await page.getByRole('heading', { name: 'Terminal' }).waitFor();
  await page.locator('.terminal-host .xterm-helper-textarea').waitFor();
  await typeLine('wsh connect nowhere');
  await terminalShows('wsh: No machine is named “nowhere”. The machines: laptop, stranger.');

  await typeLine('wsh connect laptop');
  await terminalShows('Connected to laptop: a shell on pipes');
  await typeLine(`echo "remote-$((40+2)) in $(pwd)" && touch ${join(dir, 'terminal-marker')}`);
  await terminalShows(/remote-42 in \//);
  assert.equal(existsSync(join(dir, 'terminal-marker')), true, 'the line ran on the machine');

  await typeLine('sleep 300');
  await page.keyboard.press('Control+C');
  await terminalShows(/\[The session on laptop ended \(exit code 130, SIGINT\)\.\]/);
  // Control: the local shell has the keys again (the remote one would not know `clawser`).
  await typeLine('clawser help > /dev/null && echo local-$((1+1))');
  await terminalShows('local-2');
});

test('the Terminal says when the connection to the machine drops, and the session ends with what to do', async () => {
  await typeLine('wsh connect laptop');
  await terminalShows(/Connected to laptop: a shell on pipes[^]*Connected to laptop: a shell on pipes/);
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill();
  await exited;
  await terminalShows('[The connection to laptop dropped: reconnecting…]');
  const screen = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('.terminal-host .xterm-rows')].map((r) => /** @type {HTMLElement} */ (r).innerText).join(''),
    );
  await terminalShows(/\[The session on laptop ended/);
  await waitUntil(
    async () => /The session on laptop ended: .+ Run wsh connect laptop for a new one\.\]/.test((await screen()).replace(/\n/g, '')),
    'the end said',
    { tries: 100 },
  ).catch(async (err) => {
    throw new Error(`${err.message}\n${await screen()}`);
  });
});

/** The machine keys kept in this browser's IndexedDB: stored name → the key blob of its public key line. */
const storedKeys = () =>
  page.evaluate(async () => {
    const { IndexedDbKeyStore, publicKeyLine } = await import('/web/packages/wsh/index.js');
    const store = new IndexedDbKeyStore();
    /** @type {Record<string, string>} */
    const out = {};
    for (const name of await store.list()) {
      const pair = await store.get(name);
      if (name.startsWith('clawser-remote:') && pair) out[name] = (await publicKeyLine(pair, 'x')).split(' ')[1];
    }
    return out;
  });

test('Remove asks first: Cancel keeps the machine and its key; Remove deletes both, and the panel says so', async () => {
  await page.getByRole('button', { name: 'Remote', exact: true }).click();
  const laptopBlob = (await keyLineOf('laptop')).split(' ')[1];
  const strangerBlob = (await keyLineOf('stranger')).split(' ')[1];
  const before = await storedKeys();
  assert.deepEqual(Object.values(before).sort(), [laptopBlob, strangerBlob].sort(), 'each machine has its key stored');

  await machine('stranger').getByRole('button', { name: 'Remove stranger' }).click();
  const ask = page.getByRole('dialog', { name: 'Remove “stranger”?' });
  await ask.getByText('Its key is deleted from this browser').waitFor();
  await ask.getByRole('button', { name: 'Cancel' }).click();
  await ask.waitFor({ state: 'hidden' });
  assert.equal(await machine('stranger').count(), 1, 'control: Cancel keeps the machine');
  assert.deepEqual(await storedKeys(), before, 'control: Cancel keeps its key');

  await machine('stranger').getByRole('button', { name: 'Remove stranger' }).click();
  await ask.getByRole('button', { name: 'Remove', exact: true }).click();
  await page.getByText('Removed “stranger” and its key.').waitFor();
  await machine('stranger').waitFor({ state: 'detached' });
  assert.equal(await machine('laptop').count(), 1, 'the other machine stays');
  assert.deepEqual(Object.values(await storedKeys()), [laptopBlob], 'its key is gone from IndexedDB; the other key stays');
});
