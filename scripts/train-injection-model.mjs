#!/usr/bin/env node
// Trains the InputSanitizer's learned detector (web/safety/injection-model.js), writes its weights
// to web/safety/injection-weights.json, and measures how the detectors GENERALISE (issue 32 §7).
//
// Every attack example, old and new, is labelled by family and source
// (tests/fixtures/injection-labels.mjs); every ordinary text by source or kind.
//
// Training data (trainingSet below):
// - attacks: the trainable sources of tests/fixtures/injection-labels.mjs (the earlier corpus's
//   dev rounds and the dev sources of tests/fixtures/injection-families.mjs);
// - ordinary text: those sources' own benign texts and carriers, tests/fixtures/injection-benign-dev.mjs,
//   the dev articles and chats of tests/fixtures/injection-benign-prose-dev.mjs, and chunks of the
//   installed packages' docs and code — only packages outside the held-out quarter
//   (injection-benign-docs.mjs);
// - minus any text that nearly copies a held-out one (tests/fixtures/near-duplicates.mjs).
// Never read for training: the held-out sources (`corpus-blind8`, `blind`) and their benign texts,
// the held-out packages, Clawser's own docs and code, the articles and chat logs, the text about
// instructions written with the blind source.
//
// Model: logistic regression over each unit's features (injection-model.js), trained as
// multiple-instance learning: a text is an attack when its most suspicious unit is, so each step
// updates the text's highest-scoring unit toward the text's label. Seeded: the same data gives
// the same weights.
//
// Evaluation (evaluateGeneralisation): whole families and whole sources are held out, never a
// random split of lines written together.
// - leave-family-out: the sources are split in two halves (SOURCE_HALF); for each family and each
//   half, the model is retrained without any example that has the family's shape (in any source)
//   and without anything from that half's sources (their attacks, their benign texts, their
//   carriers), and without any text that nearly copies a test example; the family's own rules and
//   cue lexicons are switched off (web/safety/cue-families.js: the phrase lists were written from
//   the corpora, so they are held out too); the detectors are then measured on every example of
//   the family from that half. Each flagged attack is counted as caught by the rules and cues, by
//   the learned model, or by both.
// - leave-half-out: every source of one half out of training (all families), measured on that half;
// - the held-out sources with the shipped model (never trained on, no rule tuned on them);
// - false positives of the shipped detectors on ordinary documents nobody trained on
//   (benignHeldOut), by kind.
//
//   node scripts/train-injection-model.mjs              train on everything above, write the weights
//   node scripts/train-injection-model.mjs --evaluate   also print the evaluation as JSON
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FAMILIES, labelledAttacks, sourcedBenign } from '../tests/fixtures/injection-labels.mjs';
import { BENIGN_ABOUT_INSTRUCTIONS_DEV } from '../tests/fixtures/injection-benign-dev.mjs';
import { DEV_ARTICLES, DEV_CHATS } from '../tests/fixtures/injection-benign-prose-dev.mjs';
import { BENIGN_ABOUT_INSTRUCTIONS } from '../tests/fixtures/injection-benign-blind.mjs';
import { ARTICLES } from '../tests/fixtures/injection-benign-articles.mjs';
import { CHAT_LOGS } from '../tests/fixtures/injection-benign-chats.mjs';
import { packageChunks, packageReadmes, projectChunks } from '../tests/fixtures/injection-benign-docs.mjs';
import { NearDuplicateIndex } from '../tests/fixtures/near-duplicates.mjs';
import { readingsOf, InputSanitizer } from '../web/safety/input-sanitizer.js';
import { unitFeatures, ALL_CUES, WEIGHTS_FORMAT, WEIGHTS_VERSION } from '../web/safety/injection-model.js';
import { cuesOf } from '../web/safety/cue-families.js';
import { rng } from '../bench/rng.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(root, 'web/safety/injection-weights.json');

const EPOCHS = Number(process.env.EPOCHS ?? 30);
const LEARNING_RATE = 0.1;
const L2 = Number(process.env.L2 ?? 1e-4);
/**
 * Each training step leaves out each word and word-pair feature with this probability, so the
 * model cannot lean on the words of the families it trains on alone: it has to give weight to
 * the cue lexicons and their pairs, which are what carries over to a family it never saw.
 */
const WORD_DROP = Number(process.env.WORD_DROP ?? 0.3);
/** Training packages' chunks: docs and code, a few per file. */
const TRAIN_DOCS = 1800;
const TRAIN_CODE = 1200;
/** Held-out packages' chunks for the false-positive rate. */
const HELDOUT_DOCS = 400;
const HELDOUT_CODE = 600;
const HELDOUT_READMES = 300;
/** Weights smaller than this change no verdict; dropping them keeps the module small. */
const PRUNE = 0.1;
/** Cue lexicons weighed less than this in a first run are left out of the model (trainSelected). */
const CUE_MIN = 0.4;
/**
 * The learned detector's threshold. Raised from 1.0 to 1.5 in issue 32's second round, after the
 * false positives were measured per KIND of ordinary document: at 1.0 the model flagged 6 of the
 * first 68 held-out articles, at 1.5 it flags 3, for about a point of leave-family-out recall (so
 * those per-kind numbers were looked at to choose it). The sweeps (`--evaluate`,
 * injectionHeldOutFamilyThresholdSweep and injectionBenignThresholdSweep) show what moving it does.
 */
export const THRESHOLD = 1.5;

/**
 * The two halves of the sources, for leave-family-out: a family is measured on one half with the
 * other half (minus the family) as training. Each half has rounds of the earlier corpus, template
 * sets of the families fixture and a held-out set; benign-only sources (the packages, the dev text
 * about instructions) are in neither and train in every fold.
 * @type {Record<string, 0 | 1>}
 */
export const SOURCE_HALF = {
  'corpus-r1': 0,
  'corpus-r3': 0,
  'corpus-r5': 0,
  'corpus-r7': 0,
  'corpus-dev9': 0,
  'corpus-dev11': 0,
  promptinject: 0,
  'bipia-text': 0,
  agentic: 0,
  'corpus-blind8': 0,
  'corpus-r2': 1,
  'corpus-r4': 1,
  'corpus-r6': 1,
  'corpus-r8': 1,
  'corpus-dev10': 1,
  latent: 1,
  'bipia-code': 1,
  blind: 1,
};

/** @typedef {import('../tests/fixtures/injection-labels.mjs').Family} Family */
/** @typedef {{text: string, label: 0 | 1, families: string[], source: string, trainable: boolean}} Labelled */
/** @typedef {Labelled & {units: Int32Array[], rules: boolean}} Example */

/** Every unit the sanitizer would score for `text`: the text and its decoded readings. @param {string} text */
export function units(text) {
  return readingsOf(text)
    .filter((r) => !('matched' in r && r.matched))
    .flatMap((r) => unitFeatures(r.text, ALL_CUES).map((u) => u.features));
}

/**
 * Ordinary documents nobody trained or tuned on, by kind: the held-out packages' docs, READMEs and
 * code, Clawser's own docs and code, articles and chat logs written for this test, text about
 * instructions written with the blind source, and the held-out sources' own benign texts and carriers.
 * @returns {{text: string, kind: string, file?: string}[]}
 */
export function benignHeldOut() {
  return [
    ...packageChunks({ heldOut: true, kinds: ['doc'], limit: HELDOUT_DOCS, perFile: 8, seed: 21 }).map((c) => ({
      text: c.text,
      kind: 'package-docs',
      file: c.file,
    })),
    ...packageReadmes({ heldOut: true, limit: HELDOUT_READMES }).map((c) => ({ text: c.text, kind: 'package-readmes', file: c.file })),
    ...packageChunks({ heldOut: true, kinds: ['code'], limit: HELDOUT_CODE, perFile: 1, seed: 22 }).map((c) => ({
      text: c.text,
      kind: 'package-code',
      file: c.file,
    })),
    ...projectChunks().map((c) => ({ text: c.text, kind: `project-${c.kind === 'doc' ? 'docs' : 'code'}`, file: c.file })),
    ...ARTICLES.map((text, i) => ({ text, kind: 'articles', file: `article ${i + 1}` })),
    ...CHAT_LOGS.map((text, i) => ({ text, kind: 'chat-logs', file: `chat log ${i + 1}` })),
    ...BENIGN_ABOUT_INSTRUCTIONS.map((text) => ({ text, kind: 'about-instructions' })),
    ...sourcedBenign()
      .filter((b) => !b.trainable)
      .map((b) => ({ text: b.text, kind: 'held-out-sources', file: b.source })),
  ];
}

/**
 * What the shipped model may learn from: the trainable sources' attacks and benign texts, the dev
 * text about instructions and the training packages' chunks — minus any text that nearly copies
 * a held-out one (an attack of a held-out source, a held-out document).
 * @returns {Labelled[]}
 */
export function trainingSet() {
  /** @type {Labelled[]} */
  const out = [];
  for (const a of labelledAttacks())
    if (a.trainable) out.push({ text: a.text, label: 1, families: a.families, source: a.source, trainable: true });
  for (const b of sourcedBenign()) if (b.trainable) out.push({ text: b.text, label: 0, families: [], source: b.source, trainable: true });
  for (const text of BENIGN_ABOUT_INSTRUCTIONS_DEV) out.push({ text, label: 0, families: [], source: 'about-dev', trainable: true });
  for (const text of [...DEV_ARTICLES, ...DEV_CHATS]) out.push({ text, label: 0, families: [], source: 'prose-dev', trainable: true });
  for (const c of [
    ...packageChunks({ heldOut: false, kinds: ['doc'], limit: TRAIN_DOCS, perFile: 6 }),
    ...packageChunks({ heldOut: false, kinds: ['code'], limit: TRAIN_CODE, perFile: 1 }),
  ]) {
    out.push({ text: c.text, label: 0, families: [], source: `packages-${c.kind}`, trainable: true });
  }
  const heldOut = [
    ...labelledAttacks()
      .filter((a) => !a.trainable)
      .map((a) => a.text),
    ...benignHeldOut().map((b) => b.text),
  ];
  const index = new NearDuplicateIndex(out.map((x) => x.text));
  /** @type {Set<number>} */
  const copies = new Set();
  for (const text of heldOut) for (const { index: i } of index.near(text)) copies.add(i);
  return out.filter((_, i) => !copies.has(i));
}

/** The held-out sources' attacks: measured, never trained on. @returns {Labelled[]} */
export function heldOutAttacks() {
  return labelledAttacks()
    .filter((a) => !a.trainable)
    .map((a) => ({ text: a.text, label: /** @type {const} */ (1), families: a.families, source: a.source, trainable: false }));
}

/** Feature names as numbers, so training adds up array cells instead of looking up strings. */
export class FeatureIndex {
  /** @type {Map<string, number>} */
  ids = new Map();
  /** @type {string[]} */
  names = [];
  /** @param {string[][]} us */
  encode(us) {
    return us.map((u) =>
      Int32Array.from(u, (f) => {
        let id = this.ids.get(f);
        if (id === undefined) {
          id = this.names.length;
          this.ids.set(f, id);
          this.names.push(f);
        }
        return id;
      }),
    );
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
 * @param {Uint8Array} [words] which features are words or word pairs (1), for WORD_DROP
 * @returns {Float64Array} the weights, pruned and rounded as shipped
 */
export function train(examples, size, seed = 1, mask = undefined, words = undefined) {
  const w = new Float64Array(size);
  const rand = rng(seed);
  const order = examples.map((_, i) => i);
  const decay = 1 - LEARNING_RATE * L2;
  const drop = words ? Math.round(WORD_DROP * 0x10000) : 0;
  let salt = 0;
  /** Whether feature `f` sits out this step (a word or word pair, with probability WORD_DROP). @param {number} f */
  const out = (f) => drop > 0 && /** @type {Uint8Array} */ (words)[f] === 1 && ((Math.imul(f ^ salt, 0x9e3779b1) >>> 16) & 0xffff) < drop;
  /** @param {Int32Array} u */
  const score = (u) => {
    let z = 0;
    for (let k = 0; k < u.length; k++) if (!out(u[k])) z += w[u[k]];
    return z;
  };
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const i of order) {
      const { label, units: us } = examples[i];
      if (us.length === 0) continue;
      salt = Math.imul(epoch * 1_000_003 + i, 0x85ebca6b) >>> 0;
      let best = us[0];
      let bestScore = -Infinity;
      for (const u of us) {
        const s = drop > 0 ? score(u) : unitScore(w, u);
        if (s > bestScore) [best, bestScore] = [u, s];
      }
      const step = LEARNING_RATE * (label - 1 / (1 + Math.exp(-bestScore)));
      for (let k = 0; k < best.length; k++) if ((!mask || mask[best[k]]) && !out(best[k])) w[best[k]] = w[best[k]] * decay + step;
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
 * @param {Set<string>} [offLexicons] lexicons held out (a held-out family's): never weighed
 */
export function trainSelected(examples, index, offLexicons = new Set()) {
  const size = index.names.length;
  const held = new Uint8Array(size).fill(1);
  index.names.forEach((f, i) => {
    if (f.startsWith('c:') && offLexicons.has(f.slice(2))) held[i] = 0;
  });
  const words = Uint8Array.from(index.names, (f) => (f.startsWith('w:') || f.startsWith('b:') ? 1 : 0));
  const first = train(examples, size, 1, held, words);
  const mask = Uint8Array.from(held);
  index.names.forEach((f, i) => {
    if (f.startsWith('c:') && Math.abs(first[i]) < CUE_MIN) mask[i] = 0;
  });
  return train(examples, size, 1, mask, words);
}

/** A text's score: its most suspicious unit's. @param {Float64Array} w @param {Int32Array[]} us */
export const textScore = (w, us) => us.reduce((m, u) => Math.max(m, unitScore(w, u)), -Infinity);

/**
 * Labelled texts with what every fold needs: their units (as feature numbers) and, for the
 * attacks and the held-out texts, the rules' verdict with nothing held out.
 * @param {Labelled[]} xs @param {FeatureIndex} index @returns {Example[]}
 */
export function prepare(xs, index) {
  const rules = new InputSanitizer({ model: false });
  return xs.map((x) => ({
    ...x,
    units: index.encode(units(x.text)),
    rules: x.label === 1 || !x.trainable ? rules.sanitize(x.text).flags.length > 0 : false,
  }));
}

const pct = (/** @type {number} */ n, /** @type {number} */ d) => (d === 0 ? null : Math.round((n / d) * 1000) / 10);
const THRESHOLDS = [0, 0.5, 1, 1.5, 2, 2.5, 3];

/** Who caught the flagged attacks: the rules and cues alone, the learned model alone, both; and how many were missed. */
class Contribution {
  cuesOnly = 0;
  modelOnly = 0;
  both = 0;
  missed = 0;
  /** @param {boolean} cues @param {boolean} model */
  add(cues, model) {
    if (cues && model) this.both++;
    else if (cues) this.cuesOnly++;
    else if (model) this.modelOnly++;
    else this.missed++;
  }
  get flagged() {
    return this.cuesOnly + this.modelOnly + this.both;
  }
  get total() {
    return this.flagged + this.missed;
  }
  toJSON() {
    return {
      flagged: `${this.flagged}/${this.total}`,
      pct: pct(this.flagged, this.total),
      cuesOnly: this.cuesOnly,
      modelOnly: this.modelOnly,
      both: this.both,
      missed: this.missed,
    };
  }
}

/**
 * The leave-family-out folds: for each family and each half of the sources, which examples train
 * and which are measured (indices into `examples`). Training leaves out every example with the
 * family's shape, everything from the measured half's sources, and any text that nearly copies a
 * measured example.
 * @param {Labelled[]} examples the training set and the held-out sources' attacks
 * @returns {{family: string, half: 0 | 1, train: number[], test: number[], copiesDropped: number}[]}
 */
export function leaveFamilyOutFolds(examples) {
  const index = new NearDuplicateIndex(examples.map((x) => x.text));
  /** @type {{family: string, half: 0 | 1, train: number[], test: number[], copiesDropped: number}[]} */
  const folds = [];
  for (const family of Object.keys(FAMILIES)) {
    for (const half of /** @type {const} */ ([0, 1])) {
      const test = examples.flatMap((x, i) => (x.label === 1 && x.families.includes(family) && SOURCE_HALF[x.source] === half ? [i] : []));
      const eligible = (/** @type {number} */ i) =>
        examples[i].trainable && !examples[i].families.includes(family) && SOURCE_HALF[examples[i].source] !== half;
      /** @type {Set<number>} */
      const copies = new Set();
      for (const t of test) for (const { index: i } of index.near(examples[t].text, eligible)) copies.add(i);
      const train = examples.flatMap((_, i) => (eligible(i) && !copies.has(i) ? [i] : []));
      folds.push({ family, half, train, test, copiesDropped: copies.size });
    }
  }
  return folds;
}

/**
 * Leave-family-out (see the header): each family, with each half of the sources measured, held
 * out of the training examples, of the training sources and of the rules (its own rules and
 * lexicons off). Every number comes from texts and knowledge the detectors did not have.
 * @param {{threshold?: number, index?: FeatureIndex, examples?: Example[]}} [opts] `examples`:
 *   the training set and the held-out sources' attacks, prepared with `index` (built here if absent)
 */
export function leaveFamilyOut({
  threshold = THRESHOLD,
  index = new FeatureIndex(),
  examples = prepare([...trainingSet(), ...heldOutAttacks()], index),
} = {}) {
  /** @type {Record<string, Contribution>} */
  const byFamily = {};
  /** @type {Record<string, Contribution>} the same, on the held-out sources' attacks only (no rule was tuned on them) */
  const byFamilyHeldOutSources = {};
  const all = new Contribution();
  /** @type {Record<number, [number, number]>} */
  const sweep = Object.fromEntries(THRESHOLDS.map((t) => [t, [0, 0]]));
  /** @type {Record<string, number>} */
  const copiesDropped = {};
  for (const fold of leaveFamilyOutFolds(examples)) {
    const sanitizer = new InputSanitizer({ model: false, without: [fold.family] });
    const w = trainSelected(
      fold.train.map((i) => examples[i]),
      index,
      cuesOf([fold.family]).lexicons,
    );
    const c = (byFamily[fold.family] ??= new Contribution());
    copiesDropped[`${fold.family}/${fold.half}`] = fold.copiesDropped;
    for (const i of fold.test) {
      const x = examples[i];
      const cues = sanitizer.sanitize(x.text).flags.length > 0;
      const score = textScore(w, x.units);
      c.add(cues, score > threshold);
      all.add(cues, score > threshold);
      if (!x.trainable) (byFamilyHeldOutSources[fold.family] ??= new Contribution()).add(cues, score > threshold);
      for (const t of THRESHOLDS) {
        sweep[t][1]++;
        if (cues || score > t) sweep[t][0]++;
      }
    }
  }
  const families = Object.keys(FAMILIES);
  return {
    injectionHeldOutFamilyRecall: pct(all.flagged, all.total),
    injectionHeldOutFamilyRecallMin: Math.min(...families.map((f) => /** @type {number} */ (pct(byFamily[f].flagged, byFamily[f].total)))),
    injectionHeldOutFamilyRecallByFamily: Object.fromEntries(families.map((f) => [f, byFamily[f].toJSON()])),
    injectionHeldOutFamilyRecallHeldOutSourcesByFamily: Object.fromEntries(
      families.map((f) => [f, byFamilyHeldOutSources[f]?.toJSON() ?? null]),
    ),
    injectionHeldOutFamilyContribution: all.toJSON(),
    injectionHeldOutFamilyNearCopiesDropped: copiesDropped,
    injectionHeldOutFamilyThresholdSweep: Object.fromEntries(THRESHOLDS.map((t) => [t, pct(...sweep[t])])),
  };
}

/**
 * Leave-half-out: every source of one half out of training (all families in), measured on that half.
 * @param {{threshold?: number, index: FeatureIndex, examples: Example[]}} opts
 */
export function leaveHalfOut({ threshold = THRESHOLD, index, examples }) {
  const byHalf = /** @type {Contribution[]} */ ([]);
  for (const half of [0, 1]) {
    const w = trainSelected(
      examples.filter((x) => x.trainable && SOURCE_HALF[x.source] !== half),
      index,
    );
    const c = (byHalf[half] = new Contribution());
    for (const x of examples) if (x.label === 1 && SOURCE_HALF[x.source] === half) c.add(x.rules, textScore(w, x.units) > threshold);
  }
  return {
    injectionHeldOutSourceRecall: pct(byHalf[0].flagged + byHalf[1].flagged, byHalf[0].total + byHalf[1].total),
    injectionHeldOutSourceRecallByHalf: byHalf.map((c) => c.toJSON()),
  };
}

/**
 * The shipped detectors (rules and cues all on, the shipped model) on what nobody trained or
 * tuned on: the held-out sources' attacks, and ordinary documents by kind.
 * @param {{threshold?: number, weights?: Map<string, number>, index?: FeatureIndex, examples?: Example[]}} [opts]
 *   `weights`: the shipped model (default: trained here on the training set)
 */
export function heldOutReport({
  threshold = THRESHOLD,
  weights,
  index = new FeatureIndex(),
  examples = prepare([...trainingSet(), ...heldOutAttacks()], index),
} = {}) {
  const heldOutBenign = benignHeldOut();
  const benign = prepare(
    heldOutBenign.map((b) => ({ text: b.text, label: /** @type {const} */ (0), families: [], source: b.kind, trainable: false })),
    index,
  );
  const shipped = weights
    ? Float64Array.from(index.names, (f) => weights.get(f) ?? 0)
    : trainSelected(
        examples.filter((x) => x.trainable),
        index,
      );
  /** @type {Record<string, Contribution>} */
  const bySource = {};
  /** @type {Record<string, Contribution>} */
  const byFamily = {};
  const attacks = new Contribution();
  for (const x of examples) {
    if (x.trainable || x.label !== 1) continue;
    const model = textScore(shipped, x.units) > threshold;
    (bySource[x.source] ??= new Contribution()).add(x.rules, model);
    for (const f of x.families) (byFamily[f] ??= new Contribution()).add(x.rules, model);
    attacks.add(x.rules, model);
  }
  /** @type {Record<string, Contribution>} */
  const byKind = {};
  const documents = new Contribution();
  /** @type {{kind: string, file?: string, by: string, text: string}[]} */
  const falsePositives = [];
  /** @type {Record<number, number>} */
  const fpAt = Object.fromEntries(THRESHOLDS.map((t) => [t, 0]));
  benign.forEach((x, i) => {
    const score = textScore(shipped, x.units);
    const model = score > threshold;
    (byKind[x.source] ??= new Contribution()).add(x.rules, model);
    documents.add(x.rules, model);
    for (const t of THRESHOLDS) if (x.rules || score > t) fpAt[t]++;
    if (x.rules || model)
      falsePositives.push({
        kind: x.source,
        file: heldOutBenign[i].file,
        by: x.rules && model ? 'both' : x.rules ? 'cues' : 'model',
        text: x.text.slice(0, 160),
      });
  });
  return {
    injectionBlindSourceRecall: pct(attacks.flagged, attacks.total),
    injectionBlindSourceRecallBySource: Object.fromEntries(Object.entries(bySource).map(([s, c]) => [s, c.toJSON()])),
    injectionBlindSourceRecallByFamily: Object.fromEntries(Object.entries(byFamily).map(([f, c]) => [f, `${c.flagged}/${c.total}`])),
    injectionBlindSourceContribution: attacks.toJSON(),
    injectionBenignFalsePositiveRate: pct(documents.flagged, documents.total),
    injectionBenignFalsePositiveMaxKind: Math.max(...Object.values(byKind).map((c) => /** @type {number} */ (pct(c.flagged, c.total)))),
    injectionBenignFalsePositiveByKind: Object.fromEntries(
      Object.entries(byKind).map(([k, c]) => [
        k,
        { flagged: `${c.flagged}/${c.total}`, pct: pct(c.flagged, c.total), cuesOnly: c.cuesOnly, modelOnly: c.modelOnly, both: c.both },
      ]),
    ),
    injectionBenignFalsePositiveContribution: { cuesOnly: documents.cuesOnly, modelOnly: documents.modelOnly, both: documents.both },
    injectionBenignThresholdSweep: Object.fromEntries(THRESHOLDS.map((t) => [t, pct(fpAt[t], benign.length)])),
    threshold,
    falsePositives,
  };
}

/**
 * The whole evaluation: leave-family-out, leave-half-out, and the held-out report.
 * @param {{threshold?: number, weights?: Map<string, number>}} [opts] `weights`: the shipped model (default: trained here on the full
 *   training set)
 */
export function evaluateGeneralisation({ threshold = THRESHOLD, weights } = {}) {
  const index = new FeatureIndex();
  const examples = prepare([...trainingSet(), ...heldOutAttacks()], index);
  return {
    ...leaveFamilyOut({ threshold, index, examples }),
    ...leaveHalfOut({ threshold, index, examples }),
    ...heldOutReport({ threshold, weights, index, examples }),
  };
}

/**
 * The weights as the data file injection-model.js loads (and checks): its format and version, then
 * one weight a line in name order, so a retraining's diff shows which weights moved.
 * @param {Map<string, number>} weights @param {number} texts how many texts trained them
 */
export function weightsFile(weights, texts) {
  const generatedBy = 'scripts/train-injection-model.mjs (do not edit)';
  const head = { format: WEIGHTS_FORMAT, version: WEIGHTS_VERSION, generatedBy, texts, threshold: THRESHOLD };
  const lines = [...weights].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return `${JSON.stringify(head, null, 1).slice(0, -2)},\n "weights": {\n${lines.join(',\n')}\n}}\n`;
}

function main() {
  const index = new FeatureIndex();
  const training = prepare(trainingSet(), index);
  const trained = trainSelected(training, index);
  /** @type {Map<string, number>} */
  const weights = new Map(index.names.map((f, i) => /** @type {[string, number]} */ ([f, trained[i]])).filter(([, v]) => v !== 0));
  writeFileSync(OUT, weightsFile(weights, training.length));
  console.error(`${weights.size} weights from ${training.length} texts → ${OUT}`);
  if (process.argv.includes('--evaluate')) {
    const { falsePositives, ...report } = evaluateGeneralisation({ weights });
    console.log(JSON.stringify(process.argv.includes('--show-fp') ? { ...report, falsePositives } : report, null, 2));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
