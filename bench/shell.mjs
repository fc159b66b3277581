// The shell (issue 16): `grep -r` over 1,000 workspace files and a 10-stage pipeline over
// 10 MB, in Chromium over the workspace's OPFS files (the app's own path: the vendored
// interpreter, the storage worker), in Node over the in-memory FileSystem, and in real bash with
// GNU coreutils on the same files in a temporary folder. Reports the times and the ratios
// (virtual / real); real bash is skipped when /usr/bin/bash is absent.
import { performance } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createShell } from '../web/shell/shell.js';
import { MemoryFileSystem } from '../web/storage/memory-fs.js';
import { rng } from './rng.mjs';
import { launchBrowser, startApp } from '../tests/browser/helpers.mjs';
import { openHome } from './page.mjs';

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (/** @type {number} */ x) => Math.round(x * 100) / 100;

const WORDS = [
  'alpha',
  'beta',
  'gamma',
  'delta',
  'Epsilon',
  'zeta',
  'eta',
  'theta',
  'iota',
  'kappa',
  'lambda',
  'mu',
  'foo',
  'TODO',
  'fixme',
  'note',
  'shell',
  'pipe',
  'grep',
  'sort',
];

/** @param {() => number} rand @param {number} n */
const line = (rand, n) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');

export const PIPELINE =
  "cat big.txt | grep -v '^#' | tr 'A-Z' 'a-z' | sed 's/foo/bar/g' | cut -d' ' -f1-5 " +
  "| awk '{print $2, $1}' | grep e | sort | uniq -c | sort -rn";
export const GREP = 'grep -r TODO src | wc -l';

/** @param {string} a @param {string} b */
const sameLines = (a, b) =>
  JSON.stringify(a.replace(/^ +/gm, '').split('\n').sort()) === JSON.stringify(b.replace(/^ +/gm, '').split('\n').sort());

/** @returns {Promise<Record<string, number | string>>} */
export async function shellBench() {
  const rand = rng(16);
  /** @type {Record<string, string>} */
  const files = {};
  for (let i = 0; i < 1000; i++) {
    files[`src/mod${i % 20}/file${i}.txt`] = Array.from({ length: 20 }, () => line(rand, 8)).join('\n') + '\n';
  }
  const lines = [];
  let size = 0;
  while (size < 10 * 1024 * 1024) {
    const l = rand() < 0.05 ? `# comment ${line(rand, 4)}` : line(rand, 10);
    lines.push(l);
    size += l.length + 1;
  }
  files['big.txt'] = lines.join('\n') + '\n';

  const fs = new MemoryFileSystem();
  for (const [p, c] of Object.entries(files)) await fs.write(p, c);
  const shell = createShell({ fs });
  /** @param {string} command */
  const virtual = async (command) => {
    const times = [];
    let out = '';
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const r = await shell.run(command, { addToHistory: false });
      times.push(performance.now() - t);
      if (r.exitCode !== 0) throw new Error(`the virtual shell failed on ${command}: ${r.stderr}`);
      out = r.stdout;
    }
    return { ms: median(times), out };
  };
  const grepN = await virtual(GREP);
  const pipeN = await virtual(PIPELINE);
  const { grepV, pipeV, floorMs } = await inBrowser(files);
  if (grepV.out !== grepN.out) throw new Error(`grep -r differs between the page and Node: ${grepV.out} vs ${grepN.out}`);
  /** @type {Record<string, number | string>} */
  const result = {
    shellGrepR1000FilesMs: round(grepV.ms),
    shellPipeline10MBMs: round(pipeV.ms),
    shellNodeGrepR1000FilesMs: round(grepN.ms),
    shellNodePipeline10MBMs: round(pipeN.ms),
    opfsRead1000FilesConcurrentMs: round(floorMs),
  };

  if (existsSync('/usr/bin/bash')) {
    const dir = await mkdtemp(join(tmpdir(), 'clawser-shell-bench-'));
    try {
      for (const [p, c] of Object.entries(files)) {
        await mkdir(dirname(join(dir, p)), { recursive: true });
        await writeFile(join(dir, p), c);
      }
      /** @param {string} command */
      const real = (command) => {
        const times = [];
        let out = '';
        for (let i = 0; i < 5; i++) {
          const t = performance.now();
          out = execFileSync('/usr/bin/bash', ['--norc', '--noprofile', '-c', command], {
            cwd: dir,
            env: { PATH: process.env.PATH, LC_ALL: 'C' },
            maxBuffer: 64 * 1024 * 1024,
          }).toString();
          times.push(performance.now() - t);
        }
        return { ms: median(times), out };
      };
      const grepR = real(GREP);
      const pipeR = real(PIPELINE);
      if (grepR.out.trim() !== grepV.out.trim()) throw new Error(`grep -r differs: bash ${grepR.out.trim()} vs shell ${grepV.out.trim()}`);
      Object.assign(result, {
        bashGrepR1000FilesMs: round(grepR.ms),
        shellGrepR1000FilesRatio: round(grepV.ms / grepR.ms),
        bashPipeline10MBMs: round(pipeR.ms),
        shellPipeline10MBRatio: round(pipeV.ms / pipeR.ms),
        // The same lines (uniq -c pads its counts differently, and ties of sort -rn may come in another order).
        shellPipelineSameOutput: String(sameLines(pipeR.out, pipeV.out)),
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return result;
}

/**
 * The same two commands in the app's page, over a workspace's OPFS files.
 * @param {Record<string, string>} files
 */
async function inBrowser(files) {
  const app = await startApp();
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    await openHome(page, app.url);
    return await page.evaluate(
      async ({ files, commands }) => {
        const { workspaceFs } = await import('/web/files/workspace-fs.js');
        const { createShell } = await import('/web/shell/shell.js');
        const fs = workspaceFs('benchshell');
        await Promise.all(Object.entries(files).map(([p, c]) => fs.write(p, c)));
        const shell = createShell({ fs });
        /** @param {string} command */
        const run = async (command) => {
          const times = [];
          let out = '';
          for (let i = 0; i < 5; i++) {
            const t = performance.now();
            const r = await shell.run(command, { addToHistory: false });
            times.push(performance.now() - t);
            if (r.exitCode !== 0) throw new Error(`the shell failed on ${command}: ${r.stderr}`);
            out = r.stdout;
          }
          return { ms: times.sort((a, b) => a - b)[2], out };
        };
        const grepV = await run(commands[0]);
        const pipeV = await run(commands[1]);
        // The storage floor: the same 1,000 files read all at once, straight from the storage layer.
        const paths = Object.keys(files).filter((p) => p.startsWith('src/'));
        const t = performance.now();
        await Promise.all(paths.map((p) => fs.readBytes(p)));
        return { grepV, pipeV, floorMs: performance.now() - t };
      },
      { files, commands: [GREP, PIPELINE] },
    );
  } finally {
    await browser.close();
    await app.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await shellBench(), null, 2));
}
