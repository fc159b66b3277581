#!/usr/bin/env node
// Trains the InputSanitizer's learned detector (web/safety/injection-model.js), writes its weights
// to web/safety/injection-weights.js, and measures how the detectors GENERALISE (issue 32 §7).
//
// Training data (trainingSet below):
// - attacks: the dev split of tests/fixtures/injection-corpus.mjs (earlier rounds, other authors)
//   and the dev sources of tests/fixtures/injection-families.mjs;
// - ordinary text: the corpus's dev benign texts, the dev sources' carriers without their
//   injections, tests/fixtures/injection-benign-dev.mjs, and chunks of the installed packages'
//   docs and code — only packages outside the held-out quarter (injection-benign-docs.mjs).
// Never read for training: the held-out source `blind` and its benign texts, the corpus's
// held-out split, the held-out packages, Clawser's own docs and code.
//
// Model: logistic regression over each unit's features (injection-model.js), trained as
// multiple-instance learning: a text is an attack when its most suspicious unit is, so each step
// updates the text's highest-scoring unit toward the text's label. Seeded: the same data gives
// the same weights.
//
// Evaluation (evaluateGeneralisation): whole families and whole sources are held out, never a
// random split of lines written together.
// - leave-family-out: for each family, the model is retrained without any example of it (nor
//   the earlier corpus's category of the same shape) and without one twelfth of the training
//   packages' chunks; the detectors (rules + that model) are then measured on every example of
//   the family (dev sources and the blind source) and on the left-out chunks;
// - leave-source-out: the same with each dev source left out;
// - the blind source with the shipped model (never trained on it, no rule tuned on it);
// - false positives on the held-out ordinary documents (benignHeldOut).
//
//   node scripts/train-injection-model.mjs              train on everything above, write the weights
//   node scripts/train-injection-model.mjs --evaluate   also print the evaluation as JSON
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ATTACKS, BENIGN } from '../tests/fixtures/injection-corpus.mjs';
import { FAMILIES, DEV_ATTACKS, DEV_CARRIERS, DEV_SOURCES, BLIND_ATTACKS, BLIND_CARRIERS } from '../tests/fixtures/injection-families.mjs';
import { BENIGN_ABOUT_INSTRUCTIONS_DEV } from '../tests/fixtures/injection-benign-dev.mjs';
import { BENIGN_ABOUT_INSTRUCTIONS } from '../tests/fixtures/injection-benign-blind.mjs';
import { packageChunks, projectChunks } from '../tests/fixtures/injection-benign-docs.mjs';
import { readingsOf, InputSanitizer } from '../web/safety/input-sanitizer.js';
import { unitFeatures, ALL_CUES } from '../web/safety/injection-model.js';
import { rng } from '../bench/rng.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(root, 'web/safety/injection-weights.js');

const EPOCHS = Number(process.env.EPOCHS ?? 30);
const LEARNING_RATE = 0.1;
const L2 = Number(process.env.L2 ?? 1e-4);
/** Training packages' chunks: docs and code, a few per file. */
const TRAIN_DOCS = 1800;
const TRAIN_CODE = 1200;
/** Held-out packages' chunks for the false-positive rate. */
const HELDOUT_DOCS = 400;
const HELDOUT_CODE = 600;
/** Weights smaller than this change no verdict; dropping them keeps the module small. */
const PRUNE = 0.1;
/** Cue lexicons weighed less than this in a first run are left out of the model (trainSelected). */
const CUE_MIN = 0.4;
/**
 * The learned detector's threshold: kept at 1.0, the value the previous round chose on its blind
 * sets. The leave-family-out sweep (`--evaluate`, injectionThresholdSweep) shows what moving it
 * would do: at 0.5 about one point more held-out-family recall for about 0.2 points more false
 * positives on the left-out package chunks; at 2, two points less recall for 0.2 points fewer.
 */
export const THRESHOLD = 1.0;

/**
 * The earlier corpus's categories that have the shape of one of the families: left out with
 * that family, so a held-out family is held out from the whole training set.
 * @type {Record<string, string>}
 */
const CORPUS_CATEGORY_FAMILY = { goal_hijack: 'ignore_previous', prompt_leak: 'prompt_leak', markdown_exfiltration: 'exfiltration', encoded_or_translated: 'encoded' };

/** @typedef {{text: string, label: 0 | 1, family?: string, source: string, group: number}} Labelled `group`: which twelfth of the ordinary texts (left out together in a fold) */
/** @typedef {Labelled & {units: Int32Array[], rules: boolean}} Example */

/** Every unit the sanitizer would score for `text`: the text and its decoded readings. @param {string} text */
export function units(text) {
  return readingsOf(text).filter((r) => !('matched' in r && r.matched)).flatMap((r) => unitFeatures(r.text, ALL_CUES).map((u) => u.features));
}

/** @param {string} s */
const groupOf = (s) => [...s].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 17) % 12;

/** What the model may learn from. @returns {Labelled[]} */
export function trainingSet() {
  /** @type {Labelled[]} */
  const out = [];
  for (const s of ATTACKS) if (s.split === 'dev') out.push({ text: s.text, label: 1, family: CORPUS_CATEGORY_FAMILY[s.category], source: 'corpus', group: 0 });
  for (const a of DEV_ATTACKS) out.push({ text: a.text, label: 1, family: a.family, source: a.source, group: 0 });
  for (const s of BENIGN) if (s.split === 'dev') out.push({ text: s.text, label: 0, source: 'corpus', group: groupOf(s.text) });
  for (const c of DEV_CARRIERS) out.push({ text: c.text, label: 0, source: c.source, group: groupOf(c.text) });
  for (const text of BENIGN_ABOUT_INSTRUCTIONS_DEV) out.push({ text, label: 0, source: 'about-dev', group: groupOf(text) });
  for (const c of [...packageChunks({ heldOut: false, kinds: ['doc'], limit: TRAIN_DOCS, perFile: 6 }), ...packageChunks({ heldOut: false, kinds: ['code'], limit: TRAIN_CODE, perFile: 1 })]) {
    out.push({ text: c.text, label: 0, source: `packages-${c.kind}`, group: groupOf(c.file.split('/').slice(0, 3).join('/')) });
  }
  return out;
}

/**
 * Ordinary documents nobody trained or tuned on, by kind: the held-out packages' docs and code,
 * Clawser's own docs and code, text about instructions written with the blind source, and the
 * blind source's carriers without their injections.
 * @returns {{text: string, kind: string, file?: string}[]}
 */
export function benignHeldOut() {
  return [
    ...packageChunks({ heldOut: true, kinds: ['doc'], limit: HELDOUT_DOCS, perFile: 8, seed: 21 }).map((c) => ({ text: c.text, kind: 'package-docs', file: c.file })),
    ...packageChunks({ heldOut: true, kinds: ['code'], limit: HELDOUT_CODE, perFile: 1, seed: 22 }).map((c) => ({ text: c.text, kind: 'package-code', file: c.file })),
    // The generated weights table lists attack words by design; it is data, not a document.
    ...projectChunks().filter((c) => !c.file.endsWith('injection-weights.js')).map((c) => ({ text: c.text, kind: `project-${c.kind === 'doc' ? 'docs' : 'code'}`, file: c.file })),
    ...BENIGN_ABOUT_INSTRUCTIONS.map((text) => ({ text, kind: 'about-instructions' })),
    ...BLIND_CARRIERS.map((c) => ({ text: c.text, kind: 'carriers', file: c.carrier })),
  ];
}

/** Feature names as numbers, so training adds up array cells instead of looking up strings. */
export class FeatureIndex {
  /** @type {Map<string, number>} */
  ids = new Map();
  /** @type {string[]} */
  names = [];
  /** @param {string[][]} us */
  encode(us) {
    return us.map((u) => Int32Array.from(u, (f) => {
      let id = this.ids.get(f);
      if (id === undefined) {
        id = this.names.length;
        this.ids.set(f, id);
        this.names.push(f);
      }
      return id;
    }));
  }
}

/** @param {Float64Array} w @param {Int32Array} u */
const unitScore = (w, u) => {
  let z = 0;
  for (let k = 0; k < u.length; k++) z += w[u[k]];
  return z;
};

/**
 * @param {{label: 0 | 1, units: Int32Array[]}[]} examples
 * @param {number} size how many features the index knows
 * @param {number} [seed]
 * @param {Uint8Array} [mask] features to leave at 0 (cue lexicons not selected)
 * @returns {Float64Array} the weights, pruned and rounded as shipped
 */
export function train(examples, size, seed = 1, mask = undefined) {
  const w = new Float64Array(size);
  const rand = rng(seed);
  const order = examples.map((_, i) => i);
  const decay = 1 - LEARNING_RATE * L2;
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const i of order) {
      const { label, units: us } = examples[i];
      if (us.length === 0) continue;
      let best = us[0];
      let bestScore = -Infinity;
      for (const u of us) {
        const s = unitScore(w, u);
        if (s > bestScore) [best, bestScore] = [u, s];
      }
      const step = LEARNING_RATE * (label - 1 / (1 + Math.exp(-bestScore)));
      for (let k = 0; k < best.length; k++) if (!mask || mask[best[k]]) w[best[k]] = w[best[k]] * decay + step;
    }
  }
  for (let k = 0; k < size; k++) w[k] = Math.abs(w[k]) >= PRUNE ? Math.round(w[k] * 100) / 100 : 0;
  return w;
}

/**
 * Trains twice: the second time with only the cue lexicons the first run weighed at CUE_MIN or
 * more. Each lexicon the model keeps is a regular expression run on every sentence of every tool
 * result; the weak ones cost time and change little.
 * @param {{label: 0 | 1, units: Int32Array[]}[]} examples @param {FeatureIndex} index
 */
export function trainSelected(examples, index) {
  const size = index.names.length;
  const first = train(examples, size);
  const mask = new Uint8Array(size).fill(1);
  index.names.forEach((f, i) => {
    if (f.startsWith('c:') && Math.abs(first[i]) < CUE_MIN) mask[i] = 0;
  });
  return train(examples, size, 1, mask);
}

/** A text's score: its most suspicious unit's. @param {Float64Array} w @param {Int32Array[]} us */
export const textScore = (w, us) => us.reduce((m, u) => Math.max(m, unitScore(w, u)), -Infinity);

/**
 * Labelled texts with what every fold needs: their units (as feature numbers) and the rules' verdict.
 * @param {Labelled[]} xs @param {FeatureIndex} index @returns {Example[]}
 */
export function prepare(xs, index) {
  const rules = new InputSanitizer({ model: false });
  return xs.map((x) => ({ ...x, units: index.encode(units(x.text)), rules: rules.sanitize(x.text).flags.length > 0 }));
}

const pct = (/** @type {number} */ n, /** @type {number} */ d) => (d === 0 ? null : Math.round((n / d) * 1000) / 10);
const THRESHOLDS = [0, 0.5, 1, 1.5, 2, 2.5, 3];

/**
 * The whole evaluation; every number in it comes from texts the model did not train on.
 * @param {{threshold?: number, weights?: Map<string, number>}} [opts] `weights`: the shipped model (default: trained here on the full training set)
 */
export function evaluateGeneralisation({ threshold = THRESHOLD, weights } = {}) {
  const index = new FeatureIndex();
  const training = prepare(trainingSet(), index);
  const blind = prepare(BLIND_ATTACKS.map((a) => ({ text: a.text, label: /** @type {const} */ (1), family: a.family, source: 'blind', group: -1 })), index);
  const heldOutBenign = benignHeldOut();
  const benign = prepare(heldOutBenign.map((b) => ({ text: b.text, label: /** @type {const} */ (0), source: b.kind, group: -1 })), index);
  const devAttacks = training.filter((x) => x.label === 1 && x.source !== 'corpus');
  const shipped = weights ? Float64Array.from(index.names, (f) => weights.get(f) ?? 0) : trainSelected(training, index);
  /** @param {Example} x @param {Float64Array} w @param {number} th */
  const flagged = (x, w, th) => x.rules || textScore(w, x.units) > th;

  // Leave-family-out: each family (and the earlier corpus's category of its shape) out of training in turn.
  /** @type {Record<string, {dev: [number, number], blind: [number, number]}>} */
  const byFamily = {};
  /** @type {Record<number, {recall: number, attacks: number, fp: number, benign: number}>} */
  const sweep = Object.fromEntries(THRESHOLDS.map((t) => [t, { recall: 0, attacks: 0, fp: 0, benign: 0 }]));
  Object.keys(FAMILIES).forEach((family, i) => {
    const group = i % 12;
    const w = trainSelected(training.filter((x) => x.family !== family && (x.label === 1 || x.group !== group)), index);
    const dev = devAttacks.filter((x) => x.family === family);
    const bl = blind.filter((x) => x.family === family);
    /** @param {Example[]} xs @returns {[number, number]} */
    const count = (xs) => [xs.filter((x) => flagged(x, w, threshold)).length, xs.length];
    byFamily[family] = { dev: count(dev), blind: count(bl) };
    const leftOutBenign = training.filter((x) => x.label === 0 && x.group === group);
    for (const t of THRESHOLDS) {
      const s = sweep[t];
      for (const x of [...dev, ...bl]) { s.attacks++; if (flagged(x, w, t)) s.recall++; }
      for (const x of leftOutBenign) { s.benign++; if (textScore(w, x.units) > t) s.fp++; }
    }
  });
  // Leave-source-out: each dev source out of training in turn.
  /** @type {Record<string, [number, number]>} */
  const bySource = {};
  for (const source of DEV_SOURCES) {
    const w = trainSelected(training.filter((x) => x.source !== source), index);
    const held = devAttacks.filter((x) => x.source === source);
    bySource[source] = [held.filter((x) => flagged(x, w, threshold)).length, held.length];
  }
  // The blind source with the shipped model, and ordinary documents nobody trained on.
  /** @type {Record<string, [number, number]>} */
  const blindShipped = {};
  for (const x of blind) {
    const c = (blindShipped[/** @type {string} */ (x.family)] ??= [0, 0]);
    c[1]++;
    if (flagged(x, shipped, threshold)) c[0]++;
  }
  /** @type {Record<string, [number, number]>} */
  const benignByKind = {};
  /** @type {{kind: string, file?: string, text: string}[]} */
  const falsePositives = [];
  benign.forEach((x, i) => {
    const c = (benignByKind[x.source] ??= [0, 0]);
    c[1]++;
    if (flagged(x, shipped, threshold)) {
      c[0]++;
      falsePositives.push({ kind: x.source, file: heldOutBenign[i].file, text: x.text.slice(0, 160) });
    }
  });
  const sum = (/** @type {[number, number][]} */ xs) => xs.reduce((a, [n, d]) => [a[0] + n, a[1] + d], [0, 0]);
  const lofo = sum(Object.values(byFamily).flatMap((f) => [f.dev, f.blind]));
  const lofoBlind = sum(Object.values(byFamily).map((f) => f.blind));
  const lso = sum(Object.values(bySource));
  const blindAll = sum(Object.values(blindShipped));
  const fp = sum(Object.values(benignByKind));
  return {
    injectionHeldOutFamilyRecall: pct(...lofo),
    injectionHeldOutFamilyRecallBlindSource: pct(...lofoBlind),
    injectionHeldOutFamilyRecallByFamily: Object.fromEntries(Object.entries(byFamily).map(([f, v]) => [f, { pct: pct(v.dev[0] + v.blind[0], v.dev[1] + v.blind[1]), devSources: `${v.dev[0]}/${v.dev[1]}`, blindSource: `${v.blind[0]}/${v.blind[1]}` }])),
    injectionHeldOutSourceRecall: pct(...lso),
    injectionHeldOutSourceRecallBySource: Object.fromEntries(Object.entries(bySource).map(([s, [n, d]]) => [s, `${n}/${d}`])),
    injectionBlindSourceRecall: pct(...blindAll),
    injectionBlindSourceRecallByFamily: Object.fromEntries(Object.entries(blindShipped).map(([f, [n, d]]) => [f, `${n}/${d}`])),
    injectionBenignFalsePositiveRate: pct(...fp),
    injectionBenignFalsePositiveByKind: Object.fromEntries(Object.entries(benignByKind).map(([k, [n, d]]) => [k, `${n}/${d}`])),
    injectionThresholdSweep: Object.fromEntries(THRESHOLDS.map((t) => [t, { heldOutFamilyRecall: pct(sweep[t].recall, sweep[t].attacks), leftOutChunksModelFalsePositives: pct(sweep[t].fp, sweep[t].benign) }])),
    threshold,
    falsePositives,
  };
}

function main() {
  const index = new FeatureIndex();
  const training = prepare(trainingSet(), index);
  const trained = trainSelected(training, index);
  /** @type {Map<string, number>} */
  const weights = new Map(index.names.map((f, i) => /** @type {[string, number]} */ ([f, trained[i]])).filter(([, v]) => v !== 0));
  const lines = [...weights].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${JSON.stringify(k)}:${v},`).join('\n');
  writeFileSync(OUT, `// Generated by scripts/train-injection-model.mjs from ${training.length} texts: do not edit.\nexport const THRESHOLD = ${THRESHOLD};\n/** @type {Record<string, number>} */\nexport const WEIGHTS = {\n${lines}\n};\n`);
  console.error(`${weights.size} weights from ${training.length} texts → ${OUT}`);
  if (process.argv.includes('--evaluate')) {
    const { falsePositives, ...report } = evaluateGeneralisation({ weights });
    console.log(JSON.stringify(process.argv.includes('--show-fp') ? { ...report, falsePositives } : report, null, 2));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
