/** @import { WorkspaceGit } from '../git/git.js' */

/**
 * The commits Clawser makes on its own: one after an agent turn that changed files, naming the
 * turn, and one after an undo or redo of a turn. Each holds exactly the paths that turn (with
 * its sub-agents) or that undo changed — never the user's own uncommitted work, which stays
 * uncommitted. A path the user and the agent both changed is committed as it is on disk after
 * the turn: the agent's write is the last one there.
 */

/**
 * What a turn's tools did: the names of the write tools that ran, and the paths they changed.
 * @typedef {{writes: string[], writtenPaths?: Set<string>}} TurnTools
 */

/** @param {string} text */
const firstLine = (text) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
};

/**
 * The commit message of a turn: its request's first line, the conversation, the tools.
 * @param {{title: string, text: string}} turn @param {string[]} writes
 */
export function turnCommitMessage(turn, writes) {
  const counts = [...new Set(writes)].map(
    (n) => `${n}${writes.filter((w) => w === n).length > 1 ? ` ×${writes.filter((w) => w === n).length}` : ''}`,
  );
  return `Agent: ${firstLine(turn.text) || 'turn'}\n\nConversation: ${turn.title}${counts.length ? `\nTools: ${counts.join(', ')}` : ''}`;
}

/**
 * Commits a finished turn's paths. Resolves to a sentence for the user, or null (the turn
 * changed no file, or a folder from the computer that is no repository).
 * @param {{repo: WorkspaceGit, tools: TurnTools | undefined, turn: {title: string, text: string}, author: {name: string, email: string},
 *   mounted: boolean}} args
 */
export async function commitTurn({ repo, tools, turn, author, mounted }) {
  const paths = [...(tools?.writtenPaths ?? [])];
  if (!paths.length) return null;
  if (mounted && !(await repo.isRepo())) return null;
  const oid = await repo.commitPaths(paths, { message: turnCommitMessage(turn, tools?.writes ?? []), author });
  return oid ? `The agent's file changes were committed (${oid.slice(0, 7)}); review or undo them in the Git panel.` : null;
}

/**
 * Commits what an undo (or redo) of a turn changed, as its own commit ("Undo turn: …"), so a
 * later turn's commit never carries it. None when those paths are already as committed (the
 * turn had not been committed).
 * @param {{repo: WorkspaceGit, direction: 'undo' | 'redo', paths: string[], turn: {title: string, text: string}, author: {name: string,
 *   email: string}}} args
 */
export async function commitTakeBack({ repo, direction, paths, turn, author }) {
  // No repository: an undo does not start one.
  if (!paths.length || !(await repo.isRepo())) return null;
  const word = direction === 'undo' ? 'Undo' : 'Redo';
  const oid = await repo.commitPaths(paths, {
    message: `${word} turn: ${firstLine(turn.text) || 'turn'}\n\nConversation: ${turn.title}`,
    author,
  });
  return oid ? `The ${direction} was committed (${oid.slice(0, 7)}).` : null;
}
