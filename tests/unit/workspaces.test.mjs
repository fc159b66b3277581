import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkspaceStore } from '../../web/app/workspaces.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';

/** What a workspace's tools keep in config, by workspace id. @param {string} id */
const toolKeys = (id) => [
  `clawser_tool_perms_${id}`,
  `clawser_tool_rules_${id}`,
  `clawser_skills_enabled_${id}`,
  `clawser_mcp_servers_${id}`,
  `clawser_mcp_secret_${id}_abcd1234`,
  `clawser_mcp_oauth_${id}_abcd1234`,
];

test('deleting a workspace removes what its tools kept in config, and only its own', async () => {
  const config = new LocalConfig(memoryStorage());
  /** @type {string[]} */
  const deleted = [];
  const store = new WorkspaceStore({ config, fs: new MemoryFileSystem(), onDelete: (id) => deleted.push(id) });
  const gone = await store.create('Gone');
  const kept = await store.create('Kept');
  for (const id of [gone.id, kept.id]) for (const k of toolKeys(id)) config.set(k, { planted: true });

  await store.delete(gone.id);

  assert.deepEqual(store.list().map((w) => w.name), ['Kept']);
  assert.deepEqual(deleted, [gone.id]);
  for (const k of toolKeys(gone.id)) assert.equal(config.get(k, null), null, `${k} is removed`);
  // Control: the other workspace's keys are still there.
  for (const k of toolKeys(kept.id)) assert.deepEqual(config.get(k, null), { planted: true }, `${k} is kept`);
});
