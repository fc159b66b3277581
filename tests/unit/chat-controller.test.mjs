// ChatController without a page (issue 13): a message sent while "New conversation" is still
// making the conversation goes into the new one, and is not stopped by the switch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatController } from '../../web/app/chat-controller.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { EchoProvider } from '../../web/providers/echo.js';
import { loose } from '../fixtures/loose-events.mjs';

test('a message sent right after "New conversation" lands in the new conversation, answered', async () => {
  // any: only providerConfig is used
  const settings = /** @type {any} */ ({ providerConfig: async () => ({ provider: 'echo', model: 'echo' }) });
  const chat = new ChatController({
    fs: new MemoryFileSystem(),
    workspaceId: 'w',
    settings,
    providerFactory: () => new EchoProvider({ delayMs: 0 }),
  });
  await chat.init();
  await chat.newConversation();
  await chat.send('in the first one');
  const first = chat.state.activeId;
  const opening = chat.newConversation(); // not awaited: the user types at once
  const sent = chat.send('in the second one');
  const meta = await opening;
  await sent;
  assert.notEqual(meta.id, first);
  assert.equal(chat.state.activeId, meta.id);
  const texts = loose(chat.state.events).map((e) => `${e.type}:${e.data.text ?? ''}${e.data.stopped ? ' (stopped)' : ''}`);
  assert.deepEqual(texts, ['user_message:in the second one', 'agent_message:Echo: in the second one']);
});

test('a fork never ends inside a tool round: it stops before calls without their results', async () => {
  const { withoutOpenToolRound } = await import('../../web/app/conversation-rules.js');
  const ev = (/** @type {string} */ id, /** @type {string} */ type, /** @type {any} */ data) =>
    /** @type {any} */ ({ id, type, data, source: 'system', timestamp: 1 }); // test events
  const events = [
    ev('u', 'user_message', { text: 'go' }),
    ev('a', 'agent_message', {
      text: '',
      toolCalls: [
        { id: 't1', name: 'x', arguments: {} },
        { id: 't2', name: 'y', arguments: {} },
      ],
    }),
    ev('c', 'tool_call', { id: 't1' }),
    ev('r1', 'tool_result', { toolCallId: 't1' }),
  ];
  assert.deepEqual(
    withoutOpenToolRound(events).map((e) => e.id),
    ['u'],
  );
  const done = [...events, ev('r2', 'tool_result', { toolCallId: 't2' })];
  assert.deepEqual(
    withoutOpenToolRound(done).map((e) => e.id),
    ['u', 'a', 'c', 'r1', 'r2'],
    'control: a finished round is kept',
  );
});

test('a late model title never brings back a deleted conversation nor replaces a rename', async () => {
  const { ConversationStore } = await import('../../web/agent/conversation/conversation-store.js');
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const a = await store.create('first words');
  const conv = await store.open(a.id);
  await store.rename(a.id, 'Named by the user'); // e.g. from the sidebar, another instance
  await conv.setGeneratedTitle('Model title');
  assert.equal((await store.list())[0].title, 'Named by the user');
  const b = await store.create('other');
  const convB = await store.open(b.id);
  await convB.markDeleted();
  await store.delete(b.id);
  await convB.setGeneratedTitle('Model title');
  assert.equal(await fs.stat(`clawser_workspaces/w/.conversations/${b.id}/meta.json`), null);
  assert.deepEqual(
    (await store.list()).map((m) => m.id),
    [a.id],
  );
  // Control: an unnamed conversation takes the model's title.
  const c = await store.create('New conversation');
  await (await store.open(c.id)).setGeneratedTitle('Model title');
  assert.ok((await store.list()).some((m) => m.title === 'Model title'));
});

test("Continue keeps the named agent that wrote the reply; one that no longer exists falls back to the workspace's agent", async () => {
  /** @type {any[]} */
  const built = [];
  const settings = /** @type {any} */ ({
    providerConfig: async () => ({ provider: 'echo', model: 'echo' }),
    apiKey: async () => undefined,
  }); // any: what #turn uses
  /** @type {Record<string, import('../../web/agent/runtime/agent-definitions.js').ScopedAgent>} */
  const agents = { writer: { name: 'writer', description: '', systemPrompt: 'You write.', scope: 'workspace' } };
  const chat = new ChatController({
    fs: new MemoryFileSystem(),
    workspaceId: 'w',
    settings,
    providerFactory: () => new EchoProvider({ delayMs: 0 }),
    agents: async () => ({ list: async () => Object.values(agents), get: async (/** @type {string} */ n) => agents[n] ?? null }),
    buildAgent: async (provider, conversation, secrets, options) => {
      built.push(options?.profile?.name ?? null);
      return new (await import('../../web/agent/runtime/agent.js')).ClawserAgent({
        provider,
        conversation,
        secrets,
        ...(options?.profile ? { label: options.profile.name } : {}),
      });
    },
  });
  await chat.init();
  await chat.newConversation();
  await chat.send('@writer a line please');
  assert.equal(chat.state.events.findLast((e) => e.type === 'agent_message')?.data.agent, 'writer');
  await chat.continueReply();
  assert.deepEqual(built, ['writer', 'writer'], "the continuation is @writer's");
  delete agents.writer;
  await chat.continueReply();
  assert.equal(built[2], null, "gone: the workspace's agent goes on, no error");
  assert.equal(chat.state.failure, null);
});

test("a setting the provider left unapplied is said in the chat's notice, not dropped", async () => {
  const message = "Test provider takes no temperature: the request's temperature was not applied.";
  class WarningEcho extends EchoProvider {
    /** @override @param {import('../../web/providers/types.d.ts').ChatRequest} request @param {any} [options] any: passed through */
    async *chatStream(request, options) {
      /** @type {import('../../web/providers/types.d.ts').StreamPart} */
      const warning = { type: 'warning', setting: 'temperature', message };
      yield warning;
      yield* super.chatStream(request, options);
    }
  }
  /** @param {EchoProvider} provider */
  const chatWith = async (provider) => {
    // any: only providerConfig is used
    const settings = /** @type {any} */ ({ providerConfig: async () => ({ provider: 'echo', model: 'echo' }) });
    const chat = new ChatController({ fs: new MemoryFileSystem(), workspaceId: 'w', settings, providerFactory: () => provider });
    await chat.init();
    await chat.newConversation();
    await chat.send('hello');
    return chat;
  };
  const warned = await chatWith(new WarningEcho({ delayMs: 0 }));
  assert.equal(warned.state.notice, message);
  assert.deepEqual(
    loose(warned.state.events).map((e) => e.type),
    ['user_message', 'agent_message'],
    'the reply is answered as before',
  );
  const plain = await chatWith(new EchoProvider({ delayMs: 0 }));
  assert.equal(plain.state.notice, null, 'control: no warning, no notice');
});

test('a pin survives the open conversation writing its details (control: written past the open instance, it is lost)', async () => {
  const { ConversationStore } = await import('../../web/agent/conversation/conversation-store.js');
  // any: only providerConfig is used
  const settings = /** @type {any} */ ({ providerConfig: async () => ({ provider: 'echo', model: 'echo' }) });
  const fs = new MemoryFileSystem();
  const chat = new ChatController({ fs, workspaceId: 'w', settings, providerFactory: () => new EchoProvider({ delayMs: 0 }) });
  await chat.init();
  const other = await chat.newConversation();
  const open = await chat.newConversation();
  await chat.setPinned(open.id, true);
  await chat.setPinned(other.id, true); // not on screen: through the store
  assert.equal(chat.state.conversations.find((c) => c.id === open.id)?.pinned, true, 'the list shows it at once');
  await chat.send('first words give the title'); // the title changes: meta.json is written again
  const listed = await new ConversationStore(fs, 'w').list();
  assert.equal(listed.find((c) => c.id === open.id)?.pinned, true);
  assert.equal(listed.find((c) => c.id === other.id)?.pinned, true);
  // Control: pinned behind the open instance's back, its next write drops the pin.
  const third = await chat.newConversation();
  await new ConversationStore(fs, 'w').setPinned(third.id, true);
  await chat.send('another title');
  assert.equal((await new ConversationStore(fs, 'w').list()).find((c) => c.id === third.id)?.pinned, undefined);
});
