/** @import { Command } from 'just-bash' */
// Text commands over "byte strings" (one char per byte, the form just-bash pipes between
// commands), in place of just-bash's where those are slow over megabytes: `cut`, `uniq`, `tr` (tr.js),
// and the most common forms of `sed` (`s/TEXT/TEXT/[g]` with literal text) and `awk` (printing
// fields: `{print $2, $1}`). Each works on the whole input at once — indexOf and slices per
// line — and hands its output back as bytes, so the next
// command of a pipeline gets it without a conversion. Anything else (another option, a regular
// expression, an awk program) goes to just-bash's own command, unchanged: the behaviour is
// GNU's either way (tests/unit/shell-text.test.mjs compares both with real bash).
import { defineCommand } from 'just-bash';
import { bytesResult, readInputs, utf8Bytes, forEachLine } from './byte-text.js';
import { trCommand } from './tr.js';

/**
 * A cut list (`1,3-5,7-`) as sorted, merged ranges (1-based, inclusive); null when invalid.
 * @param {string} list @returns {[number, number][] | null}
 */
export function cutList(list) {
  /** @type {[number, number][]} */
  const ranges = [];
  for (const part of list.split(/[,\s]/)) {
    const m = /^(\d*)(-?)(\d*)$/.exec(part);
    if (!m || part === '' || part === '-') return null;
    const lo = m[1] ? Number(m[1]) : 1;
    const hi = m[2] ? (m[3] ? Number(m[3]) : Infinity) : lo;
    if (lo === 0 || hi < lo) return null;
    ranges.push([lo, hi]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  /** @type {[number, number][]} */
  const merged = [];
  for (const r of ranges) {
    const prev = merged[merged.length - 1];
    if (prev && r[0] <= prev[1] + 1) prev[1] = Math.max(prev[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

/** @returns {Command} */
export function cutCommand() {
  return defineCommand('cut', async (args, ctx) => {
    const orig = () => /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand)(args);
    /** @type {'b' | 'f' | null} */
    let mode = null;
    let list = '';
    let delim = '\t';
    /** @type {string | null} */
    let outDelim = null;
    let onlyDelimited = false;
    let complement = false;
    /** @type {string[]} */
    const files = [];
    let options = true;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (!options || a === '-' || !a.startsWith('-')) {
        files.push(a);
        continue;
      }
      if (a === '--') options = false;
      else if (a === '--complement') complement = true;
      else if (a === '--only-delimited') onlyDelimited = true;
      else if (a.startsWith('--output-delimiter=')) outDelim = a.slice('--output-delimiter='.length);
      else if (a.startsWith('--')) return orig();
      else {
        for (let j = 1; j < a.length; j++) {
          const c = a[j];
          if (c === 's') onlyDelimited = true;
          else if (c === 'n') continue;
          else if ('bcfd'.includes(c)) {
            const value = a.slice(j + 1) || args[++i];
            if (value === undefined) return orig();
            if (c === 'd') delim = value;
            else {
              if (mode) return orig();
              mode = c === 'f' ? 'f' : 'b';
              list = value;
            }
            break;
          } else return orig();
        }
      }
    }
    const ranges = mode ? cutList(list) : null;
    const delimBytes = utf8Bytes(delim);
    if (!mode || !ranges || delimBytes.length !== 1 || (mode === 'b' && (outDelim !== null || onlyDelimited))) return orig();
    const { texts, stderr } = await readInputs(ctx, 'cut', files);
    const sep = outDelim === null ? delimBytes : utf8Bytes(outDelim);
    const picked = (/** @type {number} */ k) => {
      let inside = false;
      for (const [lo, hi] of ranges) if (k >= lo && k <= hi) inside = true;
      return inside !== complement;
    };
    /** @type {string[]} */
    const out = [];
    // One run of fields (`-f2`, `-f1-5`, `-f3-`): sliced out of the line where the delimiters are.
    if (mode === 'f' && !complement && ranges.length === 1 && outDelim === null) {
      const [lo, hi] = ranges[0];
      for (const text of texts) {
        forEachLine(text, (start, end) => {
          let from = start;
          for (let k = 1; k < lo && from >= 0; k++) {
            const d = text.indexOf(delimBytes, from);
            from = d >= 0 && d < end ? d + 1 : -1;
          }
          if (from === start && lo === 1 && hi === Infinity) {
            const d = text.indexOf(delimBytes, start);
            if (!(onlyDelimited && (d < 0 || d >= end))) out.push(text.slice(start, end));
            return;
          }
          const first = text.indexOf(delimBytes, start);
          if (first < 0 || first >= end) {
            if (!onlyDelimited) out.push(text.slice(start, end));
            return;
          }
          if (from < 0) {
            out.push('');
            return;
          }
          let to = end;
          if (hi !== Infinity) {
            let at = from;
            for (let k = lo; k <= hi; k++) {
              const d = text.indexOf(delimBytes, at);
              if (d < 0 || d >= end) {
                at = -1;
                break;
              }
              at = d + 1;
            }
            if (at >= 0) to = at - 1;
          }
          out.push(text.slice(from, to));
        });
      }
      return bytesResult(out.length ? `${out.join('\n')}\n` : '', stderr, stderr ? 1 : 0);
    }
    for (const text of texts) {
      forEachLine(text, (start, end) => {
        const line = text.slice(start, end);
        if (mode === 'b') {
          let s = '';
          if (!complement) for (const [lo, hi] of ranges) s += line.slice(lo - 1, hi === Infinity ? undefined : hi);
          else for (let k = 1; k <= line.length; k++) if (picked(k)) s += line[k - 1];
          out.push(s);
          return;
        }
        if (!line.includes(delimBytes)) {
          if (!onlyDelimited) out.push(line);
          return;
        }
        const fields = line.split(delimBytes);
        /** @type {string[]} */
        const kept = [];
        if (!complement) for (const [lo, hi] of ranges) for (let k = lo; k <= Math.min(hi, fields.length); k++) kept.push(fields[k - 1]);
        else for (let k = 1; k <= fields.length; k++) if (picked(k)) kept.push(fields[k - 1]);
        out.push(kept.join(sep));
      });
    }
    return bytesResult(out.length ? `${out.join('\n')}\n` : '', stderr, stderr ? 1 : 0);
  });
}

// ——— uniq ———

/** @returns {Command} */
export function uniqCommand() {
  return defineCommand('uniq', async (args, ctx) => {
    const orig = async () => {
      // just-bash's uniq, with GNU's count column (7 wide) so `sort | uniq -c | sort -rn` reads as in bash.
      const result = await /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand)(args);
      const counting = args.some((a) => a === '--count' || /^-[a-zA-Z]*c/.test(a));
      // The count and its padding are ASCII: the same edit holds for text and byte output.
      if (!counting) return result;
      return { ...result, stdout: result.stdout.replace(/^ *(\d+) /gm, (_m, n) => `${String(n).padStart(7)} `) };
    };
    let count = false;
    let repeated = false;
    let unique = false;
    /** @type {string[]} */
    const files = [];
    let options = true;
    for (const a of args) {
      if (!options || a === '-' || !a.startsWith('-')) files.push(a);
      else if (a === '--') options = false;
      else if (a === '--count') count = true;
      else if (a === '--repeated') repeated = true;
      else if (a === '--unique') unique = true;
      else if (/^-[cdu]+$/.test(a)) {
        if (a.includes('c')) count = true;
        if (a.includes('d')) repeated = true;
        if (a.includes('u')) unique = true;
      } else return orig();
    }
    // An output file (a second operand) is left to just-bash's.
    if (files.length > 1) return orig();
    const { texts, stderr } = await readInputs(ctx, 'uniq', files);
    if (stderr) return { stdout: '', stderr, exitCode: 1 };
    const text = texts[0] ?? '';
    /** @type {string[]} */
    const out = [];
    /** @type {string | null} */
    let prev = null;
    let n = 0;
    const flush = () => {
      if (prev === null) return;
      if ((repeated && n < 2) || (unique && n > 1)) return;
      out.push(count ? `${String(n).padStart(7)} ${prev}` : prev);
    };
    forEachLine(text, (start, end) => {
      const line = text.slice(start, end);
      if (line === prev) {
        n++;
        return;
      }
      flush();
      prev = line;
      n = 1;
    });
    flush();
    return bytesResult(out.length ? `${out.join('\n')}\n` : '');
  });
}

// ——— sed: s/TEXT/TEXT/[g] ———

/**
 * The substitutions of a sed script made only of `s/TEXT/TEXT/` and `s/TEXT/TEXT/g` commands with
 * literal text (no regular expression character, no `&` or escape in the replacement), or null.
 * @param {string} script @param {boolean} extended -E/-r
 * @returns {{from: string, to: string, global: boolean}[] | null}
 */
export function literalSubstitutions(script, extended) {
  const special = extended ? /[\\.[\]*^$+?(){}|]/ : /[\\.[\]*^$]/;
  /** @type {{from: string, to: string, global: boolean}[]} */
  const subs = [];
  for (const raw of script.split(/[;\n]/)) {
    const command = raw.trim();
    if (!command) continue;
    const delim = command[1];
    if (command[0] !== 's' || !delim || /[\s\\\n]/.test(delim)) return null;
    const parts = command.slice(2).split(delim);
    if (parts.length !== 3) return null;
    const [from, to, flags] = parts;
    if (!from || special.test(from) || /[\\&]/.test(to) || (flags !== '' && flags !== 'g')) return null;
    subs.push({ from: utf8Bytes(from), to: utf8Bytes(to), global: flags === 'g' });
  }
  return subs.length ? subs : null;
}

/** @returns {Command} */
export function sedCommand() {
  return defineCommand('sed', async (args, ctx) => {
    const orig = () => /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand)(args);
    /** @type {string[]} */
    const scripts = [];
    let extended = false;
    /** @type {string[]} */
    const files = [];
    let options = true;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (!options || a === '-' || !a.startsWith('-')) files.push(a);
      else if (a === '--') options = false;
      else if (a === '-E' || a === '-r' || a === '--regexp-extended') extended = true;
      else if (a === '-e' || a === '--expression') {
        if (i + 1 >= args.length) return orig();
        scripts.push(args[++i]);
      } else if (a.startsWith('--expression=')) scripts.push(a.slice('--expression='.length));
      else return orig();
    }
    if (!scripts.length) {
      const first = files.shift();
      if (first === undefined) return orig();
      scripts.push(first);
    }
    // The commands of several -e run in order, as one script.
    const subs = literalSubstitutions(scripts.join('\n'), extended);
    if (!subs) return orig();
    const { texts, stderr } = await readInputs(ctx, 'sed', files);
    // sed's own words for a file it cannot read.
    if (stderr) return orig();
    // Files read as one stream: a file's last line without a newline still ends a line before the next.
    let text = texts.map((t, i) => (i < texts.length - 1 && t && !t.endsWith('\n') ? `${t}\n` : t)).join('');
    for (const { from, to, global } of subs) {
      if (!text.includes(from)) continue;
      if (global) {
        text = text.split(from).join(to);
        continue;
      }
      /** @type {string[]} */
      const parts = [];
      let at = 0;
      // The first occurrence on each line: after a replacement, go on from the next line.
      for (let hit = text.indexOf(from); hit >= 0; hit = text.indexOf(from, at)) {
        parts.push(text.slice(at, hit), to);
        const nl = text.indexOf('\n', hit + from.length);
        if (nl < 0) {
          at = hit + from.length;
          break;
        }
        parts.push(text.slice(hit + from.length, nl + 1));
        at = nl + 1;
      }
      parts.push(text.slice(at));
      text = parts.join('');
    }
    return bytesResult(text);
  });
}

// ——— awk '{print $2, $1}' ———

/**
 * The fields an awk program made of one `{print …}` of fields prints ($N, $NF, $0; separated by
 * commas), or null for any other program.
 * @param {string} program @returns {(number | 'NF')[] | null}
 */
export function printedFields(program) {
  const m = /^\s*\{\s*print((?:\s+\$(?:\d+|NF)(?:\s*,\s*\$(?:\d+|NF))*)?)\s*;?\s*\}\s*$/.exec(program);
  if (!m) return null;
  if (!m[1].trim()) return [0];
  return m[1].split(',').map((f) => {
    const name = f.trim().slice(1);
    return name === 'NF' ? 'NF' : Number(name);
  });
}

/** @returns {Command} */
export function awkCommand() {
  return defineCommand('awk', async (args, ctx) => {
    const orig = () => /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand)(args);
    let i = 0;
    /** @type {string | null} */
    let fs = null;
    if (args[0] === '-F' && args.length > 1) {
      fs = args[1];
      i = 2;
    } else if (args[0]?.startsWith('-F') && args[0].length > 2) {
      fs = args[0].slice(2);
      i = 1;
    }
    if (args[i] === '--') i++;
    const program = args[i];
    const files = args.slice(i + 1);
    // A single-character separator other than a space is literal; a tab is written `\t`.
    if (fs === '\\t') fs = '\t';
    // -F ' ' is the default: fields between runs of blanks.
    if (fs === ' ') fs = null;
    if (program === undefined || (fs !== null && (fs.length !== 1 || fs === '\\'))) return orig();
    if (files.some((f) => f.startsWith('-') && f !== '-') || files.some((f) => f.includes('='))) return orig();
    const fields = printedFields(program);
    if (!fields) return orig();
    const { texts, stderr } = await readInputs(ctx, 'awk', files);
    if (stderr) return orig();
    const sep = fs === null ? null : utf8Bytes(fs);
    const blanks = /[ \t\n]+/;
    /** @type {string[]} */
    const out = [];
    for (const text of texts) {
      forEachLine(text, (start, end) => {
        const line = text.slice(start, end);
        if (fields.length === 1 && fields[0] === 0) {
          out.push(line);
          return;
        }
        /** @type {string[]} */
        let split;
        if (sep !== null) split = line === '' ? [] : line.split(sep);
        else {
          const trimmed = line.replace(/^[ \t]+|[ \t]+$/g, '');
          split = trimmed === '' ? [] : trimmed.split(blanks);
        }
        out.push(
          fields
            .map((f) => {
              const k = f === 'NF' ? split.length : f;
              return k === 0 ? line : (split[k - 1] ?? '');
            })
            .join(' '),
        );
      });
    }
    return bytesResult(out.length ? `${out.join('\n')}\n` : '');
  });
}

// ——— yes ———

/**
 * `yes [STRING]`: its line again and again. Before `head` (`yes | head -n 3`) it writes what head
 * takes and ends as bash's does when head closes the pipe (status 141): the interpreter's bound
 * on the stage (scripts/just-bash-patches.mjs, patchPipeStreaming). Anywhere else it writes until
 * the output limit stops the line, as a loop stops at its iteration limit.
 * @returns {Command}
 */
export function yesCommand() {
  return defineCommand('yes', async (args, ctx) => {
    const words = args[0] === '--' ? args.slice(1) : args;
    const line = `${utf8Bytes(words.length ? words.join(' ') : 'y')}\n`;
    const scope = /** @type {{__clawserPipe?: {lines: number, bytes: number, applies(): boolean} | null} | undefined} */ (
      /** @type {unknown} */ (ctx.executionScope)
    );
    const bound = scope?.__clawserPipe;
    if (bound?.applies()) return bytesResult(line.repeat(Math.min(bound.lines, Math.ceil(bound.bytes / line.length))), '', 141);
    return bytesResult(line.repeat(Math.floor(ctx.limits.maxOutputSize / line.length) + 1));
  });
}

/** The text commands above, for the shell's table (shell.js). */
export function textCommands() {
  return [trCommand(), cutCommand(), uniqCommand(), sedCommand(), awkCommand(), yesCommand()];
}
