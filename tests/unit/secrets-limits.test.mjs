// Issue 11 §6: one secret detector, tool-call arguments scanned before they are stored,
// web_fetch checking every redirect hop, one shared autonomy count per workspace, one master key.
import 'fake-indexeddb/auto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScriptedProvider } from '../fixtures/scripted-provider.mjs';
import { ClawserAgent } from '../../web/agent/runtime/agent.js';
import { ConversationStore } from '../../web/agent/conversation/conversation-store.js';
import { AutonomyController } from '../../web/agent/runtime/autonomy.js';
import { ToolRunner } from '../../web/agent/runtime/tool-runner.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { SecretBox } from '../../web/storage/secrets.js';
import { SafetyPipeline } from '../../web/safety/pipeline.js';
import { LeakDetector } from '../../web/safety/leak-detector.js';
import { redactSecrets } from '../../web/providers/errors.js';
import { createBuiltinRegistry, toolSettings } from '../../web/tools/index.js';
import { webFetch } from '../../web/tools/web.js';
import { AgentSettingsStore } from '../../web/app/agent-settings.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';
import { loose } from '../fixtures/loose-events.mjs';

// ---------------------------------------------------------------------------------------------
// One secret detector

/** Every key shape either detector knew before they were merged (realistic lengths). */
const SHAPES = {
  'OpenAI sk-': 'sk-abcdefghijklmnopqrstuvwxyz123456',
  'OpenAI sk-proj-': 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-ab',
  'Anthropic sk-ant-': 'sk-ant-api03-abcdefghijklmnopqrstuvwxyzABCDEF0123456789-_x',
  'Groq gsk_': 'gsk_abcdefghijklmnopqrstuvwxyz1234',
  'xAI xai-': 'xai-abcdefghijklmnopqrstuvwxyz',
  'Perplexity pplx-': 'pplx-abcdefghijklmnopqrstuvwxyz12',
  'Fireworks fw_': 'fw_3ZkFcmdQ8rWpLx2vNb7TyHsJ',
  'Bearer token': 'Bearer abcdefghijklmnopqrstuvwxyz0123',
  'bearer token (lower case)': 'bearer abcdefghijklmnopqrstuvwxyz0123',
  'Google AIza': 'AIzaSyA1234567890abcdefghijklmnopqrstuv',
  'AWS access key': 'AKIAIOSFODNN7EXAMPLE',
  'AWS secret key': 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'GitHub ghp_': 'ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ',
  'GitHub fine-grained': 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
  'GitLab glpat-': 'glpat-abcdefghijklmnopqrstu',
  'Slack xox': 'xoxb-1234567890-abcdefghij',
  'Stripe sk_live_': 'sk_live_abcdefghijklmnop1234',
  'Hugging Face hf_': 'hf_abcdefghijklmnopqrstuvwxyzABCDEFGH',
  'OpenRouter sk-or-v1-': 'sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef',
  JWT: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  'connection string': 'postgres://admin:hunter2@db.example.com:5432/app',
  'URL with password': 'https://user:s3cretpass@example.com/x',
  'private key': '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----',
};

test('one detector: provider-error redaction and the LeakDetector catch every key shape either knew', () => {
  const d = new LeakDetector();
  /** @type {string[]} */
  const missed = [];
  for (const [name, secret] of Object.entries(SHAPES)) {
    const text = `failed: ${secret} — end`;
    if (redactSecrets(text).includes(secret)) missed.push(`redactSecrets: ${name}`);
    const r = d.scan(text);
    if (r.findings.length !== 1 || r.redacted.includes(secret)) missed.push(`LeakDetector: ${name}`);
  }
  assert.deepEqual(missed, []);
  // Control: ordinary text passes both untouched.
  for (const text of ['Bearer tokens go in the Authorization header', 'The sk- prefix marks OpenAI keys.', 'fw_ is the Fireworks prefix']) {
    assert.equal(redactSecrets(text), text);
    assert.deepEqual(d.scan(text).findings, []);
  }
  // The exact secrets given are still removed whatever their shape.
  assert.equal(redactSecrets('key mine1234567', ['mine1234567']), 'key [redacted]');
});

/**
 * @param {import('../fixtures/scripted-provider.mjs').ScriptedTurn[]} turns
 * @param {{safety?: boolean, autonomy?: AutonomyController, nativeTools?: boolean, codex?: any}} [opts]
 */
async function agentSetup(turns, opts = {}) {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'ws');
  const conversation = await store.open((await store.create()).id);
  const provider = new ScriptedProvider(turns, { nativeTools: opts.nativeTools });
  const config = new LocalConfig(memoryStorage());
  const registry = createBuiltinRegistry({ config, workspaceId: 'ws' });
  const safety = opts.safety === false ? undefined : new SafetyPipeline();
  const tools = new ToolRunner({
    registry,
    context: {
      workspaceId: 'ws',
      fs: new ScopedFileSystem(fs, 'clawser_workspaces/ws'),
      settings: toolSettings(),
      fetch: globalThis.fetch,
    },
    autonomy: opts.autonomy,
    safety,
    approve: async () => 'once',
  });
  const agent = new ClawserAgent({ provider, conversation, tools, autonomy: opts.autonomy, safety, codex: opts.codex });
  return { fs, conversation, store, agent };
}

const KEY = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789';

/** The stored log as written to events.jsonl. @param {MemoryFileSystem} fs */
async function logText(fs) {
  /** @type {string[]} */
  const out = [];
  const walk = async (/** @type {string} */ dir) => {
    for (const e of await fs.list(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.kind === 'directory') await walk(path);
      else if (e.name === 'events.jsonl') out.push(await fs.readText(path));
    }
  };
  await walk('clawser_workspaces/ws');
  assert.ok(out.length > 0, 'found the event log');
  return out.join('\n');
}

test('a key the model echoes into tool-call arguments never reaches events.jsonl; the tool still runs', async () => {
  for (const safety of [true, false]) {
    const { agent, fs, conversation } = await agentSetup(
      [
        { toolCalls: [{ id: 'w', name: 'fs_write', arguments: { path: 'config.env', content: `OPENAI_API_KEY=${KEY}\n` } }] },
        { text: 'done' },
      ],
      { safety },
    );
    await agent.run('store my key');
    const log = await logText(fs);
    assert.ok(!log.includes(KEY), `safety ${safety}: the key is in the log`);
    const call = conversation.events.find((e) => e.type === 'tool_call');
    assert.equal(call?.data.arguments.content, 'OPENAI_API_KEY=[REDACTED openai_key]\n');
    assert.equal(call?.data.arguments.path, 'config.env', 'other arguments are kept');
    // The run itself used the real arguments (the user asked for the file).
    assert.equal(await fs.readText('clawser_workspaces/ws/config.env'), `OPENAI_API_KEY=${KEY}\n`);
  }
});

test('calls not run after a stop are recorded with redacted arguments too', async () => {
  const limited = new AutonomyController({ config: { level: 'full', maxActionsPerHour: 1 } });
  const { agent, fs, conversation } = await agentSetup(
    [
      {
        toolCalls: [
          { id: 'a', name: 'fs_list', arguments: {} },
          { id: 'b', name: 'fs_list', arguments: {} },
          { id: 'c', name: 'fs_write', arguments: { path: 'k.txt', content: `Bearer abcdefghijklmnopqrstuvwxyz0123 ${KEY}` } },
        ],
      },
      { text: 'never' },
    ],
    { autonomy: limited },
  );
  await agent.run('x');
  const c = conversation.events.find((e) => e.type === 'tool_call' && e.data.id === 'c');
  assert.ok(c, 'the remaining call is recorded');
  assert.ok(!(await logText(fs)).includes(KEY));
  assert.doesNotMatch(JSON.stringify(c.data), /abcdefghijklmnopqrstuvwxyz0123/);
});

test('codex-mode calls are recorded with redacted arguments', async () => {
  /** @type {string[]} */
  const ran = [];
  const codex = {
    run: async (/** @type {string} */ code) => {
      ran.push(code);
      return { ok: true, output: 'ok', durationMs: 1 };
    },
  };
  const { agent, conversation } = await agentSetup(
    [{ text: `Running:\n\`\`\`js\nawait fs_write({path: 'a', content: '${KEY}'})\n\`\`\`\n` }, { text: 'done' }],
    { safety: false, nativeTools: false, codex },
  );
  await agent.run('x');
  assert.equal(ran.length, 1, 'the code ran');
  assert.ok(ran[0].includes(KEY), 'with the real text');
  const call = loose(conversation.events).find((e) => e.type === 'tool_call' && e.data.codex);
  assert.ok(call);
  // Safety is off here, so the reply text itself is stored as written (the user's choice); the call record is still scanned.
  assert.ok(!JSON.stringify(call.data).includes(KEY));
  assert.match(call.data.arguments.code, /\[REDACTED openai_key\]/);
});

test('schedule_add refuses a job whose stored prompt or arguments contain a secret', async () => {
  const registry = createBuiltinRegistry({ config: new LocalConfig(memoryStorage()), workspaceId: 'ws' });
  const tool = /** @type {import('../../web/tools/types.d.ts').ToolDefinition} */ (registry.get('schedule_add'));
  /** @type {any[]} */
  const added = [];
  const scheduler = {
    add: async (/** @type {any} */ j) => {
      added.push(j);
      return { id: 'j1', name: 'job', trigger: { kind: 'once', at: 0 } };
    },
    get: async () => ({ nextRunAt: 0 }),
    describe: () => 'once',
  };
  const ctx = /** @type {any} */ ({
    workspaceId: 'ws',
    settings: toolSettings(),
    fetch: globalThis.fetch,
    scheduler,
    conversationId: 'c',
    toolNames: ['fs_write'],
  });
  const withKey = await tool.run({ when: 'in 5 minutes', prompt: `use ${KEY} to call the API` }, ctx);
  assert.equal(withKey.ok, false);
  assert.match(withKey.output, /secret/i);
  const argsKey = await tool.run({ when: 'in 5 minutes', tool: 'fs_write', args: { path: 'a', content: KEY } }, ctx);
  assert.equal(argsKey.ok, false);
  assert.equal(added.length, 0, 'nothing was stored');
  // Control: an ordinary job is scheduled.
  const fine = await tool.run({ when: 'in 5 minutes', prompt: 'summarise my notes' }, ctx);
  assert.equal(fine.ok, true, fine.output);
  assert.equal(added.length, 1);
});

// ---------------------------------------------------------------------------------------------
// web_fetch follows redirects itself

/**
 * A fetch that answers from a table of URL → response; records each URL it was asked for.
 * @param {Record<string, () => Response>} routes
 */
function fakeFetch(routes) {
  /** @type {{url: string, init: RequestInit | undefined}[]} */
  const calls = [];
  const fn = /** @type {typeof fetch} */ (
    async (input, init) => {
      const url = String(input);
      calls.push({ url, init });
      const r = routes[url];
      if (!r) throw new TypeError(`unexpected request to ${url}`);
      return r();
    }
  );
  return { fn, calls };
}
const redirect =
  (/** @type {string} */ to, status = 302) =>
  () =>
    new Response(null, { status, headers: { location: to } });
const page = (/** @type {string} */ body) => () => new Response(body, { status: 200, headers: { 'content-type': 'text/plain' } });

/** @param {typeof fetch} fetchFn @param {Partial<import('../../web/tools/types.d.ts').ToolSettings>} [settings] */
const fetchCtx = (fetchFn, settings = {}) => /** @type {any} */ ({ workspaceId: 'ws', settings: toolSettings(settings), fetch: fetchFn });

test('web_fetch: a redirect to the metadata address is refused without requesting it', async () => {
  const f = fakeFetch({ 'https://public.example/a': redirect('http://169.254.169.254/latest/meta-data/') });
  const r = await webFetch.run({ url: 'https://public.example/a' }, fetchCtx(f.fn));
  assert.equal(r.ok, false);
  assert.match(r.output, /169\.254\.169\.254/);
  assert.match(r.output, /redirect/i);
  assert.deepEqual(
    f.calls.map((c) => c.url),
    ['https://public.example/a'],
    'the private address was never requested',
  );
  assert.equal(f.calls[0].init?.redirect, 'manual');
});

test('web_fetch: each hop is checked against scheme, private addresses and the allowlist', async () => {
  const scheme = fakeFetch({ 'https://a.example/': redirect('file:///etc/passwd') });
  assert.match((await webFetch.run({ url: 'https://a.example/' }, fetchCtx(scheme.fn))).output, /scheme|http and https/i);
  const local = fakeFetch({ 'https://a.example/': redirect('http://127.0.0.1:8080/admin') });
  assert.match((await webFetch.run({ url: 'https://a.example/' }, fetchCtx(local.fn))).output, /private|loopback/i);
  assert.equal(local.calls.length, 1);
  const outside = fakeFetch({ 'https://docs.example.com/x': redirect('https://evil.example.net/x') });
  const out = await webFetch.run({ url: 'https://docs.example.com/x' }, fetchCtx(outside.fn, { fetchAllowlist: ['example.com'] }));
  assert.match(out.output, /allowlist/);
  assert.equal(outside.calls.length, 1);
  // Control: an allow-listed private host may be reached by a redirect.
  const allowed = fakeFetch({ 'https://a.example/': redirect('http://127.0.0.1:8080/ok'), 'http://127.0.0.1:8080/ok': page('fine') });
  const ok = await webFetch.run({ url: 'https://a.example/' }, fetchCtx(allowed.fn, { allowedPrivateHosts: ['127.0.0.1:8080'] }));
  assert.equal(ok.ok, true, ok.output);
  assert.match(ok.output, /fine/);
});

test('web_fetch: more than 5 redirects are refused; a chain of 5 with a relative Location works', async () => {
  /** @type {Record<string, () => Response>} */
  const six = {};
  for (let i = 0; i < 6; i++) six[`https://h.example/${i}`] = redirect(`https://h.example/${i + 1}`);
  six['https://h.example/6'] = page('end');
  const f6 = fakeFetch(six);
  const r6 = await webFetch.run({ url: 'https://h.example/0' }, fetchCtx(f6.fn));
  assert.equal(r6.ok, false);
  assert.match(r6.output, /more than 5 redirects/);
  assert.equal(f6.calls.length, 6);
  /** @type {Record<string, () => Response>} */
  const five = {};
  for (let i = 0; i < 5; i++)
    five[`https://h.example/${i}`] = redirect(i === 2 ? `/${i + 1}` : `https://h.example/${i + 1}`, i === 0 ? 301 : 307);
  five['https://h.example/5'] = page('end of chain');
  const f5 = fakeFetch(five);
  const r5 = await webFetch.run({ url: 'https://h.example/0' }, fetchCtx(f5.fn));
  assert.equal(r5.ok, true, r5.output);
  assert.match(r5.output, /end of chain/);
  assert.match(r5.output, /https:\/\/h\.example\/5/, 'the final address is shown');
});

test("web_fetch: a redirect whose target the fetch hides (a browser's opaque redirect) is not followed", async () => {
  const opaque = /** @type {Response} */ (
    /** @type {unknown} */ ({
      type: 'opaqueredirect',
      status: 0,
      statusText: '',
      url: 'https://a.example/',
      headers: new Headers(),
      body: null,
      ok: false,
      redirected: false,
    })
  );
  /** @type {string[]} */
  const calls = [];
  const fn = /** @type {typeof fetch} */ (
    async (input) => {
      calls.push(String(input));
      return opaque;
    }
  );
  const r = await webFetch.run({ url: 'https://a.example/' }, fetchCtx(fn));
  assert.equal(r.ok, false);
  assert.match(r.output, /redirect/i);
  assert.deepEqual(calls, ['https://a.example/']);
});

// ---------------------------------------------------------------------------------------------
// Autonomy usage: one shared count per workspace

test('two controllers sharing one usage store count together (concurrent turns, jobs)', () => {
  /** @type {any} */
  let stored = null;
  const store = {
    load: () => (stored ? structuredClone(stored) : null),
    save: (/** @type {any} */ u) => {
      stored = structuredClone(u);
    },
  };
  const now = () => Date.parse('2026-11-24T10:00:00Z');
  const a = new AutonomyController({ config: { level: 'full', maxActionsPerHour: 4, maxCostCentsPerDay: 100 }, now, ...store });
  const b = new AutonomyController({ config: { level: 'full', maxActionsPerHour: 4, maxCostCentsPerDay: 100 }, now, ...store });
  a.recordAction();
  b.recordAction();
  a.recordAction();
  assert.equal(b.checkLimits(), null, 'control: 3 of 4 used');
  b.recordAction();
  assert.match(a.checkLimits() ?? '', /4 tool actions per hour/);
  assert.match(b.checkLimits() ?? '', /4 tool actions per hour/);
  a.recordCost(60);
  b.recordCost(50);
  assert.equal(a.usage.costCents, 110);
  assert.match(a.checkLimits() ?? '', /./);
});

test('two tabs (two settings stores on one localStorage) share one count per workspace', () => {
  const storage = memoryStorage();
  const tab1 = new AgentSettingsStore({ config: new LocalConfig(storage), secrets: /** @type {any} */ (null) });
  const tab2 = new AgentSettingsStore({ config: new LocalConfig(storage), secrets: /** @type {any} */ (null) });
  const now = () => Date.parse('2026-11-24T10:00:00Z');
  const config = { level: /** @type {const} */ ('full'), maxActionsPerHour: 3, maxCostCentsPerDay: 0 };
  const a = new AutonomyController({ config, now, ...tab1.usageStore('ws', { now }) });
  const b = new AutonomyController({ config, now, ...tab2.usageStore('ws', { now }) });
  const other = new AutonomyController({ config, now, ...tab2.usageStore('other', { now }) });
  a.recordAction();
  b.recordAction();
  other.recordAction();
  assert.equal(a.checkLimits(), null, 'control: 2 of 3 in this workspace');
  b.recordAction();
  assert.match(a.checkLimits() ?? '', /3 tool actions per hour/);
  assert.equal(other.checkLimits(), null, 'another workspace has its own count');
  // A reload (a new store for the same storage) sees the count.
  const reloaded = new AutonomyController({
    config,
    now,
    ...new AgentSettingsStore({ config: new LocalConfig(storage), secrets: /** @type {any} */ (null) }).usageStore('ws', { now }),
  });
  assert.match(reloaded.checkLimits() ?? '', /3 tool actions per hour/);
});

// ---------------------------------------------------------------------------------------------
// The sealed-key master key is created once

test('two SecretBoxes racing a first seal create one master key: each unseals the other', async () => {
  const dbName = `race_${Math.random().toString(36).slice(2)}`;
  const one = new SecretBox({ dbName });
  const two = new SecretBox({ dbName });
  const [s1, s2] = await Promise.all([one.encrypt('from tab one'), two.encrypt('from tab two')]);
  assert.equal(await two.decrypt(s1), 'from tab one');
  assert.equal(await one.decrypt(s2), 'from tab two');
  // Control: a later box on the same database reads both.
  const three = new SecretBox({ dbName });
  assert.deepEqual([await three.decrypt(s1), await three.decrypt(s2)], ['from tab one', 'from tab two']);
});

// ---------------------------------------------------------------------------------------------
// The limits that existed only in code: validated as the Settings dialog submits them

test('the Settings limits parse with a clear message per wrong field', async () => {
  const { parseLimitFields } = await import('../../web/app/agent-settings.js');
  const good = parseLimitFields({
    allowedPrivateHosts: '127.0.0.1:8080, LOCALHOST\n[::1]:11434',
    maxIterations: '7',
    maxToolResultChars: '2000',
    maxReadKiB: '64',
    maxWriteKiB: '1',
  });
  assert.deepEqual(good, {
    ok: true,
    value: {
      allowedPrivateHosts: ['127.0.0.1:8080', 'localhost', '[::1]:11434'],
      maxIterations: 7,
      maxToolResultChars: 2000,
      maxReadBytes: 65536,
      maxWriteBytes: 1024,
    },
  });
  const bad = parseLimitFields({
    allowedPrivateHosts: 'http://127.0.0.1/',
    maxIterations: '0',
    maxToolResultChars: 'lots',
    maxReadKiB: '1.5',
    maxWriteKiB: '',
  });
  assert.equal(bad.ok, false);
  if (bad.ok) return;
  assert.match(bad.errors.allowedPrivateHosts ?? '', /host or host:port/);
  assert.match(bad.errors.maxIterations ?? '', /Steps per turn must be a whole number from 1 to 100/);
  assert.match(bad.errors.maxToolResultChars ?? '', /Tool result cap/);
  assert.match(bad.errors.maxReadKiB ?? '', /whole number/);
  assert.match(bad.errors.maxWriteKiB ?? '', /whole number/);
  // The saved settings round-trip through the store's schema.
  const store = new AgentSettingsStore({ config: new LocalConfig(memoryStorage()), secrets: /** @type {any} */ (null) });
  const cur = store.load('ws');
  const v = good.value;
  const saved = store.save('ws', {
    ...cur,
    allowedPrivateHosts: v.allowedPrivateHosts,
    maxIterations: v.maxIterations,
    maxToolResultChars: v.maxToolResultChars,
    tools: { ...cur.tools, maxReadBytes: v.maxReadBytes, maxWriteBytes: v.maxWriteBytes },
  });
  assert.deepEqual(
    [saved.maxIterations, saved.tools.maxReadBytes, store.load('ws').allowedPrivateHosts],
    [7, 65536, ['127.0.0.1:8080', 'localhost', '[::1]:11434']],
  );
});

test('the monthly cost limit: spend of earlier days and other (closed) tabs counts until the month ends; 80% warns; \
the next month starts at 0', () => {
  const storage = memoryStorage();
  let t = Date.parse('2026-11-03T10:00:00Z');
  const now = () => t;
  const config = { level: /** @type {const} */ ('full'), maxActionsPerHour: 0, maxCostCentsPerDay: 0, maxCostCentsPerMonth: 1000 };
  const page1 = new AutonomyController({
    config,
    now,
    ...new AgentSettingsStore({ config: new LocalConfig(storage), secrets: /** @type {any} */ (null) }).usageStore('ws', { now }),
  });
  page1.recordCost(850);
  assert.match(page1.costWarning() ?? '', /85% of this month's cost limit is used \(8\.50 USD of 10\.00 USD\)/);
  // Two days later, a reload (a new page): the earlier page's spend still counts.
  t = Date.parse('2026-11-05T10:00:00Z');
  const page2 = new AutonomyController({
    config,
    now,
    ...new AgentSettingsStore({ config: new LocalConfig(storage), secrets: /** @type {any} */ (null) }).usageStore('ws', { now }),
  });
  assert.equal(page2.usage.monthCents, 850);
  page2.recordCost(200);
  assert.match(page2.checkLimits() ?? '', /This month's cost limit of 10\.00 USD is reached \(10\.50 USD spent\)/);
  // Control: with the month over, the count starts again.
  t = Date.parse('2026-12-02T10:00:00Z');
  const page3 = new AutonomyController({
    config,
    now,
    ...new AgentSettingsStore({ config: new LocalConfig(storage), secrets: /** @type {any} */ (null) }).usageStore('ws', { now }),
  });
  assert.equal(page3.usage.monthCents, 0);
  assert.equal(page3.checkLimits(), null);
});
