/** @import { ChatController } from './chat-controller.js' */
/** @import { FileSystem } from '../storage/types.d.ts' */
import { CheckpointManager } from '../agent/checkpoint.js';
import { Daemon } from '../agent/daemon.js';

/**
 * Starts a workspace's daemon: it checkpoints the agent state (active conversation, its
 * history, the turn in flight) when a turn starts and ends; at the first start it restores the
 * newest checkpoint, and a turn that was cut off by a closed tab is offered for retry.
 *
 * No checkpoint is taken when the tab is hidden: that fires while the page unloads too, and a
 * write cut off there right after the site's data was cleared leaves Chromium's OPFS hanging
 * for the next page. Turn start and end are the moments that matter for recovery.
 * @param {{workspaceId: string, fs: FileSystem, controller: ChatController, warn: (message: string) => void}} deps
 *   fs: the workspace's files; warn: shows a problem to the user
 */
export async function startWorkspaceDaemon({ workspaceId, fs, controller, warn }) {
  /** @type {{status: 'running' | 'idle', userText?: string, startedAt?: number, conversationId?: string}} */
  let turn = { status: 'idle' };
  const daemon = new Daemon({
    checkpoints: new CheckpointManager({ fs }),
    collect: () => ({
      workspaceId,
      conversationId: turn.conversationId ?? controller.state.activeId ?? undefined,
      session: { messages: controller.sessionMessages() },
      turn: { status: turn.status, userText: turn.userText, startedAt: turn.startedAt },
    }),
    // The event logs are the truth of conversations; what a checkpoint adds is the turn in flight.
    restore: () => {},
  });
  const save = (/** @type {string} */ reason) => daemon.checkpoint({ reason }).then(() => {}, (err) => {
    warn(`The agent's state could not be saved: ${/** @type {Error} */ (err).message}`);
    // From ERROR, the next start resumes (without restoring over what is in memory).
    daemon.start().catch(() => {});
  });
  controller.onTurn = (phase, info) => {
    if (info.scheduled) return;
    turn = phase === 'start' ? { status: 'running', userText: info.text, startedAt: Date.now(), conversationId: info.conversationId } : { status: 'idle' };
    save(`turn ${phase}`);
  };
  const started = await daemon.start().catch((err) => {
    warn(/** @type {Error} */ (err).message);
    return null;
  });
  if (started?.skipped.length) warn(`${started.skipped.length} damaged checkpoint file(s) were set aside (in .checkpoints/damaged/); an older one was used.`);
  const convId = started?.restored?.conversationId;
  if (started?.interrupted && convId) await controller.markInterrupted(convId, started.interrupted.userText ?? '');
  return daemon;
}
