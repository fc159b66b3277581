// Search across conversations (issue 13): 10,000 conversations, 1,000,000 events in all, in Node
// on the in-memory file system (the page runs the same code over OPFS). Index build, a saved
// index read back by a new session, and queries (the snippets' log reads included).
import { performance } from 'node:perf_hooks';
import { rng } from './rng.mjs';
import { MemoryFileSystem } from '../web/storage/memory-fs.js';
import { ConversationSearch } from '../web/agent/conversation/conversation-search.js';

const CONVERSATIONS = 10_000;
const EVENTS_EACH = 100;

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (/** @type {number} */ x) => Math.round(x * 100) / 100;

export async function searchBench() {
  const random = rng(13);
  const syllables = ['ka', 'lo', 'mi', 're', 'tu', 'sa', 'ne', 'po', 'gi', 'da', 'vo', 'shi', 'ran', 'tel', 'mor'];
  const vocabulary = Array.from({ length: 20_000 }, () =>
    Array.from({ length: 2 + Math.floor(random() * 3) }, () => syllables[Math.floor(random() * syllables.length)]).join(''),
  );
  // Zipf-like: a few words are common, most are rare, as in real text.
  const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)];
  const sentence = (/** @type {number} */ n) => Array.from({ length: n }, word).join(' ');
  const fs = new MemoryFileSystem();
  const base = 'clawser_workspaces/bench/.conversations';
  /** @type {import('../web/agent/types.d.ts').ConversationMeta[]} */
  const metas = [];
  let t0 = Date.UTC(2026, 0, 1);
  for (let c = 0; c < CONVERSATIONS; c++) {
    const id = `c${c.toString(36)}`;
    const lines = [];
    for (let e = 0; e < EVENTS_EACH; e++) {
      const kind = e % 5;
      t0 += 1000;
      const event =
        kind === 0 || kind === 3
          ? {
              id: `${id}-${e}`,
              type: 'user_message',
              source: 'user',
              timestamp: t0,
              data: { text: sentence(8 + Math.floor(random() * 20)) },
            }
          : kind === 1 || kind === 4
            ? {
                id: `${id}-${e}`,
                type: 'agent_message',
                source: 'agent',
                timestamp: t0,
                data: { text: sentence(20 + Math.floor(random() * 40)), model: 'm' },
              }
            : {
                id: `${id}-${e}`,
                type: 'tool_result',
                source: 'tool',
                timestamp: t0,
                data: { toolCallId: `t${e}`, ok: true, result: 'ok' },
              };
      lines.push(JSON.stringify(event));
    }
    const meta = { id, title: sentence(4), createdAt: t0, updatedAt: t0 };
    metas.push(meta);
    await fs.write(`${base}/${id}/events.jsonl`, `${lines.join('\n')}\n`);
    await fs.write(`${base}/${id}/meta.json`, JSON.stringify(meta));
  }
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const search = new ConversationSearch(fs, 'bench');
  let t = performance.now();
  await search.update(metas);
  const build = performance.now() - t;
  globalThis.gc?.();
  const heap = process.memoryUsage().heapUsed - heapBefore;
  // A new session: the saved index is read back, each log's length checked, nothing re-read.
  const next = new ConversationSearch(fs, 'bench');
  t = performance.now();
  await next.update(metas);
  const reload = performance.now() - t;
  // What people search for: a distinctive word or two (any word of the vocabulary, most of them
  // rare), and, reported apart, the most common words (found in nearly every conversation).
  const anyWord = () => vocabulary[Math.floor(vocabulary.length * random())];
  /** @param {string[]} queries */
  const measure = async (queries) => {
    const times = [];
    let hits = 0;
    for (const q of queries) {
      const t1 = performance.now();
      hits += (await next.search(q)).length;
      times.push(performance.now() - t1);
    }
    return { times, hits };
  };
  const queries = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? `${anyWord()} ${anyWord()}` : anyWord()));
  const { times, hits } = await measure(queries);
  const common = await measure(Array.from({ length: 10 }, (_, i) => vocabulary[i * 3]));
  return {
    searchIndex1MEventsMs: Math.round(build),
    searchIndexReload1MEventsMs: Math.round(reload),
    searchQuery1MEventsMs: round(median(times)),
    searchQuery1MEventsP95Ms: round([...times].sort((a, b) => a - b)[Math.floor(times.length * 0.95)]),
    searchQueryCommonWord1MEventsMs: round(median(common.times)),
    searchHeap1MEventsMB: Math.round(heap / 1024 / 1024),
    searchDocuments: next.size,
    searchHitsPerQuery: Math.round(hits / queries.length),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await searchBench(), null, 2));
