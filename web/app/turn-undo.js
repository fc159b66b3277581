/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { UndoDomains, TurnRecorder as TurnRecorderType } from '../agent/undo.js' */
import { TurnRecorder, RecordingFileSystem, fileDomain, recordingStore } from '../agent/undo.js';
import { normKey } from '../memory/store.js';

/**
 * Wiring of per-turn undo (web/agent/undo.js) to a workspace's stores: how each kind of thing
 * is read and put back, and a turn's tool context whose file system and stores tell the
 * recorder before they change anything.
 */


/**
 * @param {{fs: FileSystem, memory?: import('../memory/store.js').MemoryStore, goals?: import('../agent/goals.js').GoalStore, scheduler?: import('../agent/scheduler.js').Scheduler}} stores
 *   fs: the workspace's files as the tools see them (Clawser's own folders read-only)
 * @returns {UndoDomains}
 */
export function undoDomains(stores) {
  /** @type {UndoDomains} */
  const domains = { file: fileDomain(stores.fs) };
  const memory = stores.memory;
  if (memory) {
    domains.memory = {
      async get(key) {
        return (await memory.list()).find((m) => normKey(m.key) === key) ?? null;
      },
      async set(key, value) {
        if (!value) {
          await memory.forget(key);
          return;
        }
        // Exactly as it was: who wrote it and when stay (an agent's memory stays the agent's).
        await memory.restore(/** @type {import('../memory/store.js').MemoryEntry} */ (value));
      },
      // What the entry says, not its bookkeeping (a summary made since is not a change).
      same: (a, b) => {
        const pick = (/** @type {any} */ e) => (e ? JSON.stringify([e.id, e.key, e.content, e.category, !!e.pinned]) : 'null');
        return pick(a) === pick(b);
      },
      describe: (key) => `the memory “${key}”`,
    };
  }
  const goals = stores.goals;
  if (goals) {
    domains.goal = {
      get: (id) => goals.get(id),
      set: (id, value) => goals.restore(id, /** @type {any} */ (value)), // any: a Goal as recorded (validated by restore)
      describe: (id) => `the goal ${id}`,
    };
  }
  const scheduler = stores.scheduler;
  if (scheduler) {
    /** The fields that make a job what it is (its run bookkeeping changes on its own). @param {any} j */
    const defining = (j) => (j ? JSON.stringify([j.name, j.trigger, j.action, j.delivery, !!j.paused, !!j.done, j.conversationId ?? null]) : 'null');
    domains.job = {
      async get(id) {
        const j = await scheduler.get(id);
        if (!j) return null;
        const { nextRunAt: _next, ...job } = j;
        return job;
      },
      set: (id, value) => scheduler.restore(id, /** @type {any} */ (value)), // any: a Job as recorded (validated by restore)
      same: (a, b) => defining(a) === defining(b),
      describe: (id) => `the scheduled job ${id}`,
    };
  }
  return domains;
}

/**
 * A turn's recorder, and the tool context pieces that report to it.
 * @param {{fs: FileSystem, memory?: import('../memory/store.js').MemoryStore, goals?: import('../agent/goals.js').GoalStore, scheduler?: import('../agent/scheduler.js').Scheduler}} stores
 * @param {TurnRecorderType} [recorder] a caller's recorder (a sub-agent's changes belong to its caller's turn)
 * @param {Set<string>} [written] collects the paths this context's tools changed
 */
export function recordingContext(stores, recorder, written) {
  const r = recorder ?? new TurnRecorder(undoDomains(stores));
  const memory = stores.memory;
  return {
    recorder: r,
    fs: new RecordingFileSystem(stores.fs, r, written),
    memory: memory && recordingStore(memory, r, 'memory', {
      store: { before: ([input]) => normKey(String(input?.key ?? '')) },
      update: { before: async ([id]) => { const e = (await memory.list()).find((m) => m.id === id); return e ? normKey(e.key) : null; } },
      forget: { before: async ([idOrKey]) => { const e = (await memory.list()).find((m) => m.id === idOrKey || normKey(m.key) === normKey(String(idOrKey))); return e ? normKey(e.key) : null; } },
    }),
    goals: stores.goals && recordingStore(stores.goals, r, 'goal', {
      add: { after: (goal) => goal?.id ?? null },
      update: { before: ([id]) => String(id) },
    }),
    scheduler: stores.scheduler && recordingStore(stores.scheduler, r, 'job', {
      add: { after: (job) => job?.id ?? null },
      remove: { before: ([id]) => String(id) },
      pause: { before: ([id]) => String(id) },
      resume: { before: ([id]) => String(id) },
      update: { before: ([id]) => String(id) },
    }),
  };
}
