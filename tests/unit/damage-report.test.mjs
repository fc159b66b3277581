// The page's notice of damaged files (web/app/damage-report.js): one notice for everything found,
// wherever the person is; a file found again (each list, each opening, another reader) is listed
// once; set aside, it leaves the list; its raw path is where it is in the browser's storage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';

/** @returns {Promise<any>} */ // any: the module is new in issue 32 (this file runs, and fails test by test, without it)
const load = () =>
  import('../../web/app/damage-report.js').catch(() => ({
    DamageReport: class {
      constructor() {
        throw new Error('no DamageReport');
      }
    },
  }));

/** Banners that record what is shown. */
function banners() {
  /** @type {Map<string, {text: string, kind?: string, action?: {label: string}}>} */
  const shown = new Map();
  return {
    shown,
    root: /** @type {HTMLElement} */ (/** @type {unknown} */ (null)),
    show: (/** @type {string} */ id, /** @type {string} */ text, /** @type {any} */ options = {}) => {
      shown.set(id, { text, ...options });
    }, // any: the banner options as passed
    hide: (/** @type {string} */ id) => {
      shown.delete(id);
    },
  };
}

test('one notice for every damaged file, listed once however often it is found; set aside, it leaves the list \
(and may be reported anew)', async () => {
  const { DamageReport, DAMAGE_BANNER } = await load();
  const b = banners();
  const fs = new MemoryFileSystem();
  const report = new DamageReport({
    fs,
    banners: b,
    onError: (/** @type {unknown} */ e) => {
      throw e;
    },
  });
  assert.equal(b.shown.size, 0, 'control: nothing found, no notice');
  const sink = report.sink({ where: 'Workspace “Notes”', fs, prefix: 'clawser_workspaces/w1/' });
  let setAside = 0;
  const goals = {
    what: 'The goals of this workspace (.goals/goals.json)',
    problem: 'cut short: the file ends in the middle of its data (x)',
    path: '.goals/goals.json',
    setAside: async () => {
      setAside++;
      return '.goals/goals.damaged-1.json';
    },
  };
  sink(goals);
  sink({ ...goals, problem: 'another reader says it differently' });
  assert.equal(report.items.length, 1);
  assert.match(report.items[0].problem, /^cut short/, 'the first report stands');
  assert.equal(report.items[0].rawPath, 'clawser_workspaces/w1/.goals/goals.json');
  const notice = b.shown.get(DAMAGE_BANNER);
  assert.equal(notice?.kind, 'warn');
  assert.equal(notice?.action?.label, 'Review');
  assert.match(
    String(notice?.text),
    new RegExp(
      String.raw`a damaged file \(Workspace “Notes”\): The goals of this workspace \(\.goals\/goals\.json\)` +
        String.raw` — cut short: the file ends in the middle of its data\. Everything else works, and nothing was overwritten\.`,
    ),
  );
  sink({
    what: 'Conversation “Trip”: its log (events.jsonl)',
    problem: '1 line could not be read',
    path: '.conversations/c/events.jsonl',
    keptAt: '.conversations/c/events.damaged.jsonl',
  });
  sink({
    what: 'Conversation “Trip”: its log (events.jsonl)',
    problem: '2 lines could not be read',
    path: '.conversations/c/events.jsonl',
    keptAt: '.conversations/c/events.damaged.jsonl',
  });
  assert.equal(report.items.length, 2, 'lines found later update the same entry');
  assert.equal(report.items[1].problem, '2 lines could not be read');
  assert.match(String(b.shown.get(DAMAGE_BANNER)?.text), /2 damaged files/);
  assert.equal(await report.setAside(report.items[0]), '.goals/goals.damaged-1.json');
  assert.equal(setAside, 1);
  assert.equal(report.items.length, 1);
  sink(goals);
  assert.equal(report.items.length, 2, 'damaged again after it was set aside: news');
});

test("records from outside a store (the crash helper's, plain data) are listed too", async () => {
  const { DamageReport, DAMAGE_BANNER } = await load();
  const b = banners();
  const report = new DamageReport({ fs: new MemoryFileSystem(), banners: b, onError: () => {} });
  report.add({ what: 'The workspace list', where: 'Every workspace', problem: 'garbage', rawPath: 'clawser_workspaces.json' });
  assert.equal(report.items.length, 1);
  assert.match(String(b.shown.get(DAMAGE_BANNER)?.text), /The workspace list — garbage/);
  await assert.rejects(report.setAside(report.items[0]), /cannot be set aside here/);
});
