// Terminals on the REAL node-pty, through the product path: the bin (`npx wsh-server`) started
// without --no-pty, so the server's own 'auto' lookup decides. node-pty is an optional dependency
// of the package: where it installed and built, a terminal is a real PTY (a /dev/pts device, its
// size and resize seen by stty/tput, Ctrl-C a key the terminal turns into SIGINT for what runs in
// front, the exit code back); where it did not, the same test asserts the pipes path and the
// server's message saying so. Both branches are real processes; which one runs is what
// `loadNodePty()` (the lookup 'auto' uses) finds on this machine.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WshClient } from '../node.js';
import { loadNodePty } from '../server/processes.js';
import { makeKey, tempDir } from './helpers.js';

/** @import { WshProcess } from '../client.js' */

const BIN = fileURLToPath(new URL('../bin/wsh-server.js', import.meta.url));

/** The bin with these keys and nothing about terminals: node-pty is used when the lookup finds it. @param {string} keyLine */
async function startBin(keyLine) {
  const child = spawn(process.execPath, [BIN, '--port', '0', '--key', keyLine], { stdio: ['ignore', 'pipe', 'pipe'] });
  test.after(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d;
  });
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', () => reject(new Error(`wsh-server exited first: ${stderr}`)));
  });
  // The line naming the terminals is written right after the URL.
  while (!stderr.includes('terminals:')) await once(child.stderr, 'data');
  return { child, url: /** @type {string} */ (url), stderr: () => stderr };
}

/** Reads a process's output; `until(re)` waits for `re` in what came after the last match. @param {WshProcess} proc */
function reader(proc) {
  const parts = proc[Symbol.asyncIterator]();
  let text = '';
  let from = 0;
  return {
    /** @param {RegExp} re @returns {Promise<RegExpExecArray>} */
    async until(re) {
      for (;;) {
        const found = re.exec(text.slice(from));
        if (found) {
          from += found.index + found[0].length;
          return found;
        }
        const next = await parts.next();
        if (next.done) throw new Error(`ended before ${re}; saw ${JSON.stringify(text.slice(from))}`);
        text += new TextDecoder().decode(next.value.data);
      }
    },
  };
}

test('a terminal on the real server: with node-pty a /dev/pts PTY (size, resize, Ctrl-C, exit code); without, pipes, said so', async () => {
  const nodePty = await loadNodePty(); // what the server's 'auto' finds here
  const dir = await tempDir();
  const key = await makeKey();
  const server = await startBin(key.line);
  const client = await WshClient.connect(server.url, { key: key.pair });
  // An interactive shell with a plain prompt; job control gives what runs in front its own process group.
  const term = await client.spawn('PS1="$ " exec /bin/sh -i', { pty: { cols: 120, rows: 40 }, cwd: dir });
  const out = reader(term);

  if (nodePty) {
    assert.match(server.stderr(), /terminals: PTY \(node-pty\)/);
    assert.doesNotMatch(server.stderr(), /could not be loaded/);
    assert.equal(client.server?.pty, true, 'the hello says a PTY');
    assert.equal(term.mode, 'pty', 'the open answer says a PTY');
    await term.write('tty\r');
    const [, device] = await out.until(/(\/dev\/pts\/\d+)\r\n/);
    assert.match(device, /^\/dev\/pts\/\d+$/);
    await term.write('stty size; tput cols\r');
    await out.until(/\b40 120\r\n120\r\n/);
    await term.resize(100, 30);
    await term.write('stty size; tput cols\r');
    await out.until(/\b30 100\r\n100\r\n/);
    // Ctrl-C is a key: the terminal sends SIGINT to what runs in front (the sleep), the shell stays.
    await term.write('/bin/sh -c \'echo "sleeping-$((2+2))"; exec sleep 300\'\r');
    await out.until(/\bsleeping-4\r\n/);
    await term.write('\x03');
    await term.write('echo "after $?"\r');
    await out.until(/\bafter 130\r\n/);
    await term.write('exit 7\r');
    assert.deepEqual(await term.exited, { exitCode: 7, signal: null });
  } else {
    assert.match(server.stderr(), /terminals: pipes \(node-pty is not installed here/);
    assert.match(server.stderr(), /node-pty could not be loaded, terminals run on pipes: \S/, 'and why');
    assert.equal(client.server?.pty, false, 'the hello says no PTY');
    assert.equal(term.mode, 'pipe', 'the open answer says pipes');
    await term.write('tty\n');
    await out.until(/not a tty\n/);
    await term.resize(100, 30); // accepted; pipes have no size
    // No terminal to turn Ctrl-C into a signal: the client signals the process group.
    await term.write('echo "sleeping-$((2+2))"; sleep 300\n');
    await out.until(/sleeping-4\n/);
    await term.kill('SIGINT');
    await term.write('echo "after $?"\n');
    await out.until(/after 130\n/);
    await term.write('exit 7\n');
    assert.deepEqual(await term.exited, { exitCode: 7, signal: null });
  }
  client.close();
  server.child.kill('SIGTERM');
  const [code] = await once(server.child, 'exit');
  assert.equal(code, 0);
});
