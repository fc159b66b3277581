// A tool gets the workspace's services the way a panel does (ToolContext.services): a tool family
// that needs a new service reads it there, so the service is added in one place
// (web/app/workspace-services.js), not also mapped by hand into the tool context by the agent
// factory and declared again in web/tools/types.d.ts (CONTRIBUTING.md, "A tool family").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';

test("the tool context carries the workspace's own services object, a service it was never told about included", async () => {
  const { AgentFactory } = await import('../../web/app/agent-factory.js');
  const { AgentSettingsStore } = await import('../../web/app/agent-settings.js');
  const { LocalConfig } = await import('../../web/storage/local-config.js');
  const secrets = /** @type {any} */ ({}); // any: not used by toolContext
  const agentSettings = new AgentSettingsStore({ config: new LocalConfig(memoryStorage()), secrets });
  const ledger = { recordTurn() {} };
  const brandNew = { answer: 42 };
  const services = {
    registry: { list: () => [{ name: 'fs_read' }] },
    git: async () => ({ remotes: async () => [] }),
    memory: async () => ({}),
    skills: async () => ({}),
    mcp: async () => ({}),
    goals: {},
    scheduler: {},
    usage: ledger,
    brandNew, // a service added to the workspace's services only
  };
  const factory = new AgentFactory({
    agentSettings,
    hooks: /** @type {any} */ ({}), // not used here
    services: () => /** @type {any} */ (services), // any: the parts toolContext reads, and one more
    workspaceFs: () => new MemoryFileSystem(),
    mountedFolder: () => null,
  });
  const ctx = await factory.toolContext('ws', 'c1');
  assert.equal(ctx.services, services, "the workspace's services, the same object the panels get");
  assert.equal(/** @type {any} */ (ctx.services)?.brandNew, brandNew); // any: the made-up service
  assert.equal(ctx.services?.usage, ledger);
  // Control: what the context held before is still there.
  assert.deepEqual(ctx.toolNames, ['fs_read']);
  assert.equal(ctx.conversationId, 'c1');
});
