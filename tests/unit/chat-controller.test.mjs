// ChatController without a page (issue 13): a message sent while "New conversation" is still
// making the conversation goes into the new one, and is not stopped by the switch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatController } from '../../web/app/chat-controller.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { EchoProvider } from '../../web/providers/echo.js';

test('a message sent right after "New conversation" lands in the new conversation, answered', async () => {
  const settings = /** @type {any} */ ({ providerConfig: async () => ({ provider: 'echo', model: 'echo' }) }); // any: only providerConfig is used
  const chat = new ChatController({ fs: new MemoryFileSystem(), workspaceId: 'w', settings, providerFactory: () => new EchoProvider({ delayMs: 0 }) });
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
  const texts = chat.state.events.map((e) => `${e.type}:${e.data.text ?? ''}${e.data.stopped ? ' (stopped)' : ''}`);
  assert.deepEqual(texts, ['user_message:in the second one', 'agent_message:Echo: in the second one']);
});
