#!/usr/bin/env node
// The InputSanitizer (web/safety/input-sanitizer.js) in Node: its time per 50 KB tool result, its
// rates on the project's corpus, and how it generalises (issue 32 §7): leave-family-out recall (each
// family held out of the examples, the measured half of the sources and its own rules and lexicons,
// the learned model retrained for each fold), leave-half-out recall, the held-out sources with the
// shipped detectors, and false positives on ordinary documents nobody trained on, by kind — each
// with what the rules and cues caught alone, the learned model alone, and both
// (scripts/train-injection-model.mjs, evaluateGeneralisation). Part of `npm run bench`;
// `node bench/injection.mjs` runs it alone and prints the same keys as JSON.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (/** @type {number} */ x) => Math.round(x * 100) / 100;

/** Time per 50 KB tool result (the decoding passes included), and the rates on the project's corpus. */
export async function sanitizerBench() {
  const { InputSanitizer } = await import('../web/safety/input-sanitizer.js');
  const { ATTACKS, BENIGN } = await import('../tests/fixtures/injection-corpus.mjs');
  const sanitizer = new InputSanitizer();
  const text = BENIGN.map((s) => s.text).join('\n\n');
  const page = text.repeat(Math.ceil(50_000 / text.length)).slice(0, 50_000);
  const times = [];
  for (let i = 0; i < 21; i++) {
    const t = performance.now();
    sanitizer.sanitize(page);
    times.push(performance.now() - t);
  }
  const flagged = (/** @type {string} */ t) => sanitizer.sanitize(t).flags.length > 0;
  /** @param {string} split */
  const rate = (split) => ({
    detection: round(
      (ATTACKS.filter((s) => s.split === split && flagged(s.text)).length / ATTACKS.filter((s) => s.split === split).length) * 100,
    ),
    falsePositives: round(
      (BENIGN.filter((s) => s.split === split && flagged(s.text)).length / BENIGN.filter((s) => s.split === split).length) * 100,
    ),
  });
  const dev = rate('dev');
  const heldout = rate('heldout');
  return {
    sanitizer50KBMs: round(median(times)),
    sanitizerDevDetectionPct: dev.detection,
    sanitizerDevFalsePositivePct: dev.falsePositives,
    sanitizerHeldoutDetectionPct: heldout.detection,
    sanitizerHeldoutFalsePositivePct: heldout.falsePositives,
  };
}

/** Generalisation: every number from texts the model did not train on (see the training script). */
export async function injectionBench() {
  const { evaluateGeneralisation } = await import('../scripts/train-injection-model.mjs');
  const { loadInjectionWeights } = await import('../web/safety/injection-model.js');
  const shipped = await loadInjectionWeights();
  // The shipped weights for the held-out source and the documents; each fold retrains its own.
  const weights = new Map(Object.entries(shipped.weights));
  const { falsePositives, ...report } = evaluateGeneralisation({ weights, threshold: shipped.threshold });
  return { ...report, injectionBenignFalsePositiveCount: falsePositives.length };
}

export const targets = { sanitizer50KBMs: 100 };
export const floors = {
  sanitizerDevDetectionPct: 90,
  sanitizerHeldoutDetectionPct: 90,
  injectionHeldOutFamilyRecall: 85,
  injectionHeldOutSourceRecall: 85,
  injectionBlindSourceRecall: 85,
};
export const ceilings = {
  sanitizerDevFalsePositivePct: 5,
  sanitizerHeldoutFalsePositivePct: 5,
  injectionBenignFalsePositiveRate: 3,
  injectionBenignFalsePositiveMaxKind: 3,
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = /** @type {Record<string, unknown>} */ ({ ...(await sanitizerBench()), ...(await injectionBench()) });
  /** @type {Record<string, {measured: unknown, target: number}>} */
  const missed = {};
  for (const [key, target] of Object.entries({ ...targets, ...ceilings }))
    if (!(Number(result[key]) <= target)) missed[key] = { measured: result[key], target };
  for (const [key, floor] of Object.entries(floors))
    if (!(Number(result[key]) >= floor)) missed[key] = { measured: result[key], target: floor };
  console.log(JSON.stringify({ ...result, targets, floors, ceilings, missed }, null, 2));
}
