// Terminals: with node-pty installed the server runs a terminal on a PTY and says so ('pty');
// without it, on pipes ('pipe'), also said. Here the server's plumbing (the size it spawns with, the
// resize and input it passes on, exec staying on pipes) runs against a stand-in that records what it
// was asked; pty-real.test.js runs a terminal on the real node-pty (or, where it did not build, pipes).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { WshClient } from '../node.js';
import { loadNodePty } from '../server/processes.js';
import { makeKey, startServer } from './helpers.js';

/** A stand-in for node-pty: records what it was asked, answers input, exits on "exit\r". */
function fakeNodePty() {
  /** @type {{file: string, args: string[], options: {cols: number, rows: number, cwd: string, name: string}}[]} */
  const spawned = [];
  /** @type {[number, number][]} */
  const resized = [];
  return {
    spawned,
    resized,
    /** @param {string} file @param {string[]} args @param {{cols: number, rows: number, cwd: string, name: string}} options */
    spawn(file, args, options) {
      spawned.push({ file, args, options });
      // A real process, so the pid the server may signal is one of ours.
      const holder = spawn('sleep', ['1000'], { detached: true, stdio: 'ignore' });
      /** @type {(d: string) => void} */
      let onData = () => {};
      /** @type {(e: {exitCode: number, signal?: number}) => void} */
      let onExit = () => {};
      queueMicrotask(() => onData(`started ${options.cols}x${options.rows} in ${options.cwd}\r\n`));
      return {
        pid: /** @type {number} */ (holder.pid),
        onData: (/** @type {(d: string) => void} */ cb) => {
          onData = cb;
        },
        onExit: (/** @type {(e: {exitCode: number, signal?: number}) => void} */ cb) => {
          onExit = cb;
        },
        write: (/** @type {string | Uint8Array} */ data) => {
          const text = typeof data === 'string' ? data : new TextDecoder().decode(data);
          if (text === 'exit\r') {
            holder.kill('SIGKILL');
            onExit({ exitCode: 0 });
          } else onData(`echo:${text}`);
        },
        resize: (/** @type {number} */ cols, /** @type {number} */ rows) => {
          resized.push([cols, rows]);
          onData(`resized ${cols}x${rows}\r\n`);
        },
        kill: () => holder.kill('SIGKILL'),
      };
    },
  };
}

/** Reads parts until `text` has arrived. @param {AsyncIterator<{data: Uint8Array}>} parts @param {string} text */
async function readUntil(parts, text) {
  let seen = '';
  while (!seen.includes(text)) {
    const next = await parts.next();
    if (next.done) throw new Error(`ended before "${text}"; saw ${JSON.stringify(seen)}`);
    seen += new TextDecoder().decode(next.value.data);
  }
  return seen;
}

test('loadNodePty: node-pty missing (its import forced to fail) answers null; present, its module', async () => {
  /** @type {string[]} */
  const asked = [];
  const missing = async (/** @type {string} */ name) => {
    asked.push(name);
    throw new Error(`Cannot find package '${name}'`); // what import() says when it is not installed
  };
  /** @type {string[]} */
  const reasons = [];
  assert.equal(await loadNodePty(missing, (r) => reasons.push(r)), null);
  assert.deepEqual(asked, ['node-pty']);
  assert.deepEqual(reasons, ["Cannot find package 'node-pty'"], 'why it is missing is told');
  // Control: the same loader with node-pty importable hands its module over (default export or not).
  const fake = fakeNodePty();
  assert.equal(await loadNodePty(async () => ({ default: fake })), fake);
  assert.equal(await loadNodePty(async () => fake), fake);
  // Whatever this machine has: the real loader answers null or a module with spawn, never throws.
  const real = await loadNodePty();
  assert.ok(real === null || typeof real.spawn === 'function');
});

test('with node-pty, a terminal runs on a PTY: mode "pty", its size, resize and input reach it', async () => {
  const fake = fakeNodePty();
  const key = await makeKey();
  const { server } = await startServer([key.entry], { pty: /** @type {any} */ (fake) }); // any: a stand-in with node-pty's shape
  const client = await WshClient.connect(server.url, { key: key.pair });
  assert.equal(client.server?.pty, true);
  const term = await client.spawn(undefined, { pty: { cols: 120, rows: 40 } }); // no command: the login shell
  assert.equal(term.mode, 'pty');
  const parts = term[Symbol.asyncIterator]();
  assert.match(await readUntil(parts, 'started'), /started 120x40/);
  await term.resize(100, 30);
  await readUntil(parts, 'resized 100x30');
  assert.deepEqual(fake.resized, [[100, 30]]);
  await term.write('ls\r');
  await readUntil(parts, 'echo:ls');
  await term.write('exit\r');
  assert.deepEqual(await term.exited, { exitCode: 0, signal: null });
  assert.equal(fake.spawned[0].options.name, 'xterm-256color');
  assert.equal(fake.spawned[0].file, process.env.SHELL || '/bin/sh');
  assert.deepEqual(fake.spawned[0].args, ['-l']);
  // A plain exec on the same server still uses pipes: a PTY only when a terminal is asked for.
  const plain = await client.spawn('echo piped');
  assert.equal(plain.mode, 'pipe');
  client.close();
});

test('control: without node-pty the same terminal request runs on pipes, says "pipe", and works', async () => {
  const key = await makeKey();
  const { server } = await startServer([key.entry], { pty: null });
  const client = await WshClient.connect(server.url, { key: key.pair });
  assert.equal(client.server?.pty, false);
  const term = await client.spawn('read line; echo "got $line"', { pty: { cols: 120, rows: 40 } });
  assert.equal(term.mode, 'pipe');
  await term.resize(100, 30); // accepted, nothing to resize
  await term.write('hello\n');
  assert.equal(await readUntil(term[Symbol.asyncIterator](), 'got hello'), 'got hello\n');
  assert.deepEqual(await term.exited, { exitCode: 0, signal: null });
  client.close();
});
