// When a workspace opens, the files its stores read later (goals, scheduled jobs, usage, named
// agents and identity, skills, the git index, and every conversation's details, snapshot and
// log lines) are read once in the background, through the same stores, so damage shows in the
// page's notice while the person is there — not first in the middle of a turn, a panel or when
// that conversation opens. Memory is checked when it is first used (reading it means loading
// the embedding model).
/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { DamageSink } from '../storage/damage.js' */
/** @import { Services } from './workspace-services.js' */
import { readTextIfExists } from '../storage/file-helpers.js';
import { INDEX_PATH, gitIndexProblem } from '../git/index-check.js';

/** Set when a workspace's check is done (tests wait for it; `detail` is the workspace's id). */
export const WORKSPACE_CHECKED_MARK = 'clawser-workspace-checked';

/**
 * Reads a workspace's stores once; what is damaged reaches the stores' `onDamage`. Never
 * rejects: a store that fails for another reason says so when it is used.
 * @param {{workspaceId: string, services: Services, fs: FileSystem, onDamage: DamageSink,
 *   conversations?: {check: (options: {pause?: () => Promise<void>}) => Promise<void>}, pause?: () => Promise<void>}} deps
 *   fs: the workspace's files (for the git index); onDamage: where the git index is reported;
 *   conversations: the workspace's conversation store (it reports to its own sink); pause:
 *   awaited between batches of conversations (the page's idle time)
 */
export async function checkWorkspace({ workspaceId, services, fs, onDamage, conversations, pause }) {
  await Promise.allSettled([
    conversations?.check(pause ? { pause } : {}),
    services.goals.list(),
    services.scheduler.list(),
    services.usage.read(),
    services.agents().then((a) => a.list()),
    services.skills().then((s) => s.list()),
    checkGitIndex(fs, onDamage, () => services.git().then((g) => g.setAsideIndex())),
  ]);
  performance.mark(WORKSPACE_CHECKED_MARK, { detail: workspaceId });
}

/**
 * Checks `.git/index` when there is one (without loading git).
 * @param {FileSystem} fs @param {DamageSink} onDamage @param {() => Promise<string>} setAside
 */
async function checkGitIndex(fs, onDamage, setAside) {
  if (!(await readTextIfExists(fs, '.git/HEAD'))) return;
  const bytes = await fs.readBytes(INDEX_PATH).catch(() => null);
  if (!bytes) return;
  const problem = await gitIndexProblem(bytes);
  if (problem)
    onDamage({
      what: 'The git index of this workspace (.git/index, what the next commit will hold)',
      problem: `${problem}. Setting it aside loses no commit: git then sees every file anew`,
      path: INDEX_PATH,
      setAside,
    });
}
