/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { UndoDomains, TurnRecorder as TurnRecorderType } from '../agent/runtime/undo.js' */
import { TurnRecorder, RecordingFileSystem, fileDomain, recordingStore } from '../agent/runtime/undo.js';
import { normKey } from '../memory/store.js';
import { goalPath } from '../stores/goals.js';

/**
 * Wiring of per-turn undo (web/agent/runtime/undo.js) to a workspace's stores: how each kind of thing
 * is read and put back, and a turn's tool context whose file system and stores tell the
 * recorder before they change anything.
 */

/**
 * @param {{fs: FileSystem, memory?: import('../memory/store.js').MemoryStore, goals?: import('../stores/goals.js').GoalStore,
 *   scheduler?: import('../stores/scheduler.js').Scheduler}} stores
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
      // A goal's Markdown mirror is a workspace file: the commit after an undo includes it.
      paths: (_id, value) => (value ? [goalPath(/** @type {import('../stores/goals.js').Goal} */ (value))] : []),
    };
  }
  const scheduler = stores.scheduler;
  if (scheduler) {
    /** The fields that make a job what it is (its run bookkeeping changes on its own). @param {any} j */
    const defining = (j) =>
      j ? JSON.stringify([j.name, j.trigger, j.action, j.delivery, !!j.paused, !!j.done, j.conversationId ?? null]) : 'null';
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
 * The paths a turn's tools changed (what the commit after the turn holds). A sub-agent's set
 * also adds each path to its caller's: its changes are the caller's turn's.
 * @extends {Set<string>}
 */
export class TurnPaths extends Set {
  /** @param {Set<string>} [caller] */
  constructor(caller) {
    super();
    this.caller = caller;
  }

  /** @override @param {string} path */
  add(path) {
    this.caller?.add(path);
    return super.add(path);
  }
}

/**
 * A turn's recorder, and the tool context pieces that report to it.
 * @param {{fs: FileSystem, memory?: import('../memory/store.js').MemoryStore, goals?: import('../stores/goals.js').GoalStore,
 *   scheduler?: import('../stores/scheduler.js').Scheduler, git?: import('../git/git.js').WorkspaceGit}} stores
 * @param {TurnRecorderType} [recorder] a caller's recorder (a sub-agent's changes belong to its caller's turn)
 * @param {Set<string>} [written] collects the paths this context's tools changed: files, a goal's mirror, what a git restore wrote
 */
export function recordingContext(stores, recorder, written) {
  const r = recorder ?? new TurnRecorder(undoDomains(stores));
  const memory = stores.memory;
  return {
    recorder: r,
    fs: new RecordingFileSystem(stores.fs, r, written),
    memory:
      memory &&
      recordingStore(memory, r, 'memory', {
        store: { before: ([input]) => normKey(String(input?.key ?? '')) },
        update: {
          before: async ([id]) => {
            const e = (await memory.list()).find((m) => m.id === id);
            return e ? normKey(e.key) : null;
          },
        },
        forget: {
          before: async ([idOrKey]) => {
            const e = (await memory.list()).find((m) => m.id === idOrKey || normKey(m.key) === normKey(String(idOrKey)));
            return e ? normKey(e.key) : null;
          },
        },
      }),
    goals:
      stores.goals &&
      recordingStore(written ? mirrorReporting(stores.goals, written) : stores.goals, r, 'goal', {
        add: { after: (goal) => goal?.id ?? null },
        update: { before: ([id]) => String(id) },
      }),
    scheduler:
      stores.scheduler &&
      recordingStore(stores.scheduler, r, 'job', {
        add: { after: (job) => job?.id ?? null },
        remove: { before: ([id]) => String(id) },
        pause: { before: ([id]) => String(id) },
        resume: { before: ([id]) => String(id) },
        update: { before: ([id]) => String(id) },
      }),
    git: stores.git && recordingGit(stores.git, r, written),
  };
}

/**
 * The goal store as a turn's tools see it: the Markdown mirrors a change rewrites (the goal's,
 * where it was and where it is now, and its parent's, which lists it) are the turn's paths.
 * @param {import('../stores/goals.js').GoalStore} goals @param {Set<string>} written
 * @returns {import('../stores/goals.js').GoalStore}
 */
function mirrorReporting(goals, written) {
  /** @param {import('../stores/goals.js').Goal | null} g */
  const note = async (g) => {
    if (!g) return;
    written.add(goalPath(g));
    const parent = g.parentId ? await goals.get(g.parentId).catch(() => null) : null;
    if (parent) written.add(goalPath(parent));
  };
  return new Proxy(goals, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop !== 'add' && prop !== 'update') return value.bind(target);
      return async (/** @type {any[]} */ ...args) => {
        // any: the store method's own arguments
        const before = prop === 'update' ? await target.get(String(args[0])).catch(() => null) : null;
        const goal = await value.apply(target, args);
        await note(before);
        await note(goal);
        return goal;
      };
    },
  });
}

/**
 * The repository as a turn's tools see it: a restore tells the recorder before each file it
 * changes (undo puts it back) and counts it among the turn's paths (the commit after the turn).
 * @param {import('../git/git.js').WorkspaceGit} git @param {TurnRecorderType} recorder @param {Set<string>} [written]
 * @returns {import('../git/git.js').WorkspaceGit}
 */
function recordingGit(git, recorder, written) {
  return new Proxy(git, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === 'restore') {
        /** @type {import('../git/git.js').WorkspaceGit['restore']} */
        const restore = (ref, options = {}) =>
          target.restore(ref, {
            ...options,
            onChange: async (path) => {
              await recorder.touch('file', path);
              written?.add(path);
              await options.onChange?.(path);
            },
          });
        return restore;
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
