/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
import { z } from 'zod';
import { GitError, skippedNote, keptNote } from '../git/errors.js';

// isomorphic-git is large: loaded on the first git tool call, not with the app.
const gitModule = () => import('../git/git.js');

/** Output the model sees is capped: a big diff is cut with a note rather than flooding the context. */
const MAX_OUTPUT = 30_000;
const Ref = z.string().min(1).max(200);
/** A result plus how many files of Clawser's own folders the checkout left out. @param {string} text @param {number} skipped */
const withSkipped = (text, skipped) => (skipped ? `${text} ${skippedNote(skipped)}` : text);

/**
 * The workspace's repository: the app's shared instance (one command queue), else a fresh one.
 * @param {ToolContext} ctx @returns {Promise<import('../git/git.js').WorkspaceGit>}
 */
const repoOf = async (ctx) => ctx.git ?? new (await gitModule()).WorkspaceGit(ctx.fs);

/** @param {string} text */
const capped = (text) =>
  text.length > MAX_OUTPUT ? `${text.slice(0, MAX_OUTPUT)}\n…[${text.length - MAX_OUTPUT} more characters cut]` : text;

/**
 * Runs a git action, turning GitErrors into a result the model can act on.
 * @param {() => Promise<string>} fn
 */
async function gitResult(fn) {
  try {
    return { ok: true, output: capped(await fn()) };
  } catch (err) {
    if (err instanceof GitError) return { ok: false, output: `${err.message} (${err.code})` };
    throw err;
  }
}

/**
 * Commit messages and diffs of a repository cloned from elsewhere are outside content.
 * @param {ToolContext} ctx @param {Promise<import('./types.d.ts').ToolResult>} result
 */
async function fromOutside(ctx, result) {
  const r = await result;
  const origin = r.ok ? await ctx.contentOrigin?.() : null;
  return origin ? { ...r, untrusted: origin } : r;
}

/** @type {ToolDefinition} */
export const gitStatus = {
  name: 'git_status',
  description: 'Show the workspace repository status: current branch, staged and unstaged changes, untracked files.',
  permission: 'read',
  readOnly: true,
  schema: z.object({}),
  run: (_args, /** @type {ToolContext} */ ctx) =>
    gitResult(async () => {
      const repo = await repoOf(ctx);
      if (!(await repo.isRepo())) return 'The workspace is not a git repository yet (it becomes one with the first commit).';
      const [{ current }, status] = await Promise.all([repo.branches(), repo.status()]);
      const changed = status.filter((s) => s.state !== 'unchanged' || s.staged || s.unstaged);
      if (!changed.length) return `On branch ${current ?? '(detached)'}. Nothing to commit, working tree clean.`;
      const line = (/** @type {typeof status[number]} */ s) => `  ${s.state.padEnd(9)} ${s.path}`;
      const staged = changed.filter((s) => s.staged);
      const unstaged = changed.filter((s) => s.unstaged && s.state !== 'new');
      const untracked = changed.filter((s) => s.state === 'new' && !s.staged);
      return [
        `On branch ${current ?? '(detached)'}.`,
        staged.length ? `Staged:\n${staged.map(line).join('\n')}` : '',
        unstaged.length ? `Not staged:\n${unstaged.map(line).join('\n')}` : '',
        untracked.length ? `Untracked:\n${untracked.map((s) => `  ${s.path}`).join('\n')}` : '',
      ]
        .filter(Boolean)
        .join('\n');
    }),
};

/** @type {ToolDefinition} */
export const gitDiff = {
  name: 'git_diff',
  description:
    'Show a unified diff: of the working copy against the last commit (optionally one file), or of one commit against its parent (commit).',
  permission: 'read',
  readOnly: true,
  schema: z.object({
    path: z.string().max(1024).optional().describe('Only this file'),
    commit: Ref.optional().describe('Show what this commit changed'),
  }),
  run: ({ path, commit }, /** @type {ToolContext} */ ctx) =>
    fromOutside(
      ctx,
      gitResult(async () => {
        const repo = await repoOf(ctx);
        if (commit) {
          const diffs = (await repo.diffCommit(commit)).filter((d) => !path || d.path === path);
          return diffs.length ? (await gitModule()).formatDiff(diffs) : 'That commit changed nothing here.';
        }
        const paths = path ? [path] : (await repo.status()).filter((s) => s.state !== 'unchanged').map((s) => s.path);
        const diffs = await Promise.all(paths.map((p) => repo.diffFile(p)));
        const text = (await gitModule()).formatDiff(diffs.filter((d) => d.binary || d.tooLarge || d.hunks.length));
        return text || 'No changes.';
      }),
    ),
};

/** @type {ToolDefinition} */
export const gitLog = {
  name: 'git_log',
  description: 'List recent commits (newest first) with id, date, author and message.',
  permission: 'read',
  readOnly: true,
  schema: z.object({
    limit: z.number().int().min(1).max(200).optional(),
    path: z.string().max(1024).optional().describe('Only commits that changed this file'),
  }),
  run: ({ limit = 20, path }, /** @type {ToolContext} */ ctx) =>
    fromOutside(
      ctx,
      gitResult(async () => {
        const log = await (await repoOf(ctx)).log({ depth: limit, filepath: path });
        if (!log.length) return 'No commits yet.';
        return log
          .map(
            (c) =>
              `${c.oid.slice(0, 10)} ${new Date(c.timestamp).toISOString().slice(0, 16).replace('T', ' ')} ${c.author}: ` +
              `${c.message.split('\n')[0]}`,
          )
          .join('\n');
      }),
    ),
};

/** @type {ToolDefinition} */
export const gitCommit = {
  name: 'git_commit',
  description: 'Commit changes. By default every change in the workspace is staged and committed; pass paths to commit only those files.',
  permission: 'write',
  schema: z.object({ message: z.string().min(1).max(5000), paths: z.array(z.string().min(1).max(1024)).max(1000).optional() }),
  run: ({ message, paths }, /** @type {ToolContext} */ ctx) =>
    gitResult(async () => {
      const repo = await repoOf(ctx);
      let oid;
      if (paths?.length) {
        await repo.stage(paths);
        oid = await repo.commit({ message });
      } else oid = await repo.commitAll({ message });
      return oid ? `Committed ${oid.slice(0, 10)}: ${message.split('\n')[0]}` : 'Nothing to commit.';
    }),
};

/** @type {ToolDefinition} */
export const gitCheckout = {
  name: 'git_checkout',
  description:
    'Switch to a branch, or restore files to their content at a commit ("restore": one file with path, or the whole ' +
    'workspace). Restoring keeps history: the restored content shows as changes to commit. Restoring the whole ' +
    'workspace leaves files with changes not committed as they are (it names them).',
  permission: 'write',
  // A path rule covers restoring that file, never a branch switch (which changes every file).
  scopeTargets: (/** @type {{branch?: string, restore?: string, path?: string}} */ { branch, path }) =>
    branch || !path ? null : { kind: 'path', targets: [path] },
  schema: z.object({
    branch: Ref.optional().describe('Branch to switch to'),
    restore: Ref.optional().describe('Commit id (or branch) whose content to restore'),
    path: z.string().max(1024).optional().describe('With restore: only this file'),
  }),
  run: ({ branch, restore, path }, /** @type {ToolContext} */ ctx) =>
    gitResult(async () => {
      const repo = await repoOf(ctx);
      if (branch && restore) throw new GitError('git', 'Give either branch or restore, not both.');
      if (branch) {
        const { skipped } = await repo.switchBranch(branch);
        return withSkipped(`Switched to branch ${branch}.`, skipped);
      }
      if (!restore) throw new GitError('git', 'Give a branch to switch to, or a commit to restore from.');
      const { changed, skipped, kept } = await repo.restore(restore, { filepath: path });
      const restored = changed.length
        ? `Restored ${changed.length} file(s) from ${restore.slice(0, 10)}: ${changed.slice(0, 20).join(', ')}` +
          `${changed.length > 20 ? ', …' : ''}`
        : 'Already identical; nothing restored.';
      return withSkipped(`${restored}${keptNote(kept)}`, skipped);
    }),
};

/** @type {ToolDefinition} */
export const gitBranch = {
  name: 'git_branch',
  description: 'List branches, or create (optionally switching to it) or delete one.',
  permission: 'write',
  schema: z.object({ action: z.enum(['list', 'create', 'delete']), name: Ref.optional(), checkout: z.boolean().optional() }),
  run: ({ action, name, checkout }, /** @type {ToolContext} */ ctx) =>
    gitResult(async () => {
      const repo = await repoOf(ctx);
      if (action === 'list') {
        const { current, branches } = await repo.branches();
        return branches.length ? branches.map((b) => `${b === current ? '*' : ' '} ${b}`).join('\n') : 'No branches yet (no commits).';
      }
      if (!name) throw new GitError('invalid_name', `Give the name of the branch to ${action}.`);
      if (action === 'create') {
        const { skipped } = await repo.createBranch(name, { checkout });
        return withSkipped(`Created branch ${name}${checkout ? ' and switched to it' : ''}.`, skipped);
      }
      await repo.deleteBranch(name);
      return `Deleted branch ${name}.`;
    }),
};

export const GIT_TOOLS = [gitStatus, gitDiff, gitLog, gitCommit, gitCheckout, gitBranch];

/** @type {ToolFamily} */
export const family = { id: 'git', tools: GIT_TOOLS };
