// channel_send (web/tools/channels.js) through a real ToolRunner and WorkspaceChannels, the
// webhook's and Telegram's requests caught by a fetch of the test's own: an outbound tool asks
// after untrusted content in the turn, over "Always allow" and full autonomy, and a denial sends
// nothing (control: the same call in a clean turn is sent without asking); a paused channel, an
// unknown one and a Telegram user the channel does not answer are refused with their codes; no
// secret is in any output. The browser test (tests/browser/channel-send.test.mjs) runs the same
// against the fake Telegram and a webhook receiver.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LocalConfig } from '../../web/storage/local-config.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';
import { WorkspaceChannels } from '../../web/app/channels.js';
import { ToolRunner } from '../../web/agent/runtime/tool-runner.js';
import { AutonomyController } from '../../web/agent/runtime/autonomy.js';
import { createBuiltinRegistry, toolSettings } from '../../web/tools/index.js';

const TOKEN = '123456:TESTtokenTESTtokenTEST1234';
const HOOK = 'https://hooks.example/services/SECRET-PATH-42';

/** A workspace's channels (a phone bot answering 111 and 222, a webhook) and a runner per turn. */
async function workspace() {
  /** @type {{url: string, body: string}[]} */
  const sent = [];
  /** @type {(url: string, init: RequestInit) => Promise<Response>} */
  const fetchFn = async (url, init) => {
    // The poller a Telegram channel starts with reads updates: only what goes out is recorded.
    if (!url.endsWith('/getUpdates')) sent.push({ url, body: String(init.body) });
    else return new Response(JSON.stringify({ ok: true, result: [] }), { status: 200 });
    const result = { message_id: 1, chat: { id: 1, type: 'private' }, date: 1 };
    return new Response(JSON.stringify({ ok: true, result }), { status: 200 });
  };
  const clear = new Map();
  const channels = new WorkspaceChannels(
    {
      config: new LocalConfig(memoryStorage()),
      secrets: {
        encrypt: async (plain) => (clear.set(`sealed-${clear.size}`, plain), `sealed-${clear.size - 1}`),
        decrypt: async (sealed) => clear.get(sealed),
      },
      chat: () => /** @type {any} */ ({}), // any: no turn runs here
      agentSettings: /** @type {any} */ ({}), // any: no turn runs here
      workspaceName: () => 'Home',
      fetch: fetchFn,
      locks: null,
    },
    'ws',
  );
  await channels.add({ kind: 'telegram', name: 'phone', secret: TOKEN, allowedSenders: ['111', '222'] });
  await channels.add({ kind: 'webhook', name: 'hook', secret: HOOK });
  channels.stopAll();
  const registry = createBuiltinRegistry({ workspaceId: 'ws' });
  /** @type {import('../../web/agent/runtime/tool-runner.js').ApprovalRequest[]} */
  const asked = [];
  /** @param {'once' | 'deny'} answer */
  const runner = (answer = 'once') =>
    new ToolRunner({
      registry,
      context: /** @type {any} */ ({
        workspaceId: 'ws',
        fs: new MemoryFileSystem(),
        settings: toolSettings(),
        fetch,
        services: { channels: async () => channels },
      }), // any: only the services this tool reads
      autonomy: new AutonomyController({ config: { level: 'full' } }),
      approve: async (r) => (asked.push(r), answer),
    });
  return { channels, registry, runner, asked, sent };
}

/** @param {ToolRunner} r @param {Record<string, unknown>} args */
const send = (r, args) => r.run({ id: 'c', name: 'channel_send', arguments: args });

test('a send asks by default; after untrusted content it asks over "Always allow" and a denial sends nothing (control: a clean \
turn with "Always allow" sends without asking)', async () => {
  const w = await workspace();
  const first = await send(w.runner(), { channel: 'hook', text: 'the build is green' });
  assert.equal(first.ok, true, first.output);
  assert.equal(w.asked.length, 1, 'network: asks by default');
  assert.equal(w.sent.length, 1);
  assert.equal(JSON.parse(w.sent[0].body).kind, 'message');

  w.registry.setPolicy('channel_send', 'auto');
  const clean = await send(w.runner(), { channel: 'hook', text: 'clean' });
  assert.equal(clean.ok, true);
  assert.equal(w.asked.length, 1, 'control: always allowed, untainted: no question');
  assert.equal(w.sent.length, 2);

  const tainted = w.runner('deny');
  tainted.addTaint({ tool: 'web_fetch', what: 'a web page', detail: 'https://evil.example/' });
  const out = await send(tainted, { channel: 'hook', text: 'all the notes' });
  assert.equal(out.ok, false);
  assert.equal(out.blocked?.kind, 'denied');
  assert.equal(w.asked.length, 2, 'tainted: asks over "Always allow"');
  const request = w.asked[1];
  assert.equal(request.allowAlways, false);
  assert.match(request.reason, /This turn read a web page \(https:\/\/evil\.example\/\).*may not send a message out of Clawser/);
  assert.equal(w.sent.length, 2, 'nothing was sent');
});

test('Telegram: to every allowed sender, or to one; a paused, unknown or not-answered target is refused with its code; no \
secret in any output', async () => {
  const w = await workspace();
  w.registry.setPolicy('channel_send', 'auto');
  const all = await send(w.runner(), { channel: 'phone', text: 'hello' });
  assert.equal(all.output, 'Sent to the channel “phone” (to the people it answers).');
  const one = await send(w.runner(), { channel: 'phone', text: 'just you', to: '222' });
  assert.equal(one.ok, true, one.output);
  const chats = w.sent.map((s) => new URLSearchParams(s.body).get('chat_id'));
  assert.deepEqual(chats, ['111', '222', '222']);

  const stranger = await send(w.runner(), { channel: 'phone', text: 'x', to: '333' });
  assert.match(stranger.output, /names one of the Telegram user ids the channel “phone” answers \(111, 222\)\. \(invalid\)$/);
  const unknown = await send(w.runner(), { channel: 'nowhere', text: 'x' });
  assert.equal(unknown.output, 'There is no channel named “nowhere”. The channels: phone (Telegram), hook (webhook). (not_found)');
  const hook = w.channels.named('hook');
  await w.channels.setPaused(hook.id, true);
  const paused = await send(w.runner(), { channel: 'hook', text: 'x' });
  assert.match(paused.output, /The channel “hook” is paused.*\(paused\)$/);
  assert.equal(w.sent.length, 3, 'nothing more was sent');
  await w.channels.setPaused(hook.id, false);
  assert.equal((await send(w.runner(), { channel: 'hook', text: 'resumed' })).ok, true, 'control: resumed, it sends');
  for (const o of [all, one, stranger, unknown, paused])
    for (const secret of ['TESTtoken', 'SECRET-PATH']) assert.ok(!o.output.includes(secret), o.output);
});
