/** @import { MemoryStore } from './store.js' */
import { promptText } from './summaries.js';

/**
 * What memory a turn gets (automatic recall): the recall policy, apart from the store.
 * No import of the store itself, so the start-up path does not load it.
 */

/** At most this many pinned memories ride along with every turn. */
export const MAX_PINNED = 10;

/**
 * The floor a memory must reach to ride along with a turn on its own (automatic recall): a
 * cosine similarity of 0.3 with the message (all-MiniLM-L6-v2 puts unrelated sentences around
 * 0–0.15 and paraphrases above 0.5), or a third of the message's keyword weight (IDF-weighted
 * share of its words, see SearchHit.coverage). Below it, nothing is recalled — never "the best
 * five, whatever they are".
 */
export const RECALL_FLOOR = Object.freeze({ cosine: 0.3, keyword: 1 / 3 });

/**
 * The memories a turn gets: pinned ones always (bounded), then the best matches for the message
 * that reach the relevance floor. `content` is what the prompt gets: a long memory's summary
 * when it has one (see summaries.js).
 * @param {MemoryStore} memory @param {string} text @param {number} limit
 */
export async function recallForTurn(memory, text, limit) {
  const [pinned, hits] = await Promise.all([memory.pinned(), memory.recall(text, { limit, relevance: RECALL_FLOOR })]);
  const first = pinned.slice(0, MAX_PINNED);
  const ids = new Set(first.map((m) => m.id));
  return [...first, ...hits.filter((m) => !ids.has(m.id))].map((m) => ({ ...m, content: promptText(m) }));
}
