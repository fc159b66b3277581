/**
 * Branches of a conversation. The event log stays append-only and linear on disk; a `branch`
 * event moves the head (the event the next one follows), so an edited message or a regenerated
 * reply is a new child next to the old one and every earlier version is kept. Each event's
 * parent is the head when it was appended; the conversation shown (and sent to the model) is the
 * path from the first event to the head. Pure logic: no storage, no DOM.
 */
/** @import { ClawserEvent } from '../types.d.ts' */

/**
 * The records of an undo and a redo: they follow the point the head was moved to, beside the
 * turn they took back, yet they are not another version of the conversation to switch to (the
 * way back to an undone turn is Redo).
 */
const TAKE_BACK = new Set(['turn_undone', 'turn_redone']);

export class BranchTree {
  /** @type {Map<string, string | null>} */ #parent = new Map();
  /** @type {Map<string | null, string[]>} */ #children = new Map();
  /** @type {Map<string, ClawserEvent>} */ #byId = new Map();
  /** @type {string | null} */ #head = null;

  /** @param {Iterable<ClawserEvent>} [events] in log order */
  constructor(events = []) {
    for (const e of events) this.add(e);
  }

  /** The event the next one follows (null: the next one starts the conversation). */
  get head() {
    return this.#head;
  }

  /**
   * Takes the next event of the log. A `branch` event naming an unknown event is ignored (a log
   * cut short before it, or a hand-edited file): the head stays where it was.
   * @param {ClawserEvent} e
   */
  add(e) {
    if (e.type === 'branch') {
      const to = typeof e.data.head === 'string' ? e.data.head : null;
      if (to === null || this.#byId.has(to)) this.#head = to;
      return;
    }
    if (this.#byId.has(e.id)) return; // a duplicated line changes nothing
    this.#byId.set(e.id, e);
    this.#parent.set(e.id, this.#head);
    const siblings = this.#children.get(this.#head);
    if (siblings) siblings.push(e.id);
    else this.#children.set(this.#head, [e.id]);
    this.#head = e.id;
  }

  /** @param {string} id */
  has(id) {
    return this.#byId.has(id);
  }

  /** @param {string} id @returns {string | null | undefined} undefined for an unknown event */
  parentOf(id) {
    return this.#parent.get(id);
  }

  /** The events from the first to the head, oldest first. @returns {ClawserEvent[]} */
  path() {
    return this.pathTo(this.#head);
  }

  /**
   * The events from the first to `id` (its version of the conversation), oldest first.
   * @param {string | null} id
   * @returns {ClawserEvent[]}
   */
  pathTo(id) {
    /** @type {ClawserEvent[]} */
    const out = [];
    for (let at = id && this.#byId.has(id) ? id : null; at !== null; at = this.#parent.get(at) ?? null)
      out.push(/** @type {ClawserEvent} */ (this.#byId.get(at)));
    return out.reverse();
  }

  /** The alternatives at `id`'s place, itself included, oldest first. @param {string} id */
  siblings(id) {
    if (!this.#byId.has(id)) return [];
    return this.#children.get(this.#parent.get(id) ?? null) ?? [];
  }

  /**
   * Where switching to the alternative `id` lands: the latest event of its subtree (the version
   * as it was last continued).
   * @param {string} id
   */
  latestIn(id) {
    if (!this.#byId.has(id)) return null;
    let latest = id;
    const inside = new Set([id]);
    // Map iteration follows insertion, that is log, order: a parent comes before its children.
    for (const [eid, parent] of this.#parent) {
      if (parent !== null && inside.has(parent)) {
        inside.add(eid);
        latest = eid;
      }
    }
    return latest;
  }

  /**
   * For each event of the path that has alternatives: which one it is and how many there are.
   * Undo and redo records neither have alternatives nor count as one.
   * @returns {Map<string, {index: number, count: number, siblings: string[]}>}
   */
  alternativesOnPath() {
    /** @type {Map<string, {index: number, count: number, siblings: string[]}>} */
    const out = new Map();
    for (const e of this.path()) {
      if (TAKE_BACK.has(e.type)) continue;
      const siblings = this.siblings(e.id).filter((id) => !TAKE_BACK.has(this.#byId.get(id)?.type ?? ''));
      if (siblings.length > 1) out.set(e.id, { index: siblings.indexOf(e.id), count: siblings.length, siblings });
    }
    return out;
  }
}

/**
 * The conversation as shown: the events on the active path. A log without `branch` events is
 * returned as it is.
 * @param {readonly ClawserEvent[]} events
 */
export function activePath(events) {
  if (!events.some((e) => e.type === 'branch')) return events.slice();
  return new BranchTree(events).path();
}
