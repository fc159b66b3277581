// Issue 32 §9: the pure readers that tell a damaged file from a good one (JSON documents, log
// lines, git's index), and every store of a workspace fed a damaged file: it goes on without
// it, reports it once with a way to set it aside, and overwrites nothing until then. Each with
// its control: the intact file reads, nothing is reported, changes are written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { LockedJsonFile } from '../../web/storage/locked-json.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { fromBase64 } from '../../web/storage/base64.js';
import { GoalStore } from '../../web/stores/goals.js';
import { Scheduler } from '../../web/stores/scheduler.js';
import { UsageLedger } from '../../web/stores/usage-ledger.js';
import { AgentStore } from '../../web/agent/runtime/agent-store.js';
import { UndoStore } from '../../web/agent/runtime/undo.js';
import { MemoryStore } from '../../web/memory/store.js';
import { SkillStore } from '../../web/skills/store.js';
import { WorkspaceGit } from '../../web/git/git.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';

// Loaded so, this file also runs (and fails test by test) against code without these new modules.
const d = /** @type {any} */ (await import('../../web/storage/damage.js').catch(() => ({}))); // any: the module is new in issue 32
/** @returns {Promise<any>} */ // any: as above
const indexCheck = () =>
  import('../../web/git/index-check.js').catch(() => ({
    gitIndexProblem: () => {
      throw new Error('no index check');
    },
  }));

/** A sink that records what it is told. */
function recorder() {
  /** @type {import('../../web/storage/damage.js').DamageNotice[]} */
  const notices = [];
  return { notices, onDamage: (/** @type {import('../../web/storage/damage.js').DamageNotice} */ n) => notices.push(n) };
}

test('readJson and jsonProblem: cut short, garbage, empty, broken and the wrong shape are told apart; an intact document reads \
(control)', () => {
  const schema = z.object({ version: z.literal(1), items: z.array(z.string()) });
  assert.deepEqual(d.readJson('{"version":1,"items":["a"]}', schema), { ok: true, value: { version: 1, items: ['a'] } });
  assert.match(d.readJson('{"version":1,"items":["a', schema).problem, /^cut short/);
  assert.match(d.readJson('{"version":1,"it', schema).problem, /^cut short/);
  assert.match(d.readJson('\u0000\u0001\u00ff', schema).problem, /^garbage/);
  assert.match(d.readJson('', schema).problem, /^empty/);
  assert.match(d.readJson('{"version":1,,}', schema).problem, /^not valid JSON/);
  assert.match(d.readJson('{"version":2,"items":[3]}', schema).problem, /^not in the expected shape \(version: .*; items\.0: /);
});

test('asidePath names a set-aside file next to the original, kept apart by the time', () => {
  assert.equal(d.asidePath('a/b/meta.json', Date.UTC(2025, 0, 2, 3, 4, 5, 6)), 'a/b/meta.damaged-2025-01-02T03-04-05-006Z.json');
  assert.equal(d.asidePath('.git/index', 0), '.git/index.damaged-1970-01-01T00-00-00-000Z');
  assert.equal(d.asidePath('.skills/notes', 0), '.skills/notes.damaged-1970-01-01T00-00-00-000Z');
});

test('keepDamagedLines keeps each damaged line once, with its exact bytes, and survives a torn record of its own; \
nothing to keep writes nothing (control)', async () => {
  const fs = new MemoryFileSystem();
  assert.deepEqual(await d.keepDamagedLines(fs, 'log/events.jsonl', []), []);
  assert.equal(await fs.stat('log/events.damaged.jsonl'), null, 'control: no file');
  const line = { offset: 10, bytes: Uint8Array.from([0, 255, 7]), problem: 'garbage' };
  assert.equal((await d.keepDamagedLines(fs, 'log/events.jsonl', [line])).length, 1);
  assert.equal((await d.keepDamagedLines(fs, 'log/events.jsonl', [line])).length, 0, 'kept once');
  await fs.append('log/events.damaged.jsonl', '{"offset":99,"raw":"AA');
  const other = { offset: 20, bytes: Uint8Array.from([1]), problem: 'x', last: true };
  assert.equal((await d.keepDamagedLines(fs, 'log/events.jsonl', [line, other])).length, 1);
  const records = (await fs.readText('log/events.damaged.jsonl'))
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
  assert.deepEqual(
    records.map((r) => [r.offset, [...fromBase64(r.raw)], r.last ?? false]),
    [
      [10, [0, 255, 7], false],
      [20, [1], true],
    ],
  );
});

test('gitIndexProblem: an index git wrote reads (control); cut short, garbage and entries that are not there are caught', async () => {
  const { gitIndexProblem } = await indexCheck();
  const fs = new MemoryFileSystem();
  await fs.write('a.txt', 'alpha');
  await fs.write('dir/b.txt', 'bravo');
  await new WorkspaceGit(fs).commitAll({ message: 'one' });
  const index = await fs.readBytes('.git/index');
  assert.equal(await gitIndexProblem(index), null);
  assert.match(await gitIndexProblem(index.slice(0, index.length - 7)), /checksum/);
  assert.match(await gitIndexProblem(index.slice(0, 20)), /cut short/);
  assert.match(await gitIndexProblem(new Uint8Array(64).fill(7)), /^garbage/);
  assert.match(await gitIndexProblem(new Uint8Array(0)), /^empty/);
  const head = Uint8Array.from([...new TextEncoder().encode('DIRC'), 0, 0, 0, 2, 0, 0, 0, 5]);
  const sha = new Uint8Array(await crypto.subtle.digest('SHA-1', head));
  assert.match(await gitIndexProblem(Uint8Array.from([...head, ...sha])), /^not in the expected shape \(entry 1 of 5/);
});

test('LockedJsonFile with a schema: a damaged file reads as empty (reported), changes are refused and write nothing; set aside, \
it works again', async () => {
  const fs = new MemoryFileSystem();
  const { notices, onDamage } = recorder();
  let setAside = 0;
  const file = new LockedJsonFile({
    fs,
    path: 'x/doc.json',
    schema: z.object({ n: z.number() }),
    empty: () => ({ n: 0 }),
    lock: (_n, fn) => fn(),
    name: 'doc',
    what: 'The doc',
    onDamage,
    onSetAside: () => {
      setAside++;
    },
  });
  await fs.write('x/doc.json', '{"n":');
  assert.deepEqual(await file.readOr(), { n: 0 });
  assert.equal(notices.length, 1);
  assert.match(notices[0].problem, /^cut short/);
  await assert.rejects(
    file.update((v) => ({ result: null, changed: true, value: { n: v.n + 1 } })),
    { code: 'damaged', message: /The doc is damaged \(cut short.*download it or set it aside/ },
  );
  assert.equal(await fs.readText('x/doc.json'), '{"n":', 'not overwritten');
  const to = await /** @type {() => Promise<string>} */ (notices[0].setAside)();
  assert.equal(await fs.readText(to), '{"n":');
  assert.equal(setAside, 1);
  await file.update((v) => ({ result: null, changed: true, value: { n: v.n + 1 } }));
  assert.deepEqual(await file.read(), { n: 1 });
});

test('goals: a damaged goals.json reads as no goals (reported), a new goal is refused and the file kept; control: \
intact goals list and change', async () => {
  const fs = new MemoryFileSystem();
  const { notices, onDamage } = recorder();
  const control = new GoalStore({ fs, onDamage });
  await control.add({ description: 'Ship the report' });
  assert.equal((await new GoalStore({ fs, onDamage }).list()).length, 1);
  assert.equal(notices.length, 0);
  await fs.write('.goals/goals.json', '{"version":1,"goals":[{"id":');
  const store = new GoalStore({ fs, onDamage });
  assert.deepEqual(await store.list(), []);
  assert.equal(notices.length, 1);
  assert.equal(notices[0].path, '.goals/goals.json');
  await assert.rejects(store.add({ description: 'Another' }), { code: 'damaged' });
  assert.equal(await fs.readText('.goals/goals.json'), '{"version":1,"goals":[{"id":');
  await /** @type {() => Promise<string>} */ (notices[0].setAside)();
  await store.add({ description: 'Another' });
  assert.deepEqual(
    (await store.list()).map((g) => g.description),
    ['Another'],
  );
});

test('scheduled jobs: started on a damaged jobs.json, the clock runs nothing and throws nothing (reported); set aside, \
jobs are added and run again', async () => {
  const fs = new MemoryFileSystem();
  const { notices, onDamage } = recorder();
  await fs.write('.scheduler/jobs.json', '\u0000garbage');
  /** @type {string[]} */
  const ran = [];
  const timers = { set: () => /** @type {any} */ (0), clear: () => {} }; // any: no real timer in this test
  const scheduler = new Scheduler({
    fs,
    onDamage,
    timers,
    execute: async (job) => {
      ran.push(job.name);
      return { ok: true, summary: '' };
    },
  });
  await scheduler.start();
  assert.deepEqual(await scheduler.list(), []);
  assert.ok(notices.length >= 1);
  assert.match(notices[0].problem, /^garbage/);
  assert.equal(await fs.readText('.scheduler/jobs.json'), '\u0000garbage');
  await /** @type {() => Promise<string>} */ (notices[0].setAside)();
  await scheduler.add({ name: 'Now', when: 'in 1 minute', action: { kind: 'prompt', prompt: 'x' } });
  assert.equal((await scheduler.list()).length, 1);
  scheduler.stop();
});

test('usage statistics: a damaged ledger reads as nothing counted (reported); the next write sets it aside \
(kept) and counts again', async () => {
  const fs = new MemoryFileSystem();
  const { notices, onDamage } = recorder();
  await fs.write('.usage/ledger.json', '[1,2,3]');
  const ledger = new UsageLedger({ fs, onDamage });
  assert.deepEqual((await ledger.read()).days, {});
  assert.equal(notices.length, 1);
  ledger.recordTool({ name: 'fs_read', ok: true, blocked: false, durationMs: 1 });
  await ledger.flush();
  const aside = (await fs.list('.usage')).map((e) => e.name).find((n) => n.startsWith('ledger.damaged-'));
  assert.ok(aside);
  assert.equal(await fs.readText(`.usage/${aside}`), '[1,2,3]');
  assert.match(notices.at(-1)?.problem ?? '', /set aside, kept as .*counting started again/);
  assert.equal(Object.keys((await ledger.read()).days).length, 1);
});

test('named agents and identity: damaged files are reported (the default persona answers) and set aside on request; control: \
intact ones are used', async () => {
  const root = new MemoryFileSystem();
  const fs = new ScopedFileSystem(root, 'clawser_workspaces/ws');
  const globalFs = new ScopedFileSystem(root, 'clawser_agents');
  const { notices, onDamage } = recorder();
  const global = recorder();
  const store = new AgentStore({ fs, globalFs, onDamage, onGlobalDamage: global.onDamage });
  await store.save({ name: 'writer' }, 'workspace');
  await store.setIdentity({ format: 'json', text: JSON.stringify({ names: { display: 'Ada' } }) });
  assert.equal((await store.list())[0].identity?.text.includes('Ada'), true);
  assert.equal(notices.length, 0);
  await fs.write('.agents/agents.json', '{"version":1,"agents":[');
  await fs.write('.agents/config/identity.json', '{"names":"Ada"}');
  await globalFs.write('agents.json', '\u0000');
  const names = (await store.list()).map((a) => a.name);
  assert.deepEqual(names, ['clawser']);
  assert.deepEqual(notices.map((n) => n.path).sort(), ['.agents/agents.json', '.agents/config/identity.json']);
  assert.deepEqual(
    global.notices.map((n) => n.path),
    ['agents.json'],
  );
  for (const n of [...notices, ...global.notices]) await /** @type {() => Promise<string>} */ (n.setAside)();
  await store.save({ name: 'writer' }, 'workspace');
  assert.deepEqual(
    (await store.list()).map((a) => a.name),
    ['clawser', 'writer'],
  );
});

test('skills: a skill whose SKILL.md is damaged is reported and not offered; set aside, \
its folder is kept under another name and no longer listed', async () => {
  const root = new MemoryFileSystem();
  const workspaceFs = new ScopedFileSystem(root, 'clawser_workspaces/ws');
  const { notices, onDamage } = recorder();
  const store = new SkillStore({
    globalFs: new ScopedFileSystem(root, 'clawser_skills'),
    workspaceFs,
    config: new LocalConfig(memoryStorage()),
    workspaceId: 'ws',
    onDamage,
  });
  await store.install('notes', new Map([['SKILL.md', '---\nname: notes\ndescription: Takes notes.\n---\nBody\n']]));
  await store.install('todo', new Map([['SKILL.md', '---\nname: todo\ndescription: Keeps a list.\n---\nBody\n']]));
  assert.equal((await store.active()).length, 2);
  assert.equal(notices.length, 0, 'control');
  await workspaceFs.write('.skills/notes/SKILL.md', '---\nname: no');
  const fresh = new SkillStore({
    globalFs: new ScopedFileSystem(root, 'clawser_skills'),
    workspaceFs,
    config: new LocalConfig(memoryStorage()),
    workspaceId: 'ws',
    onDamage,
  });
  assert.deepEqual(
    (await fresh.active()).map((s) => s.name),
    ['todo'],
  );
  assert.equal(notices.length, 1);
  assert.equal(notices[0].path, '.skills/notes/SKILL.md');
  const to = await /** @type {() => Promise<string>} */ (notices[0].setAside)();
  assert.equal(await workspaceFs.readText(`${to}/SKILL.md`), '---\nname: no');
  assert.deepEqual(
    (await fresh.list()).map((s) => s.name),
    ['todo'],
  );
});

test('undo records: a damaged record is reported and not offered, the others are; a set-aside one is not read again', async () => {
  const fs = new MemoryFileSystem();
  const { notices, onDamage } = recorder();
  const undo = new UndoStore(fs, 'conv', { onDamage, title: 'Trip' });
  await fs.write('conv/undo/t1.json', '{"id":"t1"');
  assert.deepEqual(await undo.list(), []);
  assert.equal(notices.length, 1);
  assert.match(notices[0].what, /Conversation “Trip”: the undo record of a turn \(t1\.json\)/);
  await /** @type {() => Promise<string>} */ (notices[0].setAside)();
  assert.deepEqual(await undo.list(), []);
  assert.equal(notices.length, 1, 'the set-aside file is not a record');
});

test('memory: a torn last line is kept (exact bytes) then cut off, so the next memory is not glued to it; \
damaged middle lines are kept once; a damaged format file is reported', async () => {
  const fs = new MemoryFileSystem();
  const { notices, onDamage } = recorder();
  const first = new MemoryStore({ fs, onDamage });
  await first.store({ key: 'colour', content: 'blue' });
  await first.flush();
  await first.store({ key: 'town', content: 'Lyon' });
  await first.flush();
  assert.equal(notices.length, 0, 'control: an intact log');
  const log = await fs.readBytes('.memory/entries.jsonl');
  const nl = log.indexOf(0x0a);
  const garbage = Uint8Array.from([0xff, 0x00, 0x7b]);
  const torn = new TextEncoder().encode('{"op":"put","entry":{"id":"m9","key":"ha');
  await fs.write('.memory/entries.jsonl', Uint8Array.from([...log.slice(0, nl + 1), ...garbage, 0x0a, ...log.slice(nl + 1), ...torn]));
  await fs.write('.memory/meta.json', '{"format":');
  const second = new MemoryStore({ fs, onDamage });
  assert.deepEqual((await second.list()).map((e) => e.key).sort(), ['colour', 'town']);
  assert.deepEqual(notices.map((n) => n.path).sort(), ['.memory/entries.jsonl', '.memory/meta.json']);
  const kept = (await fs.readText('.memory/entries.damaged.jsonl'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    kept.map((k) => [...fromBase64(k.raw)]),
    [[...garbage], [...torn]],
  );
  assert.ok(!(await fs.readText('.memory/entries.jsonl')).includes('"ha'), 'the torn line was cut off once kept');
  await second.store({ key: 'pet', content: 'cat' });
  await second.flush();
  const third = new MemoryStore({ fs, onDamage });
  assert.deepEqual(
    (await third.list()).map((e) => e.key).sort(),
    ['colour', 'pet', 'town'],
    'the memory stored after the torn line is read back',
  );
  assert.equal(notices.filter((n) => n.path === '.memory/entries.jsonl').length, 1, 'kept lines are reported once');
});

test('git: a damaged index makes git refuse with code "damaged" (reported), never with a raw error; set aside, \
status and commits work again', async () => {
  const fs = new MemoryFileSystem();
  await fs.write('a.txt', 'alpha');
  const { notices, onDamage } = recorder();
  const repo = new WorkspaceGit(fs, { onDamage });
  await repo.commitAll({ message: 'one' });
  assert.equal((await repo.status()).length, 1, 'control');
  assert.equal(notices.length, 0);
  const index = await fs.readBytes('.git/index');
  await fs.write('.git/index', index.slice(0, 30));
  await assert.rejects(repo.status(), { code: 'damaged', message: /git index of this workspace .* is damaged/ });
  assert.equal(notices.length, 1);
  await /** @type {() => Promise<string>} */ (notices[0].setAside)();
  await fs.write('a.txt', 'alpha 2');
  assert.ok(await repo.commitAll({ message: 'two' }));
  assert.deepEqual(
    (await repo.status()).map((s) => s.state),
    ['unchanged'],
  );
});
