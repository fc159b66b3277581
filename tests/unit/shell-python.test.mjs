// The Terminal's `python` command (web/shell/commands/python.js): what it hands to run_python and
// what it says back. The Python run itself (andbox's Pyodide) is tested in the page:
// tests/browser/terminal-python.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createShell } from '../../web/shell/shell.js';
import { pythonCommands } from '../../web/shell/commands/python.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';

/** A shell whose `python` records its tool calls and answers `answer`. @param {{ok: boolean, output: string}} answer */
async function setup(answer = { ok: true, output: '42' }) {
  const fs = new MemoryFileSystem();
  await fs.write('scripts/hello.py', 'print("hi")\n');
  /** @type {{name: string, args: Record<string, unknown>, signal?: AbortSignal}[]} */
  const calls = [];
  const shell = createShell({
    fs,
    commands: pythonCommands({
      callTool: async (name, args, signal) => {
        calls.push({ name, args, ...(signal ? { signal } : {}) });
        return answer;
      },
    }),
  });
  return { shell, calls };
}

test('python -c CODE is a run_python call, read-only unless --write; its output is the command’s', async () => {
  const { shell, calls } = await setup();
  assert.deepEqual(await shell.run('python -c "print(6*7)"'), { stdout: '42\n', stderr: '', exitCode: 0 });
  assert.deepEqual(calls[0].args, { code: 'print(6*7)' });
  assert.equal(calls[0].name, 'run_python');
  assert.ok(calls[0].signal instanceof AbortSignal, 'the line’s signal (Ctrl-C) reaches the run');
  await shell.run('python3 --write -c "x = 1"');
  assert.deepEqual(calls[1].args, { code: 'x = 1', write: true });
});

test('python FILE.py runs the file, found from the working folder; a missing file says so and runs nothing', async () => {
  const { shell, calls } = await setup();
  await shell.run('cd scripts && python hello.py');
  assert.deepEqual(calls[0].args, { code: 'print("hi")\n' });
  const missing = await shell.run('python nope.py');
  assert.equal(missing.exitCode, 2);
  assert.match(missing.stderr, /can't open file 'nope\.py'/);
  assert.equal(calls.length, 1);
});

test('a failed run goes to stderr with exit code 1; no code or an unknown option is a usage error (nothing runs)', async () => {
  const { shell, calls } = await setup({ ok: false, output: 'Traceback (most recent call last):\nZeroDivisionError' });
  const r = await shell.run('python -c "1/0"');
  assert.deepEqual(r, { stdout: '', stderr: 'Traceback (most recent call last):\nZeroDivisionError\n', exitCode: 1 });
  for (const line of ['python', 'python -c', 'python -i x.py']) {
    const u = await shell.run(line);
    assert.equal(u.exitCode, 2, line);
    assert.match(u.stderr, /usage: python/);
  }
  assert.equal(calls.length, 1);
});
