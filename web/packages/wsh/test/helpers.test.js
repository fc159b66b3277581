// The test helpers themselves, where a wrong answer would make other tests pass for nothing:
// processGone waits for a real exit (portable: no GNU tail), and fails for a process that lives on.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { processExists, processGone } from './helpers.js';

test('processGone resolves once a process has exited; control: for a living one it fails after its looks', async () => {
  const child = spawn('sleep', ['1000'], { stdio: 'ignore' });
  await once(child, 'spawn');
  const pid = /** @type {number} */ (child.pid);
  await assert.rejects(processGone(pid, { tries: 3, everyMs: 1 }), /still runs after 3 checks/);
  assert.ok(processExists(pid));
  child.kill('SIGKILL');
  await processGone(pid);
  assert.equal(processExists(pid), false);
});
