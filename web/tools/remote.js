/** @import { ToolDefinition, ToolContext, ToolFamily, ToolResult } from './types.d.ts' */
/** @import { RemoteMachines } from '../stores/remote-machines.js' */
// The user's own machines through wsh (web/packages/wsh/, the Remote panel adds them): run a
// command there, copy a file there or back. Every result is outside content (what a machine
// printed or holds), so it taints the turn; each call asks by default (permission 'write').
import { z } from 'zod';

/** Characters of a command's output the model gets at most (stdout and stderr together); the result says when more was cut. */
export const REMOTE_OUTPUT_CAP = 20_000;
/** Bytes a command may print before the machine stops it (far above the cap: the tail is cut here, not there). */
const MAX_EXEC_BYTES = 4 * 1024 * 1024;
/** Bytes one file copy moves at most, either way. */
export const MAX_TRANSFER_BYTES = 100 * 1024 * 1024;

const machine = z.string().min(1).max(32).describe('The machine’s name, as listed in the Remote panel');

/**
 * A command's result as the model reads it: its exit, then stdout and stderr, cut to `cap`
 * characters in all, saying so and how much was left out.
 * @param {{stdout: string, stderr: string, exitCode: number, signal?: string | null}} result
 * @param {number} [cap]
 */
export function formatExec(result, cap = REMOTE_OUTPUT_CAP) {
  const head = result.signal ? `exit code ${result.exitCode} (stopped by ${result.signal})` : `exit code ${result.exitCode}`;
  const out = result.stdout.slice(0, cap);
  const err = result.stderr.slice(0, cap - out.length);
  const cut = result.stdout.length - out.length + (result.stderr.length - err.length);
  const parts = [head];
  if (out) parts.push(`--- stdout ---\n${out}`);
  if (err) parts.push(`--- stderr ---\n${err}`);
  if (!out && !err) parts.push('(no output)');
  if (cut > 0) parts.push(`[Output capped at ${cap} characters: ${cut} more characters not shown.]`);
  return parts.join('\n');
}

/** A size in words. @param {number} n */
export function sizeText(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** The codes of a connection that could not be made, or was lost and not made again. */
const UNREACHABLE = ['connect_failed', 'disconnected', 'closed'];

/**
 * A failure as the model reads it: what was tried and the machine's (or client's) words.
 * @param {string} what @param {unknown} err @param {{name: string, url: string}} [machine]
 */
function failed(what, err, machine) {
  const e = /** @type {{code?: string, message?: string}} */ (err);
  if (e?.code === 'aborted') throw err;
  const code = e?.code ? ` (${e.code})` : '';
  const hint = machine && UNREACHABLE.includes(String(e?.code)) ? ` Is wsh-server running at ${machine.url}?` : '';
  return { ok: false, output: `${what} failed${code}: ${e?.message ?? String(err)}${hint}` };
}

/** The machine's name and address for a message, if it is known. @param {RemoteMachines} remote @param {string} name */
function known(remote, name) {
  try {
    return remote.get(name);
  } catch {
    return undefined;
  }
}

/** @param {ToolContext} ctx */
async function machines(ctx) {
  if (!ctx.remote) throw new Error('Remote machines are not available here (no Remote panel in this context).');
  return ctx.remote();
}

/** @param {Uint8Array} bytes */
async function sha256Hex(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', /** @type {Uint8Array<ArrayBuffer>} */ (bytes)));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** @type {ToolDefinition} */
const remoteExec = {
  name: 'remote_exec',
  description:
    'Run a command on one of the user’s own machines (added in the Remote panel, reached through wsh) and get its exit code, ' +
    `stdout and stderr (at most ${REMOTE_OUTPUT_CAP} characters in all). The command runs as the server's user, through the ` +
    'shell when the machine’s key allows any command. Paths are the machine’s.',
  permission: 'write',
  untrusted: 'the output of a command run on a remote machine',
  schema: z.object({
    machine,
    command: z.string().min(1).max(8000).describe('The command line to run'),
    cwd: z.string().max(4096).optional().describe('Working directory on the machine (default: the key’s first directory, or home)'),
  }),
  // No rule narrowed to a command prefix: the line is the remote shell's, which the prefix rules of
  // approval-rules.js cannot see into (a rule for `ls` would cover `ls; rm -rf ~`), and no machine is named in a rule.
  scopeTargets: () => null,
  preview: async (args, ctx) => {
    const m = (await machines(ctx)).get(args.machine);
    return `Run on “${m.name}” (${m.url})${args.cwd ? ` in ${args.cwd}` : ''}:\n${args.command}`;
  },
  async run(args, ctx) {
    const remote = await machines(ctx);
    try {
      const client = await remote.client(args.machine, ctx.signal);
      const result = await client.exec(args.command, { cwd: args.cwd, signal: ctx.signal, maxOutputBytes: MAX_EXEC_BYTES });
      const text = /** @type {{stdout: string, stderr: string, exitCode: number, signal?: string | null}} */ (result);
      return { ok: result.exitCode === 0, output: formatExec(text) };
    } catch (err) {
      return failed(`Running the command on “${args.machine}”`, err, known(remote, args.machine));
    }
  },
};

/** @type {ToolDefinition} */
const remotePut = {
  name: 'remote_put',
  description:
    'Copy a file of the workspace to one of the user’s machines (replaced only once all of it arrived, checked by SHA-256). ' +
    `At most ${sizeText(MAX_TRANSFER_BYTES)}.`,
  permission: 'write',
  untrusted: 'a remote machine’s answer to a file copy',
  schema: z.object({
    machine,
    from: z.string().min(1).max(4096).describe('The workspace file to copy'),
    to: z.string().min(1).max(4096).describe('Where on the machine (absolute, ~/…, or relative to the key’s first directory)'),
  }),
  preview: async (args, ctx) => {
    const m = (await machines(ctx)).get(args.machine);
    return `Copy the workspace file ${args.from} to “${m.name}” (${m.url}) at ${args.to}, replacing what is there.`;
  },
  async run(args, ctx) {
    const remote = await machines(ctx);
    const stat = await ctx.fs.stat(args.from);
    if (!stat || stat.kind !== 'file') return { ok: false, output: `${args.from} is not a file of the workspace.` };
    if (stat.size > MAX_TRANSFER_BYTES) {
      return { ok: false, output: `${args.from} is ${sizeText(stat.size)}: a copy moves at most ${sizeText(MAX_TRANSFER_BYTES)}.` };
    }
    const bytes = await ctx.fs.readBytes(args.from);
    try {
      const client = await remote.client(args.machine, ctx.signal);
      const done = await client.put(args.to, bytes, { signal: ctx.signal });
      return { ok: true, output: `Copied ${args.from} (${sizeText(done.size)}, SHA-256 ${done.sha256}) to “${args.machine}”: ${args.to}.` };
    } catch (err) {
      return failed(`Copying ${args.from} to “${args.machine}”`, err, known(remote, args.machine));
    }
  },
};

/** @type {ToolDefinition} */
const remoteGet = {
  name: 'remote_get',
  description:
    'Copy a file from one of the user’s machines into the workspace (checked by SHA-256), replacing the workspace file. ' +
    `At most ${sizeText(MAX_TRANSFER_BYTES)}.`,
  permission: 'write',
  untrusted: 'a file copied from a remote machine',
  schema: z.object({
    machine,
    from: z.string().min(1).max(4096).describe('The file on the machine'),
    to: z.string().min(1).max(4096).describe('Where in the workspace'),
  }),
  preview: async (args, ctx) => {
    const m = (await machines(ctx)).get(args.machine);
    return `Copy ${args.from} from “${m.name}” (${m.url}) into the workspace at ${args.to}, replacing what is there.`;
  },
  async run(args, ctx) {
    const remote = await machines(ctx);
    /** @type {Uint8Array} */
    let bytes;
    try {
      const client = await remote.client(args.machine, ctx.signal);
      // The cap travels with the request: the machine refuses a bigger file before sending any of it.
      const blob = await client.get(args.from, { signal: ctx.signal, maxSize: MAX_TRANSFER_BYTES });
      if (blob.size > MAX_TRANSFER_BYTES) {
        return { ok: false, output: `${args.from} is ${sizeText(blob.size)}: a copy moves at most ${sizeText(MAX_TRANSFER_BYTES)}.` };
      }
      bytes = new Uint8Array(await blob.arrayBuffer());
    } catch (err) {
      if (/** @type {{code?: string}} */ (err)?.code === 'file_too_large') {
        return {
          ok: false,
          output: `${args.from} on “${args.machine}” is over the ${sizeText(MAX_TRANSFER_BYTES)} a copy moves; nothing was copied.`,
        };
      }
      return failed(`Copying ${args.from} from “${args.machine}”`, err, known(remote, args.machine));
    }
    await ctx.fs.write(args.to, bytes);
    /** @type {ToolResult} */
    const result = {
      ok: true,
      output: `Copied ${args.from} from “${args.machine}” to ${args.to} (${sizeText(bytes.length)}, SHA-256 ${await sha256Hex(bytes)}).`,
    };
    return result;
  },
};

/** @type {ToolFamily} */
export const family = { id: 'remote', tools: [remoteExec, remotePut, remoteGet] };
