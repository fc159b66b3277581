import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenize, MemoryIndex } from '../../web/memory/search.js';

/** Deterministic PRNG (mulberry32). @param {number} seed */
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** @param {() => number} random @param {number} dims */
const randomVector = (random, dims) => Float32Array.from({ length: dims }, () => random() * 2 - 1);

/** @param {ArrayLike<number>} a @param {ArrayLike<number>} b */
function cosine(a, b) {
  let dot = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

/** A vector of `dims` with `x` at index `i`, `rest` elsewhere. @param {number} dims @param {number} i */
const axis = (dims, i, x = 1, rest = 0) => Float32Array.from({ length: dims }, (_, j) => (j === i ? x : rest));

/** @param {{id: string}[]} hits */
const ids = (hits) => hits.map((h) => h.id);

// --- tokenize

test('tokenize lowercases, splits on punctuation and drops stop words', () => {
  assert.deepEqual(tokenize('The cat sat ON the mat!'), ['cat', 'sat', 'mat']);
  assert.deepEqual(tokenize('hello,world;foo-bar/baz_qux (quux) "x"'), ['hello', 'world', 'foo', 'bar', 'baz', 'qux', 'quux']);
  assert.deepEqual(tokenize("I don't think it's what you're after"), ['think']);
  assert.deepEqual(tokenize("the user's preferences"), ['user', 'preferenc']);
  assert.deepEqual(tokenize(''), []);
  assert.deepEqual(tokenize('   ...  '), []);
});

test('tokenize keeps digits, drops other single characters', () => {
  assert.deepEqual(tokenize('a b 7 x 42 port 8080 v2.3'), ['7', '42', 'port', '8080', 'v2', '3']);
});

test('stemming folds inflections consistently', () => {
  const same = [
    ['run', 'runs', 'running'],
    ['note', 'notes', 'noted', 'noting'],
    ['study', 'studies', 'studying', 'studied'],
    ['create', 'created', 'creates', 'creating'],
    ['hope', 'hoped', 'hoping', 'hopes'],
    ['match', 'matches', 'matched', 'matching'],
    ['box', 'boxes'],
    ['class', 'classes'],
    ['meeting', 'meetings', 'meet'],
    ['quick', 'quickly'],
    ['use', 'used', 'uses', 'using'],
    ['configure', 'configured', 'configuring', 'configures'],
  ];
  for (const group of same) {
    const stems = group.map((w) => tokenize(w));
    for (const s of stems) assert.deepEqual(s, stems[0], `${group.join('/')}: ${JSON.stringify(stems)}`);
    assert.equal(stems[0].length, 1);
  }
  assert.deepEqual(tokenize('running notes'), ['run', 'note']);
  // Words that only look inflected stay apart.
  assert.notDeepEqual(tokenize('status'), tokenize('stat'));
  assert.deepEqual(tokenize('sing bring thing'), ['sing', 'bring', 'thing']);
});

test('tokenize handles non-Latin scripts, accents and CJK', () => {
  assert.deepEqual(tokenize('Привет, мир! Γειά σου κόσμε'), ['привет', 'мир', 'γεια', 'σου', 'κοσμε']);
  assert.deepEqual(tokenize('Café CAFE café naïve naive'), ['cafe', 'cafe', 'cafe', 'naiv', 'naiv']);
  assert.deepEqual(tokenize('한국어 텍스트'), ['한국어', '텍스트']);
  assert.deepEqual(tokenize('东京 is 東京タワー'), ['东京', '東京', '京タ', 'タワ', 'ワー']);
  assert.deepEqual(tokenize('猫'), ['猫']);
  assert.deepEqual(tokenize('hindi: हिन्दी भाषा'), ['hindi', 'हिन्दी', 'भाषा']);
  assert.deepEqual(tokenize('Die Straße führt zum Bahnhof'), ['die', 'straße', 'fuhrt', 'zum', 'bahnhof']);
  assert.deepEqual(tokenize('führt'), tokenize('fuhrt'));
});

// --- BM25

const CORPUS = [
  ['pg', 'The project database is PostgreSQL 16 running on port 5432', 'learned'],
  ['editor', 'User prefers dark mode and a monospace font in the editor', 'user'],
  ['deploy', 'Deploy the project with npm run deploy after the tests pass', 'learned'],
  ['tz', 'User lives in Berlin; timezone is Europe/Berlin', 'user'],
  ['style', 'Project code style: two-space indentation, single quotes, no semicolons omitted', 'core'],
  ['k8s', 'The staging cluster runs on Kubernetes with three nodes', 'context'],
  ['api', 'The project API uses REST with JSON bodies and bearer tokens', 'learned'],
  ['lunch', 'User usually has lunch at noon', 'user'],
  ['tests', 'Project tests run with node --test; browser tests use Playwright', 'core'],
  ['cache', 'Caching layer for the project API sits in Redis', 'context'],
];

/** @param {import('../../web/memory/search.js').MemoryIndexOptions} [options] */
function corpusIndex(options) {
  const index = new MemoryIndex(options);
  for (const [id, text, category] of CORPUS) index.upsert(id, { text, category });
  return index;
}

test('BM25: the document with the exact term ranks first; keyword scores are normalized', () => {
  const index = corpusIndex();
  assert.equal(index.size, CORPUS.length);
  assert.equal(index.search('postgresql')[0].id, 'pg');
  assert.equal(index.search('which timezone?')[0].id, 'tz');
  assert.equal(index.search('kubernetes cluster')[0].id, 'k8s');
  assert.equal(index.search('how do I deploy')[0].id, 'deploy');
  assert.equal(index.search('cached')[0].id, 'cache'); // stemmed like "Caching"
  const hits = index.search('project api');
  assert.equal(hits[0].keyword, 1);
  assert.equal(hits[0].score, 1);
  for (let i = 1; i < hits.length; i++) {
    assert.ok(hits[i].score <= hits[i - 1].score);
    assert.ok(hits[i].keyword > 0 && hits[i].keyword <= 1);
    assert.equal(hits[i].vector, undefined);
  }
  assert.deepEqual(index.search('the and of'), []); // only stop words
  assert.deepEqual(index.search('zebra'), []);
});

test('BM25: rarer terms weigh more', () => {
  const index = new MemoryIndex();
  for (let i = 0; i < 20; i++) index.upsert(`common${i}`, { text: `project notes number filler${i}`, category: 'core' });
  index.upsert('rare', { text: 'kubernetes notes number fillerx', category: 'core' });
  // Both terms appear once in docs of equal length: the rare one decides.
  const hits = index.search('project kubernetes');
  assert.equal(hits[0].id, 'rare');
  assert.ok(hits[0].score > hits[1].score * 2);
});

test('BM25: longer documents are penalized according to b', () => {
  const pad = Array.from({ length: 40 }, (_, i) => `pad${i}`).join(' ');
  const build = (/** @type {number} */ b) => {
    const index = new MemoryIndex({ b });
    index.upsert('long', { text: `invoice ${pad}`, category: 'core' });
    index.upsert('short', { text: 'invoice paid', category: 'core' });
    index.upsert('other', { text: 'unrelated words here', category: 'core' });
    return index;
  };
  const hits = build(0.75).search('invoice');
  assert.deepEqual(ids(hits), ['short', 'long']);
  assert.ok(hits[1].keyword < 0.8);
  const flat = build(0).search('invoice');
  assert.equal(flat.length, 2);
  assert.equal(flat[0].score, flat[1].score);
});

test('BM25: term frequency counts, with saturation', () => {
  const index = new MemoryIndex();
  index.upsert('once', { text: 'error in module alpha beta', category: 'core' });
  index.upsert('thrice', { text: 'error error error alpha beta', category: 'core' });
  const hits = index.search('error');
  assert.deepEqual(ids(hits), ['thrice', 'once']);
  assert.ok(hits[1].keyword > 0.4, 'k1 saturates tf: three times is not three times the score');
});

test('categories filter results, and normalization uses the filtered candidates', () => {
  const index = corpusIndex();
  const hits = index.search('project user', { categories: ['user'] });
  assert.ok(hits.length > 0);
  for (const h of hits) assert.ok(['editor', 'tz', 'lunch'].includes(h.id), h.id);
  assert.equal(hits[0].keyword, 1);
  assert.deepEqual(ids(index.search('project', { categories: ['core', 'context'] })).sort(), ['cache', 'style', 'tests']);
  assert.deepEqual(index.search('project', { categories: [] }), []);
  assert.deepEqual(index.search('project', { categories: ['nonexistent'] }), []);
});

test('limit and minScore', () => {
  const index = corpusIndex();
  assert.equal(index.search('project', { limit: 2 }).length, 2);
  assert.equal(index.search('project', { limit: 100 }).length, 6);
  assert.deepEqual(index.search('project', { limit: 0 }), []);
  const all = index.search('project api tests', { limit: 100 });
  const some = index.search('project api tests', { limit: 100, minScore: 0.5 });
  assert.deepEqual(
    some,
    all.filter((h) => h.score >= 0.5),
  );
  assert.ok(some.length < all.length);
});

test('upsert replaces the text: old terms no longer match', () => {
  const index = corpusIndex();
  index.upsert('pg', { text: 'The project database moved to SQLite', category: 'learned' });
  assert.equal(index.size, CORPUS.length);
  assert.deepEqual(index.search('postgresql'), []);
  assert.deepEqual(index.search('5432'), []);
  assert.equal(index.search('sqlite')[0].id, 'pg');
  index.upsert('pg', { text: 'The project database moved to SQLite', category: 'core' });
  assert.deepEqual(ids(index.search('sqlite', { categories: ['learned'] })), []);
  assert.deepEqual(ids(index.search('sqlite', { categories: ['core'] })), ['pg']);
});

test('remove', () => {
  const index = corpusIndex();
  assert.equal(index.remove('k8s'), true);
  assert.equal(index.remove('k8s'), false);
  assert.equal(index.remove('never'), false);
  assert.equal(index.has('k8s'), false);
  assert.equal(index.has('pg'), true);
  assert.equal(index.size, CORPUS.length - 1);
  assert.deepEqual(index.search('kubernetes'), []);
  index.upsert('k8s', { text: 'Kubernetes was replaced by Nomad', category: 'context' });
  assert.deepEqual(ids(index.search('kubernetes')), ['k8s']);
  for (const [id] of CORPUS) index.remove(id);
  assert.equal(index.size, 0);
  assert.deepEqual(index.search('project'), []);
  index.upsert('x', { text: 'fresh start project', category: 'core' });
  assert.deepEqual(ids(index.search('project')), ['x']);
});

// --- vectors and hybrid

test('hybrid: a close vector ranks without a keyword hit; entries without vectors still found by keyword', () => {
  const dims = 8;
  const index = new MemoryIndex({ dimensions: dims });
  index.upsert('semantic', { text: 'The user enjoys hiking in the Alps', category: 'user', vector: axis(dims, 0) });
  index.upsert('keyword', { text: 'Mountain trip planned for July', category: 'user', vector: axis(dims, 1) });
  index.upsert('plain', { text: 'Mountain bike needs new brakes', category: 'user' }); // no embedding yet
  index.upsert('far', { text: 'Quarterly tax report', category: 'core', vector: axis(dims, 2) });
  assert.equal(index.vectorCount, 3);

  const q = axis(dims, 0, 1, 0.05); // close to "semantic"
  const hits = index.search('mountain', { queryVector: q, limit: 10 });
  const byId = Object.fromEntries(hits.map((h) => [h.id, h]));
  assert.equal(hits[0].id, 'plain', 'no vector: scored by keyword alone (1.0)');
  assert.equal(byId.plain.score, byId.plain.keyword);
  assert.equal(byId.plain.vector, undefined);
  assert.equal(byId.semantic.keyword, 0);
  assert.ok(Math.abs(/** @type {number} */ (byId.semantic.vector) - cosine(q, axis(dims, 0))) < 2e-3);
  for (const h of hits) if (h.vector !== undefined) assert.ok(Math.abs(h.score - (0.7 * h.vector + 0.3 * h.keyword)) < 1e-9);
  assert.ok(byId.semantic.score > byId.keyword.score, 'cosine 0.99 · 0.7 beats keyword 1.0 · 0.3 with cosine ~0');
  assert.ok(byId.far, 'every embedded entry is a candidate');

  // Without a query vector: pure BM25.
  assert.deepEqual(ids(index.search('mountain')).sort(), ['keyword', 'plain']);
  // A query vector and no keyword hit at all.
  assert.equal(index.search('', { queryVector: axis(dims, 2) })[0].id, 'far');
});

test('hybrid weights are configurable', () => {
  const dims = 4;
  const build = (/** @type {{vector?: number, keyword?: number}} */ weights) => {
    const index = new MemoryIndex({ dimensions: dims, weights });
    index.upsert('byVector', { text: 'alpine lakes', category: 'core', vector: axis(dims, 0) });
    index.upsert('byKeyword', { text: 'mountain huts', category: 'core', vector: axis(dims, 1) });
    return index;
  };
  const q = axis(dims, 0);
  assert.equal(build({}).search('mountain', { queryVector: q })[0].id, 'byVector');
  assert.equal(build({ vector: 0.2, keyword: 0.8 }).search('mountain', { queryVector: q })[0].id, 'byKeyword');
  const hits = build({ vector: 0.5, keyword: 0.5 }).search('mountain', { queryVector: q });
  for (const h of hits) assert.ok(Math.abs(h.score - 0.5 * /** @type {number} */ (h.vector) - 0.5 * h.keyword) < 1e-9);
});

test('vectors are normalized; bad vectors are rejected without changing the index', () => {
  const dims = 16;
  const index = new MemoryIndex({ dimensions: dims });
  const v = randomVector(rng(1), dims);
  const scaled = v.map((x) => x * 1000);
  index.upsert('a', { text: 'alpha', category: 'core', vector: scaled });
  index.upsert('b', { text: 'beta', category: 'core' });
  const [hit] = index.search('', { queryVector: v.map((x) => x * 0.001) });
  assert.equal(hit.id, 'a');
  assert.ok(Math.abs(/** @type {number} */ (hit.vector) - 1) < 2e-3);
  assert.ok(/** @type {number} */ (hit.vector) <= 1);
  assert.ok(Math.abs(/** @type {number} */ (index.search('', { queryVector: v.map((x) => -x) })[0].vector) + 1) < 2e-3);

  assert.throws(() => index.setVector('b', new Float32Array(dims - 1)), RangeError);
  assert.throws(() => index.setVector('b', new Float32Array(dims)), RangeError);
  assert.throws(() => index.setVector('b', axis(dims, 0, NaN)), RangeError);
  assert.throws(() => index.upsert('c', { text: 'gamma', category: 'core', vector: [1, 2] }), RangeError);
  assert.throws(() => index.search('x', { queryVector: [1, 2] }), RangeError);
  assert.equal(index.has('c'), false);
  assert.equal(index.vectorCount, 1);
  assert.equal(index.setVector('missing', v), false);

  // Embeddings arriving later.
  assert.equal(index.setVector('b', axis(dims, 3)), true);
  assert.equal(index.vectorCount, 2);
  assert.equal(index.search('', { queryVector: axis(dims, 3) })[0].id, 'b');
  // A new text drops the old embedding; removal drops it too.
  index.upsert('b', { text: 'beta two', category: 'core' });
  assert.equal(index.vectorCount, 1);
  index.remove('a');
  assert.equal(index.vectorCount, 0);
  assert.deepEqual(ids(index.search('beta', { queryVector: axis(dims, 3) })), ['b']);
});

test('cosines match float math; the WebAssembly and JS scans agree exactly', () => {
  const dims = 384;
  const random = rng(5);
  const fast = new MemoryIndex({ dimensions: dims });
  const js = new MemoryIndex({ dimensions: dims, wasm: false });
  /** @type {Map<string, Float32Array>} */
  const vectors = new Map();
  for (let i = 0; i < 300; i++) {
    const v = randomVector(random, dims);
    vectors.set(`e${i}`, v);
    for (const index of [fast, js]) index.upsert(`e${i}`, { text: `entry ${i} topic${i % 7}`, category: 'core', vector: v });
  }
  assert.equal(js.stats().vectorKernel, 'js');
  const q = randomVector(random, dims);
  const a = fast.search('topic3', { queryVector: q, limit: 300 });
  const b = js.search('topic3', { queryVector: q, limit: 300 });
  assert.deepEqual(a, b);
  assert.equal(a.length, 300);
  for (const h of a)
    assert.ok(Math.abs(/** @type {number} */ (h.vector) - cosine(q, /** @type {Float32Array} */ (vectors.get(h.id)))) < 2e-3);
});

// --- slots, sweeps, scale

test('many removals and re-adds reuse slots and keep results right', () => {
  const index = new MemoryIndex({ dimensions: 16 });
  const random = rng(9);
  /** @type {Map<string, {text: string, category: string}>} */
  const live = new Map();
  for (let i = 0; i < 3000; i++) {
    const entry = { text: `item${i} group${i % 10} shared`, category: 'core' };
    index.upsert(`id${i}`, { ...entry, vector: randomVector(random, 16) });
    live.set(`id${i}`, entry);
  }
  const slots = index.stats().slots;
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 3000; i += 2) {
      const id = `id${(i + round) % 3000}`;
      assert.equal(index.remove(id), live.delete(id));
    }
    for (let i = 0; i < 3000; i += 2) {
      const id = `id${(i + round) % 3000}`;
      const entry = { text: `item${i} round${round} group${i % 10} shared`, category: round % 2 ? 'user' : 'core' };
      index.upsert(id, { ...entry, vector: randomVector(random, 16) });
      live.set(id, entry);
    }
  }
  const stats = index.stats();
  assert.equal(stats.slots, slots, 'freed slots are reused instead of growing');
  assert.equal(index.size, live.size);
  assert.equal(index.vectorCount, live.size);
  // Every live entry is found, and only live entries.
  const shared = index.search('shared', { limit: 10_000 });
  assert.equal(shared.length, live.size);
  assert.deepEqual(new Set(ids(shared)), new Set(live.keys()));
  const words = (/** @type {string} */ text) => text.split(' ');
  assert.deepEqual(
    ids(index.search('round3 group7', { limit: 10_000, categories: ['user'] })).sort(),
    [...live]
      .filter(([, e]) => e.category === 'user' && (words(e.text).includes('round3') || words(e.text).includes('group7')))
      .map(([id]) => id)
      .sort(),
  );
  assert.ok(stats.deadPostings * 4 <= stats.postings + stats.deadPostings);
});

test('replacing texts over and over reuses slots too', () => {
  const index = new MemoryIndex();
  for (let round = 0; round < 8; round++) {
    for (let i = 0; i < 2000; i++) index.upsert(`k${i}`, { text: `key${i} version${round} body`, category: 'core' });
  }
  assert.equal(index.size, 2000);
  assert.ok(index.stats().slots <= 4096, 'dead slots are swept and reused (16,000 without reuse)');
  assert.deepEqual(index.search('version3'), []);
  assert.equal(index.search('version7', { limit: 5000 }).length, 2000);
  assert.deepEqual(ids(index.search('key1234 version7')).slice(0, 1), ['k1234']);
});

/**
 * Straightforward BM25 over token lists, to check the index against.
 * @param {Map<string, string[]>} docs
 * @param {string} query
 */
function referenceBM25(docs, query, k1 = 1.2, b = 0.75) {
  const n = docs.size;
  let total = 0;
  for (const tokens of docs.values()) total += tokens.length;
  const avgdl = total / n;
  const terms = [...new Set(tokenize(query))];
  /** @type {Map<string, number>} */
  const scores = new Map();
  for (const term of terms) {
    let df = 0;
    for (const tokens of docs.values()) if (tokens.includes(term)) df++;
    if (!df) continue;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    for (const [id, tokens] of docs) {
      const tf = tokens.filter((t) => t === term).length;
      if (!tf) continue;
      const s = (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * tokens.length) / avgdl));
      scores.set(id, (scores.get(id) ?? 0) + s);
    }
  }
  const max = Math.max(0, ...scores.values());
  return new Map([...scores].map(([id, s]) => [id, s / max]));
}

test('20k entries: every entry stays searchable; rankings match a reference implementation', () => {
  const dims = 32;
  const random = rng(20);
  const words = Array.from({ length: 500 }, (_, i) => `word${i}`);
  const pick = () => words[Math.floor(random() ** 2 * words.length)];
  const index = new MemoryIndex({ dimensions: dims });
  /** @type {Map<string, string[]>} */
  const docs = new Map();
  /** @type {Map<string, Float32Array>} */
  const vectors = new Map();
  for (let i = 0; i < 20_000; i++) {
    const text = `marker${i} ${Array.from({ length: 10 + (i % 30) }, pick).join(' ')}`;
    const vector = i % 2 ? randomVector(random, dims) : undefined;
    index.upsert(`m${i}`, { text, category: ['core', 'learned', 'user', 'context'][i % 4], vector });
    docs.set(`m${i}`, tokenize(text));
    if (vector) vectors.set(`m${i}`, vector);
  }
  for (let i = 0; i < 2000; i += 3) {
    // churn: removals and replacements
    index.remove(`m${i}`);
    docs.delete(`m${i}`);
    vectors.delete(`m${i}`);
  }
  assert.equal(index.size, docs.size);
  assert.equal(index.vectorCount, vectors.size);

  for (const id of docs.keys()) {
    const hits = index.search(`marker${id.slice(1)}`, { limit: 1 });
    assert.equal(hits[0]?.id, id);
  }

  for (const query of ['word3 word40', 'word1', 'word7 word250 word499', 'word120 marker777']) {
    const ref = referenceBM25(docs, query);
    const hits = index.search(query, { limit: 20 });
    const best = [...ref.values()].sort((x, y) => y - x);
    assert.equal(hits.length, Math.min(20, ref.size));
    hits.forEach((h, i) => {
      assert.ok(Math.abs(h.score - /** @type {number} */ (ref.get(h.id))) < 1e-9, `${query}: ${h.id}`);
      assert.ok(Math.abs(h.score - best[i]) < 1e-9, `${query}: rank ${i}`);
    });

    // Hybrid, against float cosines (int8 vectors: scores within 2e-3).
    const q = randomVector(random, dims);
    /** @type {number[]} */
    const expected = [];
    for (const id of docs.keys()) {
      const v = vectors.get(id);
      const kw = ref.get(id) ?? 0;
      if (v) expected.push(0.7 * cosine(q, v) + 0.3 * kw);
      else if (kw > 0) expected.push(kw);
    }
    expected.sort((x, y) => y - x);
    const hybrid = index.search(query, { limit: 20, queryVector: q });
    hybrid.forEach((h, i) => {
      const v = vectors.get(h.id);
      const exact = v ? 0.7 * cosine(q, v) + 0.3 * (ref.get(h.id) ?? 0) : /** @type {number} */ (ref.get(h.id));
      assert.ok(Math.abs(h.score - exact) < 2e-3, `${query}: ${h.id}`);
      assert.ok(Math.abs(h.score - expected[i]) < 4e-3, `${query}: hybrid rank ${i}`);
    });
  }
});

test('relevance floor: a weak match (one common word of a long message, a distant vector) is not recalled; a real match is', () => {
  const dims = 4;
  const index = new MemoryIndex({ dimensions: dims });
  index.upsert('editor', { text: 'The user edits code in the Helix editor', category: 'user', vector: axis(dims, 0) });
  index.upsert('tea', { text: 'The user likes green tea in the morning', category: 'user', vector: axis(dims, 1) });
  index.upsert('car', { text: 'The user drives a red car to work', category: 'user', vector: axis(dims, 2) });
  const floor = { cosine: 0.3, keyword: 1 / 3 };
  const message = 'what will the weather be like tomorrow afternoon in Lisbon for the concert';
  // Control: without the floor the relative scores recall the best weak match anyway.
  assert.deepEqual(
    index.search(message).map((h) => h.id),
    ['tea'],
  );
  assert.ok(index.search(message)[0].keyword > 0.999, 'relative scores make the best candidate look perfect');
  assert.deepEqual(index.search(message, { relevance: floor }), [], 'one shared common word is below the floor');
  const hit = index.search('which editor do I use for code?', { relevance: floor });
  assert.deepEqual(
    hit.map((h) => h.id),
    ['editor'],
  );
  assert.ok(hit[0].coverage >= 1 / 3 && hit[0].coverage <= 1);

  // Hybrid: everything with a vector gets a score; the floor keeps only the close ones.
  const unrelated = Float32Array.from([0.1, 0.1, 0.1, 0.98]);
  assert.equal(index.search('', { queryVector: unrelated }).length, 3, 'control: without the floor every entry is ranked');
  assert.deepEqual(index.search('', { queryVector: unrelated, relevance: floor }), []);
  const close = Float32Array.from([0.9, 0.1, 0, 0.2]);
  assert.deepEqual(
    index.search('', { queryVector: close, relevance: floor }).map((h) => h.id),
    ['editor'],
  );
});
