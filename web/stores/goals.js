/** @import { FileSystem } from '../storage/types.d.ts' */
import { z } from 'zod';
import { LockedJsonFile } from '../storage/locked-json.js';
import { LocalLocks } from '../storage/local-locks.js';
import { frameStandingData, framingSize } from '../safety/standing-data.js';

export const GOAL_STATUSES = /** @type {const} */ (['active', 'paused', 'completed', 'failed']);

export const GoalSchema = z.object({
  id: z.string().min(1).max(64),
  description: z.string().min(1).max(2000),
  status: z.enum(GOAL_STATUSES),
  parentId: z.string().max(64).optional(),
  progress: z.array(z.object({ at: z.number(), note: z.string().max(4000) })).max(1000),
  artifacts: z.array(z.string().max(1024)).max(200),
  createdAt: z.number(),
  updatedAt: z.number(),
});
/** @typedef {z.infer<typeof GoalSchema>} Goal */

const FileSchema = z.object({ version: z.literal(1), goals: z.array(GoalSchema) });
const STORE = '.goals/goals.json';

/** A file name from a goal: readable and unique. @param {Goal} g */
export function goalFileName(g) {
  const slug =
    g.description
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'goal';
  return `${slug}-${g.id}.md`;
}

/** The Markdown mirror of a goal (PRD 6.4: goals are files the user can read). @param {Goal} g @param {Goal[]} all */
export function goalMarkdown(g, all) {
  const subs = all.filter((x) => x.parentId === g.id);
  const parent = g.parentId ? all.find((x) => x.id === g.parentId) : undefined;
  return [
    `# ${g.description}`,
    '',
    `- Status: ${g.status}`,
    `- Created: ${new Date(g.createdAt).toISOString()}`,
    `- Updated: ${new Date(g.updatedAt).toISOString()}`,
    parent ? `- Part of: ${parent.description}` : '',
    '',
    subs.length
      ? `## Sub-goals\n\n${subs.map((s) => `- [${s.status === 'completed' ? 'x' : ' '}] ${s.description} (${s.status})`).join('\n')}\n`
      : '',
    g.artifacts.length ? `## Files\n\n${g.artifacts.map((a) => `- ${a}`).join('\n')}\n` : '',
    g.progress.length
      ? `## Progress\n\n` +
        `${g.progress.map((p) => `- ${new Date(p.at).toISOString().slice(0, 16).replace('T', ' ')} — ${p.note}`).join('\n')}\n`
      : '',
  ]
    .filter((line, i, arr) => line !== '' || arr[i - 1] !== '')
    .join('\n');
}

/** Where a goal's mirror lives: open goals under goals/active/, finished ones under goals/completed/. @param {Goal} g */
export const goalPath = (g) => `goals/${g.status === 'completed' || g.status === 'failed' ? 'completed' : 'active'}/${goalFileName(g)}`;

/**
 * The goals of a workspace — the one store the agent's goal tools and the goals panel both use.
 * The truth is `.goals/goals.json` (written atomically); every change also rewrites the goal's
 * Markdown mirror and moves it between goals/active/ and goals/completed/.
 */
export class GoalStore {
  /** The states a goal can be in (for pickers). */
  get statuses() {
    return GOAL_STATUSES;
  }

  /** Where a goal's Markdown mirror lives. @param {Goal} g */
  mirrorPathOf(g) {
    return goalPath(g);
  }

  /** @type {Goal[] | null} */
  #goals = null;
  /** @type {Set<() => void>} */
  #listeners = new Set();
  /** @type {LockedJsonFile<z.infer<typeof FileSchema>> | null} */
  #goalsFile = null;
  #localLocks = new LocalLocks();

  /**
   * @param {{fs: FileSystem, now?: () => number, coordination?: import('../agent/types.d.ts').Coordination, key?: string,
   *   onDamage?: import('../storage/damage.js').DamageSink}} deps
   *   fs: the workspace file system; coordination + key (the workspace id): other tabs change the same goals;
   *   onDamage: told when goals.json is damaged (the goals read as none, changes are refused, until it is set aside)
   */
  constructor(deps) {
    this.fs = deps.fs;
    this.onDamage = deps.onDamage;
    this.now = deps.now ?? Date.now;
    this.coordination = deps.coordination;
    this.topic = `goals:${deps.key ?? ''}`;
    // Another tab changed the goals: read them again when next asked, and redraw.
    this.coordination?.subscribe(this.topic, () => {
      this.#goals = null;
      for (const fn of this.#listeners) fn();
    });
  }

  /** `.goals/goals.json`, changed under the cross-tab lock (in-process when there are no tabs to share with). */
  get #file() {
    const c = this.coordination;
    return (this.#goalsFile ??= new LockedJsonFile({
      fs: this.fs,
      path: STORE,
      name: this.topic,
      lock: c ? (name, fn) => c.withLock(name, fn) : (name, fn) => this.#localLocks.request(name, {}, fn),
      empty: () => ({ version: /** @type {const} */ (1), goals: /** @type {Goal[]} */ ([]) }),
      schema: FileSchema,
      what: 'The goals of this workspace (.goals/goals.json)',
      ...(this.onDamage ? { onDamage: this.onDamage } : {}),
      onSetAside: () => {
        this.#goals = null;
        for (const fn of this.#listeners) fn();
      },
      onWritten: () => c?.publish(this.topic, {}),
    }));
  }

  /**
   * A change, made to the goals as stored now (another tab may have changed them) under the
   * cross-tab lock: the file first, then the Markdown mirrors of the goals it touched.
   * @template T
   * @param {(goals: Goal[]) => {goals: Goal[], touched: Goal[], oldPaths: Map<string, string>, result: T}} fn
   * @returns {Promise<T>}
   */
  async #change(fn) {
    const out = await this.#file.update((stored) => {
      const r = fn(stored.goals);
      return {
        result: r.result,
        changed: true,
        value: { version: /** @type {const} */ (1), goals: r.goals },
        afterWrite: async () => {
          this.#goals = r.goals;
          for (const g of r.touched) {
            const path = goalPath(g);
            const old = r.oldPaths.get(g.id);
            if (old && old !== path) await this.fs.delete(old);
            await this.fs.write(path, goalMarkdown(g, r.goals));
          }
        },
      };
    });
    for (const fn of this.#listeners) fn();
    return out.result;
  }

  /** @param {() => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** The goals as stored (none while goals.json is damaged: reported, kept as it is). */
  async #load() {
    return (this.#goals ??= (await this.#file.readOr()).goals);
  }

  /** @param {{status?: Goal['status']}} [filter] */
  async list(filter = {}) {
    return (await this.#load()).filter((g) => !filter.status || g.status === filter.status);
  }

  /** @param {string} id @returns {Promise<Goal | null>} */
  async get(id) {
    return (await this.#load()).find((g) => g.id === id) ?? null;
  }

  /**
   * Puts a goal back exactly as it was (undo of a turn), or removes it (null): the file, then
   * its Markdown mirror.
   * @param {string} id @param {Goal | null} goal
   */
  async restore(id, goal) {
    const next = goal ? GoalSchema.parse(goal) : null;
    await this.#file.update((stored) => {
      const current = stored.goals.find((g) => g.id === id);
      const goals = next
        ? current
          ? stored.goals.map((g) => (g.id === id ? next : g))
          : [...stored.goals, next]
        : stored.goals.filter((g) => g.id !== id);
      return {
        result: null,
        changed: true,
        value: { version: /** @type {const} */ (1), goals },
        afterWrite: async () => {
          this.#goals = goals;
          if (current && (!next || goalPath(current) !== goalPath(next))) await this.fs.delete(goalPath(current)).catch(() => {});
          if (next) await this.fs.write(goalPath(next), goalMarkdown(next, goals));
        },
      };
    });
    for (const fn of this.#listeners) fn();
  }

  /**
   * Deletes a goal and its sub-goals (theirs too): the file, then their Markdown mirrors; the
   * parent's mirror no longer lists it. Returns the goals deleted (the goal first).
   * @param {string} id
   * @returns {Promise<Goal[]>}
   */
  async delete(id) {
    const deleted = await this.#file.update((stored) => {
      const target = stored.goals.find((g) => g.id === id);
      if (!target) throw new Error(`There is no goal with the id "${id}". Use goal_list to see them.`);
      /** @type {Goal[]} */
      const gone = [target];
      for (let i = 0; i < gone.length; i++) gone.push(...stored.goals.filter((g) => g.parentId === gone[i].id));
      const ids = new Set(gone.map((g) => g.id));
      const goals = stored.goals.filter((g) => !ids.has(g.id));
      const parent = goals.find((g) => g.id === target.parentId);
      return {
        result: gone,
        changed: true,
        value: { version: /** @type {const} */ (1), goals },
        afterWrite: async () => {
          this.#goals = goals;
          for (const g of gone) await this.fs.delete(goalPath(g)).catch(() => {});
          if (parent) await this.fs.write(goalPath(parent), goalMarkdown(parent, goals));
        },
      };
    });
    for (const fn of this.#listeners) fn();
    return deleted.result;
  }

  /** @param {{description: string, parentId?: string}} input */
  add(input) {
    return this.#change((goals) => this.#add(input, goals));
  }

  /** @param {{description: string, parentId?: string}} input @param {Goal[]} goals */
  #add(input, goals) {
    if (input.parentId && !goals.some((g) => g.id === input.parentId)) throw new Error(`There is no goal with the id "${input.parentId}".`);
    const now = this.now();
    const goal = GoalSchema.parse({
      id: `g${now.toString(36)}${Math.random().toString(36).slice(2, 6)}`,
      description: input.description.trim(),
      status: 'active',
      parentId: input.parentId,
      progress: [],
      artifacts: [],
      createdAt: now,
      updatedAt: now,
    });
    const parent = goals.find((g) => g.id === input.parentId);
    return { goals: [...goals, goal], touched: parent ? [goal, parent] : [goal], oldPaths: new Map(), result: goal };
  }

  /**
   * @param {string} id
   * @param {{status?: Goal['status'], progress?: string, artifacts?: string[], description?: string}} patch progress: a note appended
   */
  update(id, patch) {
    return this.#change((goals) => this.#update(id, patch, goals));
  }

  /**
   * @param {string} id
   * @param {{status?: Goal['status'], progress?: string, artifacts?: string[], description?: string}} patch
   * @param {Goal[]} goals
   */
  #update(id, patch, goals) {
    const current = goals.find((g) => g.id === id);
    if (!current) throw new Error(`There is no goal with the id "${id}". Use goal_list to see them.`);
    const now = this.now();
    const next = GoalSchema.parse({
      ...current,
      description: patch.description?.trim() || current.description,
      status: patch.status ?? current.status,
      progress: patch.progress ? [...current.progress, { at: now, note: patch.progress }] : current.progress,
      artifacts: patch.artifacts ? [...new Set([...current.artifacts, ...patch.artifacts])] : current.artifacts,
      updatedAt: now,
    });
    const all = goals.map((g) => (g.id === id ? next : g));
    const parent = all.find((g) => g.id === next.parentId);
    const oldPaths = new Map([[current.id, goalPath(current)]]);
    if (parent) oldPaths.set(parent.id, goalPath(parent));
    return { goals: all, touched: parent ? [next, parent] : [next], oldPaths, result: next };
  }

  /**
   * Active goals for the system prompt, so the agent keeps pursuing them (bounded): framed as
   * data written earlier, each entry through the sanitizer (see safety/standing-data.js).
   * @param {number} [maxChars]
   * @param {import('../safety/input-sanitizer.js').InputSanitizer | null} [sanitizer]
   */
  async summary(maxChars = 2000, sanitizer = null) {
    const active = (await this.#load()).filter((g) => g.status === 'active');
    /** @type {{label: string, text: string}[]} */
    const entries = [];
    let used = framingSize('goals');
    /** @type {string | undefined} */
    let footer;
    for (const g of active) {
      const last = g.progress.at(-1);
      const entry = { label: `[${g.id}]`, text: `${g.description}${last ? ` — last progress: ${last.note}` : ''}`.slice(0, maxChars) };
      used += entry.label.length + entry.text.length + 4;
      if (used > maxChars && entries.length) {
        footer = `…and ${active.length - entries.length} more (goal_list shows all)`;
        break;
      }
      entries.push(entry);
    }
    return frameStandingData('goals', entries, sanitizer, footer).text;
  }
}
