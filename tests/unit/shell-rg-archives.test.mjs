// Issue 32 §5 (review): `rg -z` expands .gz files within the same archive limits as gunzip and
// zcat, and says so when one is passed — with the shared message (web/files/archive-limits.js),
// exit status 2 as ripgrep's errors — instead of skipping the file silently, which read as "no
// match". rg is just-bash's, its gzip the page's zlib stand-in (scripts/shims/node-zlib.mjs):
// this file runs the vendored build the page runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync, strToU8 } from 'fflate';
import { ARCHIVE_LIMITS, ExpansionBudget } from '../../web/files/archive-limits.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { useVendoredInterpreter } from '../fixtures/vendored-interpreter.mjs';

useVendoredInterpreter();
const { createShell } = await import('../../web/shell/shell.js');

const MB = 1024 * 1024;
/** 15 MB of zeros in ~15 KB: 1,000×, past the 10 MB free allowance. */
const BOMB = gzipSync(new Uint8Array(15 * MB), { level: 9 });

/** The ratio message every archive path gives for `archiveBytes`. @param {number} archiveBytes */
function ratioMessage(archiveBytes) {
  try {
    new ExpansionBudget(archiveBytes).add(Math.max(ARCHIVE_LIMITS.ratioFreeBytes, ARCHIVE_LIMITS.maxRatio * archiveBytes) + 1);
  } catch (err) {
    return /** @type {Error} */ (err).message;
  }
  throw new Error('no limit passed');
}

async function shell() {
  const fs = new MemoryFileSystem();
  await fs.write('z.gz', BOMB);
  await fs.write('small.gz', gzipSync(strToU8('hello\nworld\n')));
  await fs.write('mid.gz', gzipSync(strToU8('hello\n'.repeat(349_525))));
  return createShell({ fs, env: { LC_ALL: 'C' } });
}

test('rg -z on a .gz bomb prints the shared archive-limit message and exits 2 (not a silent "no match")', async () => {
  const sh = await shell();
  const message = ratioMessage(BOMB.length);
  const alone = await sh.run('rg -z -c zzz z.gz');
  assert.deepEqual(alone, { stdout: '', stderr: `rg: z.gz: ${message}\n`, exitCode: 2 });
  const zcat = await sh.run('zcat z.gz > /dev/null');
  assert.equal(zcat.stderr, `gzip: z.gz: ${message}\n`, 'the same message as zcat');
  // Beside a file that matches: its match is printed, the bomb still reported.
  const both = await sh.run('rg -z -c hello small.gz z.gz');
  assert.equal(both.stdout, 'small.gz:1\n');
  assert.equal(both.stderr, `rg: z.gz: ${message}\n`);
  assert.equal(both.exitCode, 2);
});

test('control: rg -z finds its match in a small .gz and in a 2 MB one of repetitive text (exit 0, nothing on stderr)', async () => {
  const sh = await shell();
  assert.deepEqual(await sh.run('rg -z -c hello small.gz'), { stdout: '1\n', stderr: '', exitCode: 0 });
  assert.deepEqual(await sh.run('rg -z world small.gz'), { stdout: 'world\n', stderr: '', exitCode: 0 });
  assert.deepEqual(await sh.run('rg -z -c hello mid.gz'), { stdout: '349525\n', stderr: '', exitCode: 0 });
  assert.deepEqual(await sh.run('rg -z -c nothing small.gz'), { stdout: '', stderr: '', exitCode: 1 });
});
