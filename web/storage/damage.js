// Damaged files: a file Clawser keeps that cannot be read as it should (cut short by a crash or a
// full disk, garbage bytes, valid JSON of the wrong shape). A reader that finds one reports it
// and goes on without it: the damage costs that item, never the rest. The raw bytes stay where
// they are until the person chooses to download them or set them aside; damaged lines of a log
// are copied into a sibling file (kept) before anything drops them.
/** @import { FileSystem } from './types.d.ts' */
/** @import { ZodType } from 'zod' */
import { toBase64 } from './base64.js';
import { readTextIfExists } from './file-helpers.js';
import { StorageError } from './errors.js';

/** A change refused because the file it would overwrite is damaged (code `damaged`); the message says what to do. */
export class DamagedFileError extends StorageError {
  /**
   * @param {string} message
   * @param {{cause?: unknown, what?: string, problem?: string}} [options] what, problem: the file and what is wrong
   */
  constructor(message, options = {}) {
    super('damaged', message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DamagedFileError';
    this.what = options.what ?? '';
    this.problem = options.problem ?? '';
  }
}

/** The sentence every refusal ends with: where the person chooses. */
export const SET_ASIDE_HINT = 'It is kept as it is: download it or set it aside from the notice about damaged files, then try again.';

/**
 * What a store reports about one damaged file. Paths are in the store's own file system; who
 * shows it (web/app/damage-report.js) makes them paths of the browser's storage.
 * @typedef {object} DamageNotice
 * @property {string} what the item, for people ("Conversation “Trip”: its details (meta.json)")
 * @property {string} problem what is wrong ("cut short: the file ends in the middle of its data")
 * @property {string} path the damaged file (its raw bytes)
 * @property {string} [keptAt] where its damaged bytes were set aside already (lines of a log, a file
 *   its store had to set aside itself); the download gives these
 * @property {() => Promise<string>} [setAside] moves the raw bytes aside (kept) and lets the store
 *   start that item afresh; resolves to where they went. Absent: nothing to set aside (or done).
 */

/** Where a store sends its reports (the app shows them). @typedef {(notice: DamageNotice) => void} DamageSink */

/** Ignores reports (a store used without the app: tests, tools). @type {DamageSink} */
export const ignoreDamage = () => {};

/**
 * The result of a checked read: the value, or what is wrong with the file.
 * @template T
 * @typedef {{ok: true, value: T} | {ok: false, problem: string}} Checked
 */

/** Control characters no JSON or text file of Clawser holds (tab, newline and return excepted), and undecodable bytes. */
const GARBAGE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffd]/;

/**
 * Why `text` is not the JSON it should be, in words: empty, cut short, garbage, or broken.
 * @param {string} text @param {unknown} err the parse error
 */
export function jsonProblem(text, err) {
  if (!text.trim()) return 'empty: the file holds nothing';
  if (GARBAGE.test(text)) return 'garbage: the file holds bytes that are not text';
  const message = /** @type {Error} */ (err)?.message ?? String(err);
  // V8 says "Unexpected end of JSON input", "Unterminated string in JSON at position n" or
  // "Expected … after … at position n" with n at the end when the text stops early.
  const at = /position (\d+)/.exec(message);
  if (/end of JSON input|Unterminated/i.test(message) || (at && Number(at[1]) >= text.trimEnd().length))
    return `cut short: the file ends in the middle of its data (${message})`;
  return `not valid JSON (${message})`;
}

/**
 * The first few problems of a schema check, in words ("goals.0.status: Invalid option").
 * @param {import('zod').ZodError} error
 */
export function shapeProblem(error) {
  const issues = error.issues.slice(0, 3).map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`);
  return `not in the expected shape (${issues.join('; ')}${error.issues.length > 3 ? '; …' : ''})`;
}

/**
 * Reads a JSON document and checks its shape.
 * @template T @param {string} text @param {ZodType<T>} schema @returns {Checked<T>}
 */
export function readJson(text, schema) {
  /** @type {unknown} */
  let raw;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, problem: jsonProblem(text, err) };
  }
  const parsed = schema.safeParse(raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problem: shapeProblem(parsed.error) };
}

/**
 * Why one line of a log is not a record: cut short, garbage, broken JSON or the wrong shape.
 * @param {string} text @param {boolean} json the line is valid JSON (then: the wrong shape)
 */
export function lineProblem(text, json) {
  if (json) return 'not a record of this log (valid JSON of another shape)';
  try {
    JSON.parse(text);
    return 'not valid JSON';
  } catch (err) {
    return jsonProblem(text, err).replace(/the file/g, 'the line');
  }
}

/**
 * The name a damaged file gets when it is set aside, next to where it was:
 * `dir/meta.json` → `dir/meta.damaged-2025-01-02T03-04-05-006Z.json`.
 * @param {string} path @param {number} [now]
 */
export function asidePath(path, now = Date.now()) {
  const slash = path.lastIndexOf('/');
  const dir = path.slice(0, slash + 1);
  const name = path.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  return dot > 0 ? `${dir}${name.slice(0, dot)}.damaged-${stamp}${name.slice(dot)}` : `${dir}${name}.damaged-${stamp}`;
}

/**
 * Moves a damaged file (or folder) aside, under the name `asidePath` gives: its bytes are kept,
 * and the store may write a new one at `path`. Resolves to where it went.
 * @param {FileSystem} fs @param {string} path
 */
export async function setAsideFile(fs, path) {
  const to = asidePath(path);
  await fs.move(path, to);
  return to;
}

/** The sibling file that keeps a log's damaged lines: `events.jsonl` → `events.damaged.jsonl`. @param {string} logPath */
export function damagedLinesPath(logPath) {
  return logPath.endsWith('.jsonl') ? `${logPath.slice(0, -'.jsonl'.length)}.damaged.jsonl` : `${logPath}.damaged`;
}

/**
 * A damaged line of a log: where it starts in the log, its raw bytes (without the newline),
 * what is wrong with it, and `last`: it was the log's unterminated last line (torn), which is
 * cut off once kept.
 * @typedef {{offset: number, bytes: Uint8Array, problem: string, last?: boolean}} DamagedLine
 */

const decoder = new TextDecoder();

/**
 * Keeps damaged lines of a log in its sibling file (`damagedLinesPath`), one JSON record each:
 * `{offset, problem, keptAt, raw}` (`raw`: the bytes in base64, exactly as they were) — unless
 * the file already holds that line (same offset, same bytes): a line is kept, and reported,
 * once. Resolves to the lines kept now (empty when all were kept before). Reads the sibling
 * only when there is something to keep, so a healthy log costs nothing.
 * @param {FileSystem} fs @param {string} logPath @param {DamagedLine[]} lines @param {number} [now]
 * @returns {Promise<DamagedLine[]>}
 */
export async function keepDamagedLines(fs, logPath, lines, now = Date.now()) {
  if (!lines.length) return [];
  const path = damagedLinesPath(logPath);
  const existing = (await readTextIfExists(fs, path)) ?? '';
  const known = new Set();
  for (const line of existing.split('\n')) {
    try {
      const r = JSON.parse(line);
      if (r && typeof r.offset === 'number' && typeof r.raw === 'string') known.add(`${r.offset}:${r.raw}`);
    } catch {
      // a damaged record of damage: the line it named is kept again
    }
  }
  const fresh = lines.filter((l) => !known.has(`${l.offset}:${toBase64(l.bytes)}`));
  if (!fresh.length) return [];
  const records = fresh.map((l) =>
    JSON.stringify({
      offset: l.offset,
      problem: l.problem,
      ...(l.last ? { last: true } : {}),
      keptAt: now,
      raw: toBase64(l.bytes),
      text: decoder.decode(l.bytes).slice(0, 2000),
    }),
  );
  // A torn last record of this file must not swallow the first new one.
  const lead = existing && !existing.endsWith('\n') ? '\n' : '';
  await fs.append(path, `${lead}${records.join('\n')}\n`);
  return fresh;
}

/** "1 line", "3 lines". @param {number} n @param {string} one @param {string} [many] */
export const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * What was wrong with a log's lines just kept aside, in words: a torn last entry, lines that
 * could not be read (and why), where they are kept, and `intact` (what is not affected).
 * @param {DamagedLine[]} lines @param {string} keptIn @param {string} intact
 */
export function keptLinesProblem(lines, keptIn, intact) {
  const middle = lines.filter((l) => !l.last);
  const parts = [
    lines.some((l) => l.last) ? 'its last entry was incomplete (a tab or the browser closed while writing it)' : '',
    middle.length
      ? `${count(middle.length, 'line')} could not be read (${[...new Set(middle.map((l) => l.problem))].slice(0, 2).join('; ')})`
      : '',
  ].filter(Boolean);
  return `${parts.join('; and ')}. ${lines.length === 1 ? 'It was' : 'They were'} set aside, kept in ${keptIn}; ${intact}`;
}
