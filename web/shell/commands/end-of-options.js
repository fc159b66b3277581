/** @import { Command, ExecResult } from 'just-bash' */
// `--` (the end of options) for the commands of just-bash whose parsers refuse it ("unrecognized
// option '--'"), although the shell's own advice on expanded words is to write it and GNU's
// commands all take it. The `--` is dropped; an operand after it that starts with '-' is passed
// as ./NAME (so it is read as a file), and the names the command prints for it (a checksum's
// line, head's and tail's ==> NAME <== header) are given back as written.
import { defineCommand } from 'just-bash';

/** Commands whose output names each file it read, as a line's end or a header. */
const CHECKSUMS = ['md5sum', 'sha1sum', 'sha256sum'];
/** The rest: head and tail print `==> NAME <==` for several files; comm and jq print no names. */
const OTHERS = ['head', 'tail', 'comm', 'jq'];

/**
 * The arguments without the first `--`, operands after it that start with '-' as ./NAME.
 * jq's first operand is its filter, never a file: it is left as written.
 * @param {string} name @param {string[]} args
 * @returns {{args: string[], renamed: Map<string, string>}} renamed: ./NAME → NAME
 */
export function endOptions(name, args) {
  const at = args.indexOf('--');
  /** @type {Map<string, string>} */
  const renamed = new Map();
  if (at < 0) return { args, renamed };
  let filterSeen = name !== 'jq' || args.slice(0, at).some((a) => !a.startsWith('-'));
  const after = args.slice(at + 1).map((a) => {
    if (!filterSeen) {
      filterSeen = true;
      return a;
    }
    if (!a.startsWith('-') || a === '-') return a;
    renamed.set(`./${a}`, a);
    return `./${a}`;
  });
  return { args: [...args.slice(0, at), ...after], renamed };
}

/**
 * A command's output with the names it was given back as written: a checksum line's name and a
 * head/tail header.
 * @param {string} stdout @param {Map<string, string>} renamed
 */
export function restoreNames(stdout, renamed) {
  if (!renamed.size) return stdout;
  return stdout.replace(/^([0-9a-f]+ [ *])(.*)$|^==> (.*) <==$/gm, (line, sum, file, header) => {
    if (sum !== undefined) return renamed.has(file) ? `${sum}${renamed.get(file)}` : line;
    return renamed.has(header) ? `==> ${renamed.get(header)} <==` : line;
  });
}

/** @returns {Command[]} */
export function endOfOptionsCommands() {
  return [...CHECKSUMS, ...OTHERS].map((name) =>
    defineCommand(name, async (args, ctx) => {
      const original = /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand);
      if (!args.includes('--')) return original(args);
      const ended = endOptions(name, args);
      /** @type {ExecResult} */
      const result = await original(ended.args);
      const names = name === 'comm' || name === 'jq' ? new Map() : ended.renamed;
      return { ...result, stdout: restoreNames(result.stdout, names) };
    }),
  );
}
