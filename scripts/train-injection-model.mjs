#!/usr/bin/env node
// Trains the InputSanitizer's learned detector (web/safety/injection-model.js) and writes its
// weights to web/safety/injection-weights.js.
//
// Data: the development split of tests/fixtures/injection-corpus.mjs (attacks and benign
// text), plus ordinary documentation as more benign text: the Markdown files of the installed
// npm packages (README, docs), cut into chunks of a few paragraphs. The held-out split is never
// read for training.
//
// Model: logistic regression over each unit's features (injection-model.js), trained as
// multiple-instance learning: a text is an attack when its most suspicious unit is, so each
// step updates the text's highest-scoring unit toward the text's label (benign texts push all
// their units down, attacks pull up the unit that carries the attack).
//
//   node scripts/train-injection-model.mjs              train on dev, write the weights
//   node scripts/train-injection-model.mjs --evaluate   also print rates on the held-out split
//                                                       at several thresholds (nothing is tuned
//                                                       on it by this script)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ATTACKS, BENIGN } from '../tests/fixtures/injection-corpus.mjs';
import { readingsOf, InputSanitizer } from '../web/safety/input-sanitizer.js';
import { unitFeatures, scoreFeatures, ALL_CUES } from '../web/safety/injection-model.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(root, 'web/safety/injection-weights.js');

const EPOCHS = 30;
const LEARNING_RATE = 0.1;
const L2 = 1e-4;
const DOC_CHUNKS = 2200;
/**
 * Chosen by leaving each of the two latest blind sets out of training in turn (DEV10, DEV11) and
 * reading the model's rates on it: 1.0 gained 1.3–2 points of detection over 1.5 and kept the
 * three detectors together at or under 3.5% false positives on both (88.7% / 3.0% and
 * 99.3% / 3.5%, the rules having been tuned on DEV11 already). Earlier: 1.5, chosen on DEV9/DEV10.
 */
const THRESHOLD = 1.0;
/** Weights smaller than this change no verdict; dropping them keeps the module small. */
const PRUNE = Number(process.env.PRUNE ?? 0.1);

/** A deterministic generator, so the same data gives the same weights. */
function random(seed = 1) {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

/** @template T @param {T[]} items @param {() => number} rand */
function shuffle(items, rand) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** Ordinary technical prose: the installed packages' Markdown, a few paragraphs at a time. */
function documentationChunks() {
  const files = execFileSync('find', [join(root, 'node_modules'), '-iname', '*.md', '-size', '+1k'], { encoding: 'utf8' })
    .trim().split('\n').filter((f) => f && !/CHANGELOG|HISTORY|LICENSE/i.test(f)).sort();
  const rand = random(3);
  /** @type {string[]} */
  const chunks = [];
  for (const file of files) {
    const paragraphs = readFileSync(file, 'utf8').split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p.length > 40);
    for (let i = 0; i < paragraphs.length;) {
      const n = 1 + Math.floor(rand() * 4);
      chunks.push(paragraphs.slice(i, i + n).join('\n\n').slice(0, 1500));
      i += n;
    }
  }
  return shuffle([...new Set(chunks)], rand).slice(0, DOC_CHUNKS);
}

/** @typedef {{label: 0 | 1, units: string[][]}} Example */

/** Every unit the sanitizer would score for `text`: the text and its decoded readings. @param {string} text */
function units(text) {
  return readingsOf(text).filter((r) => !('matched' in r && r.matched)).flatMap((r) => unitFeatures(r.text, ALL_CUES).map((u) => u.features));
}

/** @param {Example[]} examples */
function train(examples) {
  /** @type {Map<string, number>} */
  const w = new Map();
  const rand = random(1);
  const order = examples.map((_, i) => i);
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    for (const i of shuffle(order, rand)) {
      const { label, units: us } = examples[i];
      if (us.length === 0) continue;
      let best = us[0];
      let bestScore = -Infinity;
      for (const u of us) {
        const s = scoreFeatures(u, w);
        if (s > bestScore) [best, bestScore] = [u, s];
      }
      const gradient = label - 1 / (1 + Math.exp(-bestScore));
      for (const f of best) w.set(f, (w.get(f) ?? 0) * (1 - LEARNING_RATE * L2) + LEARNING_RATE * gradient);
    }
  }
  return w;
}

/** @param {Map<string, number>} w @param {string[][]} us */
const textScore = (w, us) => us.reduce((m, u) => Math.max(m, scoreFeatures(u, w)), -Infinity);

const dev = [...ATTACKS.filter((s) => s.split === 'dev').map((s) => ({ label: /** @type {const} */ (1), units: units(s.text) })),
  ...BENIGN.filter((s) => s.split === 'dev').map((s) => ({ label: /** @type {const} */ (0), units: units(s.text) })),
  ...documentationChunks().map((text) => ({ label: /** @type {const} */ (0), units: units(text) }))];
const weights = train(dev);
const kept = [...weights].filter(([, v]) => Math.abs(v) >= PRUNE).sort(([a], [b]) => (a < b ? -1 : 1));
/** @type {Record<string, number>} */
const table = {};
for (const [k, v] of kept) table[k] = Math.round(v * 100) / 100;
const lines = kept.map(([k]) => `${JSON.stringify(k)}:${table[k]},`).join('\n');
writeFileSync(OUT, `// Generated by scripts/train-injection-model.mjs from ${dev.length} texts: do not edit.\nexport const THRESHOLD = ${THRESHOLD};\n/** @type {Record<string, number>} */\nexport const WEIGHTS = {\n${lines}\n};\n`);
console.log(`${kept.length} weights (of ${weights.size}) → ${OUT}`);

if (process.argv.includes('--evaluate')) {
  const rules = new InputSanitizer({ model: false });
  for (const split of /** @type {const} */ (['dev', 'heldout'])) {
    const shipped = new Map(Object.entries(table));
    const a = ATTACKS.filter((s) => s.split === split).map((s) => ({ rule: rules.sanitize(s.text).flags.length > 0, score: textScore(shipped, units(s.text)) }));
    const b = BENIGN.filter((s) => s.split === split).map((s) => ({ rule: rules.sanitize(s.text).flags.length > 0, score: textScore(shipped, units(s.text)) }));
    for (const th of [0, 0.5, 1, 1.5, 2, 3]) {
      const pct = (/** @type {typeof a} */ xs, /** @type {(x: typeof a[0]) => boolean} */ p) => ((xs.filter(p).length / xs.length) * 100).toFixed(1);
      console.log(`${split} threshold ${th}: model ${pct(a, (x) => x.score > th)}% / ${pct(b, (x) => x.score > th)}% FP; with the rules ${pct(a, (x) => x.rule || x.score > th)}% / ${pct(b, (x) => x.rule || x.score > th)}% FP`);
    }
  }
}
