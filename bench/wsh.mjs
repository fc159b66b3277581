// wsh (issue 35), in Node against the real `wsh-server` bin on 127.0.0.1 (its own process, as a
// user runs it): an exec round trip of `true`, and stdout throughput. Starting a process is most
// of an exec, so the same machine's bare spawn of `true` and a protocol-only ping are measured
// beside it: the difference is what wsh adds.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { WshClient, generateKey, publicKeyLine } from '../web/packages/wsh/node.js';

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (/** @type {number} */ x) => Math.round(x * 1000) / 1000;
const BIN = fileURLToPath(new URL('../web/packages/wsh/bin/wsh-server.js', import.meta.url));

/**
 * A bare `true` started and reaped by Node on this machine, as the server starts a process (its
 * own process group and session, pipes): the floor of any remote exec.
 */
function localTrue() {
  return new Promise((resolve, reject) => {
    const child = spawn('true', [], { stdio: 'pipe', detached: true });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

/**
 * MB/s of `head -c` read by Node straight from the pipe, spawned as the server does: the floor of streamed output.
 * @param {number} bytes
 */
async function localPipeMBps(bytes) {
  const t = performance.now();
  const child = spawn('head', ['-c', String(bytes), '/dev/zero'], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let got = 0;
  for await (const piece of child.stdout) got += piece.byteLength;
  if (got !== bytes) throw new Error(`wsh bench: the local pipe gave ${got} of ${bytes} bytes`);
  return bytes / (1024 * 1024) / ((performance.now() - t) / 1000);
}

export async function wshBench() {
  const dir = await mkdtemp(join(tmpdir(), 'wsh-bench-'));
  const key = await generateKey();
  const keysFile = join(dir, 'keys');
  await writeFile(keysFile, `${await publicKeyLine(key, 'bench')}\n`);
  const server = spawn(process.execPath, [BIN, '--keys', keysFile], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const url = await new Promise((resolve) =>
      createInterface({ input: /** @type {import('node:stream').Readable} */ (server.stdout) }).once('line', resolve),
    );
    const client = await WshClient.connect(String(url), { key });
    for (let i = 0; i < 30; i++) {
      await client.exec('true');
      await client.ping();
      await localTrue();
    }
    /** @type {number[]} */ const exec = [];
    /** @type {number[]} */ const argv = [];
    /** @type {number[]} */ const ping = [];
    /** @type {number[]} */ const local = [];
    for (let i = 0; i < 200; i++) {
      let t = performance.now();
      await client.exec('true');
      exec.push(performance.now() - t);
      t = performance.now();
      await client.exec(['true']);
      argv.push(performance.now() - t);
      t = performance.now();
      await client.ping();
      ping.push(performance.now() - t);
      t = performance.now();
      await localTrue();
      local.push(performance.now() - t);
    }
    // Throughput: 256 MB of zeros streamed from the server's process to this client, counted as it arrives.
    const bytes = 256 * 1024 * 1024;
    /** @type {number[]} */
    const rates = [];
    /** @type {number[]} */
    const localRates = [];
    for (let r = 0; r < 3; r++) {
      localRates.push(await localPipeMBps(bytes));
      const t = performance.now();
      const proc = await client.spawn(`head -c ${bytes} /dev/zero`);
      let got = 0;
      for await (const part of proc) got += part.data.byteLength;
      await proc.exited;
      if (got !== bytes) throw new Error(`wsh bench: ${got} of ${bytes} bytes arrived`);
      rates.push(bytes / (1024 * 1024) / ((performance.now() - t) / 1000));
    }
    client.close();
    return {
      wshExecRoundTripMs: round(median(exec)),
      wshExecArgvRoundTripMs: round(median(argv)),
      wshLocalSpawnTrueMs: round(median(local)),
      wshPingRoundTripMs: round(median(ping)),
      wshStdoutMBps: round(median(rates)),
      wshLocalPipeMBps: round(median(localRates)),
    };
  } finally {
    server.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) console.log(await wshBench());
