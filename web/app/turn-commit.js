/** @import { WorkspaceGit } from '../git/git.js' */

/**
 * The commit after an agent turn that changed files: one commit naming the turn, so the edit
 * can be reviewed and rolled back in the Git panel.
 */

/**
 * What a turn's tools did, for the commit: the names of the write tools that ran.
 * @typedef {{writes: string[], writtenPaths?: Set<string>}} TurnTools
 */

/**
 * The commit message of a turn: its request's first line, the conversation, the tools.
 * @param {{title: string, text: string}} turn @param {string[]} writes
 */
export function turnCommitMessage(turn, writes) {
  const counts = [...new Set(writes)].map((n) => `${n}${writes.filter((w) => w === n).length > 1 ? ` ×${writes.filter((w) => w === n).length}` : ''}`);
  const firstLine = turn.text.replace(/\s+/g, ' ').trim();
  return `Agent: ${firstLine.length > 60 ? `${firstLine.slice(0, 57)}…` : firstLine || 'turn'}\n\nConversation: ${turn.title}\nTools: ${counts.join(', ')}`;
}

/**
 * Commits a finished turn's changes. Resolves to a sentence for the user, or null (nothing to
 * commit, or automatic commits are off, or a folder from the computer that is no repository).
 * @param {{repo: WorkspaceGit, tools: TurnTools | undefined, turn: {title: string, text: string}, author: {name: string, email: string}, mounted: boolean}} args
 */
export async function commitTurn({ repo, tools, turn, author, mounted }) {
  const writes = tools?.writes ?? [];
  if (!writes.length) return null;
  if (mounted && !(await repo.isRepo())) return null;
  const oid = await repo.commitAll({ message: turnCommitMessage(turn, writes), author });
  return oid ? `The agent's file changes were committed (${oid.slice(0, 7)}); review or undo them in the Git panel.` : null;
}
