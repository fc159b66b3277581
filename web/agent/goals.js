/** @import { FileSystem } from '../storage/types.d.ts' */
import { z } from 'zod';
import { readTextIfExists } from '../storage/index.js';
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
  const slug = g.description.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48) || 'goal';
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
    subs.length ? `## Sub-goals\n\n${subs.map((s) => `- [${s.status === 'completed' ? 'x' : ' '}] ${s.description} (${s.status})`).join('\n')}\n` : '',
    g.artifacts.length ? `## Files\n\n${g.artifacts.map((a) => `- ${a}`).join('\n')}\n` : '',
    g.progress.length ? `## Progress\n\n${g.progress.map((p) => `- ${new Date(p.at).toISOString().slice(0, 16).replace('T', ' ')} — ${p.note}`).join('\n')}\n` : '',
  ].filter((line, i, arr) => line !== '' || arr[i - 1] !== '').join('\n');
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

  /**
   * @param {{fs: FileSystem, now?: () => number, coordination?: import('./types.d.ts').Coordination, key?: string}} deps
   *   fs: the workspace file system; coordination + key (the workspace id): other tabs change the same goals
   */
  constructor(deps) {
    this.fs = deps.fs;
    this.now = deps.now ?? Date.now;
    this.coordination = deps.coordination;
    this.topic = `goals:${deps.key ?? ''}`;
    // Another tab changed the goals: read them again when next asked, and redraw.
    this.coordination?.subscribe(this.topic, () => {
      this.#goals = null;
      for (const fn of this.#listeners) fn();
    });
  }

  /**
   * A change: under the cross-tab lock, from the goals as stored now (another tab may have
   * changed them), then the other tabs are told.
   * @template T @param {() => Promise<T>} fn @returns {Promise<T>}
   */
  async #change(fn) {
    if (!this.coordination) return fn();
    const c = this.coordination;
    const out = await c.withLock(this.topic, async () => {
      this.#goals = null;
      return fn();
    });
    c.publish(this.topic, {});
    return out;
  }

  /** @param {() => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  async #load() {
    if (this.#goals) return this.#goals;
    const text = await readTextIfExists(this.fs, STORE);
    this.#goals = text ? FileSchema.parse(JSON.parse(text)).goals : [];
    return this.#goals;
  }

  /** @param {{status?: Goal['status']}} [filter] */
  async list(filter = {}) {
    return (await this.#load()).filter((g) => !filter.status || g.status === filter.status);
  }

  /** @param {Goal[]} goals @param {Goal[]} touched @param {Map<string, string>} oldPaths */
  async #save(goals, touched, oldPaths) {
    await this.fs.write(STORE, JSON.stringify({ version: 1, goals }, null, 2));
    this.#goals = goals;
    for (const g of touched) {
      const path = goalPath(g);
      const old = oldPaths.get(g.id);
      if (old && old !== path) await this.fs.delete(old);
      await this.fs.write(path, goalMarkdown(g, goals));
    }
    for (const fn of this.#listeners) fn();
  }

  /** @param {{description: string, parentId?: string}} input */
  add(input) {
    return this.#change(() => this.#add(input));
  }

  /** @param {{description: string, parentId?: string}} input */
  async #add(input) {
    const goals = await this.#load();
    if (input.parentId && !goals.some((g) => g.id === input.parentId)) throw new Error(`There is no goal with the id "${input.parentId}".`);
    const now = this.now();
    const goal = GoalSchema.parse({ id: `g${now.toString(36)}${Math.random().toString(36).slice(2, 6)}`, description: input.description.trim(), status: 'active', parentId: input.parentId, progress: [], artifacts: [], createdAt: now, updatedAt: now });
    const parent = goals.find((g) => g.id === input.parentId);
    await this.#save([...goals, goal], parent ? [goal, parent] : [goal], new Map());
    return goal;
  }

  /**
   * @param {string} id
   * @param {{status?: Goal['status'], progress?: string, artifacts?: string[], description?: string}} patch progress: a note appended
   */
  update(id, patch) {
    return this.#change(() => this.#update(id, patch));
  }

  /** @param {string} id @param {{status?: Goal['status'], progress?: string, artifacts?: string[], description?: string}} patch */
  async #update(id, patch) {
    const goals = await this.#load();
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
    await this.#save(all, parent ? [next, parent] : [next], oldPaths);
    return next;
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
