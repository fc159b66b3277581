// Issue 39 §4 from the UI without the agent: the Terminal's `python` command in a real Chromium. It is
// a call of the run_python tool (web/shell/commands/python.js), so Python runs in andbox's Pyodide in
// the opaque-origin frame, the workspace mounted read-only unless `--write` is given, and Ctrl-C
// stops it. Covered: `python -c` prints; a file is run; reading a workspace file works, writing one
// without --write is refused and nothing lands (control: with --write it is saved); Ctrl-C stops an
// endless loop and the next run works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readWorkspaceFile, waitInPage, writeWorkspaceFile } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const { page } = await useFixture({ page: 'workspace' });

/** Waits until the terminal shows `text` (a pattern). @param {RegExp} text */
async function shows(text) {
  await waitInPage(
    page,
    ({ source, flags }) => {
      const rows = [...document.querySelectorAll('.terminal-host .xterm-rows')]
        .map((r) => /** @type {HTMLElement} */ (r).innerText)
        .join('\n');
      return Promise.resolve(new RegExp(source, flags).test(rows));
    },
    { source: text.source, flags: text.flags },
    { what: `the terminal to show ${text}` },
  );
}

/** Types a line into the focused terminal and presses Enter. @param {string} line */
async function typeLine(line) {
  await page.locator('.terminal-host:visible .xterm-helper-textarea').focus();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

const idle = () => page.locator('.terminal-host:visible:not([aria-busy])').waitFor();

test('`python -c "print(6*7)"` prints 42 in the Terminal; `python FILE.py` runs a workspace file', async () => {
  await writeWorkspaceFile(page, 'scripts/hello.py', 'import sys\nprint("hello from", sys.implementation.name)\n');
  await page.keyboard.press('Alt+KeyT');
  await page.getByRole('heading', { name: 'Terminal' }).waitFor();
  await typeLine('python -c "print(6*7)"');
  await shows(/print\(6\*7\)"\n42\n/);
  await idle();
  await typeLine('cd scripts && python3 hello.py');
  await shows(/hello\.py\nhello from cpython\n/);
  await idle();
  await typeLine('cd ..');
  await idle();
});

test('reading a workspace file works; writing one without --write is refused and nothing lands (control: with --write it is \
saved)', async () => {
  await writeWorkspaceFile(page, 'data.txt', 'forty-two\n');
  await typeLine('python -c "print(open(\'data.txt\').read().upper())"');
  await shows(/\nFORTY-TWO\n/);
  await idle();
  await typeLine("python -c \"open('py-out.txt', 'w').write('from python')\"");
  await shows(/PermissionError/);
  await idle();
  assert.equal(await readWorkspaceFile(page, 'py-out.txt'), null, 'nothing written');
  await typeLine("python --write -c \"open('py-out.txt', 'w').write('from python')\"");
  await shows(/py-out\.txt: saved\n/);
  await idle();
  assert.equal(await readWorkspaceFile(page, 'py-out.txt'), 'from python');
});

test('Ctrl-C stops `python -c "while True: pass"`; the next run works', async () => {
  await typeLine('python -c "while True: pass"');
  await page.locator('.terminal-host:visible[aria-busy="true"]').waitFor();
  await page.keyboard.press('Control+c');
  await idle();
  await shows(/\^C\n/);
  await typeLine('python -c "print(\'still\', 1 + 1)"');
  await shows(/\nstill 2\n/);
});
