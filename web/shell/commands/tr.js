/** @import { Command } from 'just-bash' */
// `tr` over byte strings: a table per byte instead of just-bash's character-at-a-time loop
// (the other text commands are in text.js; tests/unit/shell-text.test.mjs compares with bash).
import { defineCommand } from 'just-bash';
import { latin1 } from '../bash-fs.js';
import { bytesResult, stdinBytes, utf8Bytes } from './byte-text.js';

/** @type {Record<string, string>} */
const CLASSES = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  blank: '\t ',
  cntrl: '\x00-\x1f\x7f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-/:-@[-`{-~',
  space: '\t-\r ',
  upper: 'A-Z',
  xdigit: '0-9A-Fa-f',
};
const ESCAPES = /** @type {Record<string, number>} */ ({ a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 });

/**
 * A tr set (escapes, ranges, [:class:]) as its bytes in order; null for what this tr leaves to
 * just-bash's ([c*n] repeats, [=c=] equivalence classes, a range backwards).
 * @param {string} spec a byte string @returns {number[] | null}
 */
export function trSet(spec) {
  /** @type {number[]} */
  const raw = [];
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i];
    if (c === '[' && spec[i + 1] === ':') {
      const end = spec.indexOf(':]', i + 2);
      const name = end < 0 ? '' : spec.slice(i + 2, end);
      if (!(name in CLASSES)) return null;
      const inner = trSet(CLASSES[name]);
      if (!inner) return null;
      raw.push(...inner.map((b) => -1 - b));
      i = end + 1;
      continue;
    }
    if (c === '[' && /^\[(=|.\*)/s.test(spec.slice(i))) return null;
    if (c === '\\' && i + 1 < spec.length) {
      const oct = /^[0-7]{1,3}/.exec(spec.slice(i + 1));
      if (oct && Number.parseInt(oct[0], 8) < 256) {
        raw.push(Number.parseInt(oct[0], 8));
        i += oct[0].length;
      } else {
        const e = spec[i + 1];
        raw.push(ESCAPES[e] ?? e.charCodeAt(0));
        i++;
      }
      continue;
    }
    raw.push(c.charCodeAt(0));
  }
  // Ranges: a '-' between two bytes (not at either end); class members (negative) are never ends.
  /** @type {number[]} */
  const out = [];
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i];
    if (b >= 0 && raw[i + 1] === 45 && i + 2 < raw.length && raw[i + 2] >= 0) {
      const end = raw[i + 2];
      if (end < b) return null;
      for (let x = b; x <= end; x++) out.push(x);
      i += 2;
    } else out.push(b < 0 ? -1 - b : b);
  }
  return out;
}

/** A byte as a regular-expression escape. @param {number} b */
const hex = (b) => `\\x${b.toString(16).padStart(2, '0')}`;

/** @returns {Command} */
export function trCommand() {
  return defineCommand('tr', async (args, ctx) => {
    const orig = () => /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand)(args);
    let complement = false;
    let del = false;
    let squeeze = false;
    let truncate = false;
    /** @type {string[]} */
    const sets = [];
    let options = true;
    for (const a of args) {
      if (options && a === '--') options = false;
      else if (options && /^-[cCdst]+$/.test(a)) {
        for (const f of a.slice(1)) {
          if (f === 'c' || f === 'C') complement = true;
          else if (f === 'd') del = true;
          else if (f === 's') squeeze = true;
          else truncate = true;
        }
      } else if (options && a.startsWith('-') && a.length > 1) return orig();
      else sets.push(a);
    }
    const wanted = del ? (squeeze ? 2 : 1) : squeeze ? [1, 2] : 2;
    if (Array.isArray(wanted) ? !wanted.includes(sets.length) : sets.length !== wanted) return orig();
    const parsed = sets.map((s) => trSet(utf8Bytes(s)));
    if (parsed.some((s) => !s)) return orig();
    let set1 = /** @type {number[]} */ (parsed[0]);
    const set2 = /** @type {number[] | undefined} */ (parsed[1]);
    if (complement) {
      const inSet = new Set(set1);
      set1 = [];
      for (let b = 0; b < 256; b++) if (!inSet.has(b)) set1.push(b);
    }
    const translating = !del && set2 !== undefined;
    if (translating && !set2.length && set1.length) return orig();
    if (translating && truncate) set1 = set1.slice(0, set2.length);
    // What each byte becomes: itself, another byte, or nothing (-1).
    const map = new Int16Array(256).map((_, i) => i);
    if (del) for (const b of set1) map[b] = -1;
    if (translating) for (let i = 0; i < set1.length; i++) map[set1[i]] = set2[Math.min(i, set2.length - 1)];
    const squeezeSet = new Uint8Array(256);
    if (squeeze) for (const b of (translating || del ? set2 : set1) ?? []) squeezeSet[b] = 1;
    const input = stdinBytes(ctx);
    /** @type {number[]} */
    const changed = [];
    for (let b = 0; b < 256; b++) if (map[b] !== b) changed.push(b);
    // Deleting only: one native replace. ASCII case only, over ASCII text: the string's own case.
    if (!squeeze && changed.every((b) => map[b] < 0))
      return bytesResult(changed.length ? input.replace(new RegExp(`[${changed.map(hex).join('')}]+`, 'g'), '') : input);
    if (!squeeze && !/[\x80-\xff]/.test(input)) {
      const asciiCase = (/** @type {number} */ from, /** @type {number} */ to) =>
        changed.length === 26 && changed.every((b, i) => b === from + i && map[b] === to + i);
      if (asciiCase(65, 97)) return bytesResult(input.toLowerCase());
      if (asciiCase(97, 65)) return bytesResult(input.toUpperCase());
    }
    const out = new Uint8Array(input.length);
    let n = 0;
    let last = -1;
    for (let i = 0; i < input.length; i++) {
      const b = map[input.charCodeAt(i) & 0xff];
      if (b < 0) continue;
      if (b === last && squeezeSet[b]) continue;
      out[n++] = b;
      last = b;
    }
    return bytesResult(latin1(out.subarray(0, n)));
  });
}

// ——— cut ———
