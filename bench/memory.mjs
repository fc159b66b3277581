#!/usr/bin/env node
// Memory search benchmark (plain Node): indexing time, recall latency (keyword-only and
// hybrid, query embedding excluded) and heap of web/memory/search.js's MemoryIndex on a
// synthetic corpus: Zipf-distributed words, 10–60 per entry, random unit vectors.
// Run directly (`node --expose-gc bench/memory.mjs [--no-wasm]`) it prints one JSON object;
// bench/run.mjs can import memoryBench() instead.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { MemoryIndex } from '../web/memory/search.js';
import { rng } from './rng.mjs';

const DIMS = 384;
const VOCABULARY = 4000;
const QUERIES = 50;
const CATEGORIES = ['core', 'learned', 'user', 'context'];

/** @param {() => number} random */
function makeVocabulary(random) {
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ter',
    'san',
    'dor',
    'vel',
    'qui',
    'bra',
    'nex',
    'tor',
    'pim',
    'gal',
    'rud',
    'sol',
    'fen',
    'jar',
    'wex',
    'hul',
    'cor',
  ];
  const words = new Set();
  while (words.size < VOCABULARY) {
    let w = '';
    const n = 2 + Math.floor(random() * 3);
    for (let i = 0; i < n; i++) w += syllables[Math.floor(random() * syllables.length)];
    words.add(w);
  }
  const list = [...words];
  // Zipf (s = 1): word at rank r is drawn with probability ∝ 1/r.
  const cdf = new Float64Array(list.length);
  let sum = 0;
  for (let r = 0; r < list.length; r++) cdf[r] = sum += 1 / (r + 1);
  for (let r = 0; r < list.length; r++) cdf[r] /= sum;
  return () => {
    const x = random();
    let lo = 0,
      hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return list[lo];
  };
}

/** @param {() => string} word @param {number} n */
const phrase = (word, n) => Array.from({ length: n }, word).join(' ');

/** @param {() => number} random @param {Float32Array} out */
function unitVector(random, out) {
  let sum = 0;
  for (let i = 0; i < out.length; i++) sum += (out[i] = random() * 2 - 1) ** 2;
  const k = 1 / Math.sqrt(sum);
  for (let i = 0; i < out.length; i++) out[i] *= k;
  return out;
}

/** @param {number} count @param {() => number} random @param {() => string} word */
function makeEntries(count, random, word) {
  return Array.from({ length: count }, (_, i) => ({
    id: `m${i}`,
    category: CATEGORIES[i % CATEGORIES.length],
    text: `${phrase(word, 2)}\n${phrase(word, 10 + Math.floor(random() * 51))}.`,
  }));
}

/** @returns {() => void} */
function getGC() {
  if (typeof globalThis.gc === 'function') return /** @type {() => void} */ (globalThis.gc);
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc');
}

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (/** @type {number} */ x) => Math.round(x * 100) / 100;

/**
 * Builds an index of `entries`, timing only the upsert calls (vector generation excluded).
 * @param {{id: string, category: string, text: string}[]} entries
 * @param {boolean} wasm
 */
function build(entries, wasm) {
  const random = rng(7);
  const vector = new Float32Array(DIMS);
  const index = new MemoryIndex({ dimensions: DIMS, wasm });
  let ms = 0;
  for (const e of entries) {
    unitVector(random, vector);
    const t = performance.now();
    index.upsert(e.id, { text: e.text, category: e.category, vector });
    ms += performance.now() - t;
  }
  return { index, ms };
}

/** @param {MemoryIndex} index @param {string[]} queries @param {Float32Array[]} vectors */
function recall(index, queries, vectors) {
  const keyword = [],
    hybrid = [];
  for (let i = 0; i < 5; i++) {
    // warm-up (JIT)
    index.search(queries[i]);
    index.search(queries[i], { queryVector: vectors[i] });
  }
  for (let i = 0; i < queries.length; i++) {
    let t = performance.now();
    index.search(queries[i], { limit: 10 });
    keyword.push(performance.now() - t);
    t = performance.now();
    index.search(queries[i], { limit: 10, queryVector: vectors[i] });
    hybrid.push(performance.now() - t);
  }
  return { keyword: median(keyword), hybrid: median(hybrid) };
}

/**
 * @param {{wasm?: boolean}} [options] wasm: false measures the plain-JS vector scan
 * @returns {Promise<Record<string, number>>}
 */
export async function memoryBench(options = {}) {
  const wasm = options.wasm ?? true;
  const gc = getGC();
  const random = rng(42);
  const word = makeVocabulary(random);
  const entries = makeEntries(100_000, random, word);
  const queries = Array.from({ length: QUERIES }, () => phrase(word, 2 + Math.floor(random() * 3)));
  const queryVectors = queries.map(() => unitVector(random, new Float32Array(DIMS)));

  process.stderr.write('bench: memory 10k\n');
  const small = build(entries.slice(0, 10_000), wasm);
  const recall10k = recall(small.index, queries, queryVectors);

  process.stderr.write('bench: memory 100k\n');
  gc();
  const before = process.memoryUsage();
  const large = build(entries, wasm);
  gc();
  const after = process.memoryUsage();
  const stats = large.index.stats();
  // WebAssembly memory is counted in `external`, not in `arrayBuffers`: add it explicitly.
  const wasmBytes = stats.vectorKernel === 'wasm-simd' ? stats.vectorBytes : 0;
  const heapBytes = after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers + wasmBytes;
  const recall100k = recall(large.index, queries, queryVectors);
  process.stderr.write(`bench: memory kernel ${stats.vectorKernel}, ${stats.terms} terms, ${stats.postings} postings\n`);

  return {
    memoryIndex10kMs: round(small.ms),
    memoryIndex100kMs: round(large.ms),
    memoryRecall10kMs: round(recall10k.keyword),
    memoryRecall10kHybridMs: round(recall10k.hybrid),
    memoryRecall100kMs: round(recall100k.keyword),
    memoryRecall100kHybridMs: round(recall100k.hybrid),
    memoryHeap100kMB: round(heapBytes / (1024 * 1024)),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await memoryBench({ wasm: !process.argv.includes('--no-wasm') });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
