/** @import { ChatController } from './chat-controller.js' */
/** @import { FileSystem } from '../storage/types.d.ts' */
import { CheckpointManager } from '../agent/coordination/checkpoint.js';
import { Daemon } from '../agent/coordination/daemon.js';

/**
 * Starts a workspace's daemon: it checkpoints the agent state when a turn starts and ends —
 * ids and offsets only (the active conversation, the turn in flight and where its
 * conversation's log stood when it started), never a copy of a conversation: the event logs are
 * the truth. At the first start it restores the newest checkpoint: a turn that was cut off by a
 * closed tab is offered for retry, its request read from the log after the saved offset.
 * Deleting a conversation deletes every checkpoint that mentions it (after the saves in flight).
 *
 * No checkpoint is taken when the tab is hidden: that fires while the page unloads too, and a
 * write cut off there right after the site's data was cleared leaves Chromium's OPFS hanging
 * for the next page. Turn start and end are the moments that matter for recovery.
 * @param {{workspaceId: string, fs: FileSystem, controller: ChatController, warn: (message: string) => void, write?: <T>(fn: () =>
 *   Promise<T>) => Promise<T>,
 *   onDamage?: import('../storage/damage.js').DamageSink}} deps
 *   fs: the workspace's files; warn: shows a problem to the user; write: runs a storage write
 *   (the app's RestoreGate: refused while a backup is restored in any tab); onDamage: told of
 *   each damaged checkpoint file (set aside in .checkpoints/damaged/, an older one used)
 */
export async function startWorkspaceDaemon({ workspaceId, fs, controller, warn, write = (fn) => fn(), onDamage }) {
  /** @type {{status: 'running' | 'idle', startedAt?: number, conversationId?: string, bytes?: number}} */
  let turn = { status: 'idle' };
  const checkpoints = new CheckpointManager({ fs });
  /** @type {{conversationId: string, bytes: number} | null} */
  let interrupted = null;
  const daemon = new Daemon({
    checkpoints: { save: (input) => write(() => checkpoints.save(input)), latest: () => checkpoints.latest() },
    collect: () => {
      const conversationId = turn.conversationId ?? controller.state.activeId ?? undefined;
      if (turn.status === 'idle') return { workspaceId, conversationId, turn: { status: 'idle' } };
      return { workspaceId, conversationId, turn: { status: 'running', startedAt: turn.startedAt, bytes: turn.bytes } };
    },
    // What a restore needs: which conversation the cut-off turn ran in and its log offset then.
    restore: (state) => {
      const t = state.turn;
      interrupted =
        t?.status === 'running' && state.conversationId && t.bytes !== undefined
          ? { conversationId: state.conversationId, bytes: t.bytes }
          : null;
    },
  });
  /** The last checkpoint asked for (a conversation delete waits for it). @type {Promise<void>} */
  let saving = Promise.resolve();
  const save = (/** @type {string} */ reason) => {
    saving = daemon.checkpoint({ reason }).then(
      () => {},
      (err) => {
        // Refused during a backup restore in another tab: that tab's banner says why.
        if (/** @type {{code?: string}} */ (err).code !== 'restore_in_progress')
          warn(`The agent's state could not be saved: ${/** @type {Error} */ (err).message}`);
        // From ERROR, the next start resumes (without restoring over what is in memory).
        daemon.start().catch(() => {});
      },
    );
    return saving;
  };
  controller.onTurn = (phase, info) => {
    if (info.scheduled) return;
    turn =
      phase === 'start'
        ? {
            status: 'running',
            startedAt: Date.now(),
            conversationId: info.conversationId,
            bytes: controller.logPosition(info.conversationId)?.bytes ?? 0,
          }
        : { status: 'idle' };
    save(`turn ${phase}`);
  };
  controller.onRemoved = async (conversationId) => {
    await saving;
    await write(() => checkpoints.forget(conversationId));
  };
  const started = await daemon.start().catch((err) => {
    warn(/** @type {Error} */ (err).message);
    return null;
  });
  for (const skipped of started?.skipped ?? []) {
    const kept = `.checkpoints/damaged/${skipped.id}.json`;
    if (onDamage)
      onDamage({
        what: `An agent checkpoint (${skipped.path})`,
        problem: `${skipped.reason.replace(/\.$/, '')}. It was set aside, kept in .checkpoints/damaged/, and an older one was used`,
        path: kept,
      });
  }
  if (!onDamage && started?.skipped.length)
    warn(`${started.skipped.length} damaged checkpoint file(s) were set aside (in .checkpoints/damaged/); an older one was used.`);
  const cut = /** @type {{conversationId: string, bytes: number} | null} */ (interrupted);
  if (started?.interrupted && cut) await controller.markInterrupted(cut.conversationId, cut.bytes);
  return daemon;
}
