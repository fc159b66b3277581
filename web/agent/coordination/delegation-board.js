/**
 * The live sub-agents of a workspace, for the chat's cards (status, step, cost, Cancel). Kept
 * apart from the delegation logic so the chat can show it without loading the agent.
 */

/**
 * A delegation as the chat's live card shows it.
 * id: unique on the board (the conversation and the call); callId: the tool call's id (its card).
 * @typedef {{id: string, callId: string, parentConversationId: string, conversationId?: string, agent: string, task: string,
 *   status: 'waiting' | 'running' | 'done' | 'failed' | 'cancelled', step: string, costCents: number, steps: number}} DelegationState
 */

/** The live delegations of a workspace (for the chat's cards) and their Cancel buttons. */
export class DelegationBoard {
  /** @type {Map<string, DelegationState & {abort: AbortController}>} */
  #items = new Map();
  /** @type {Set<() => void>} */
  #listeners = new Set();

  /** @param {DelegationState} state @param {AbortController} abort */
  add(state, abort) {
    this.#items.set(state.id, { ...state, abort });
    this.#emit();
  }

  /** @param {string} id @param {Partial<DelegationState>} patch */
  update(id, patch) {
    const item = this.#items.get(id);
    if (!item) return;
    Object.assign(item, patch);
    this.#emit();
  }

  /** Cancels one delegation (its child conversation keeps what it did). @param {string} id */
  cancel(id) {
    this.#items.get(id)?.abort.abort();
  }

  /** @param {string} id @returns {DelegationState | undefined} */
  get(id) {
    const item = this.#items.get(id);
    if (!item) return undefined;
    const { abort: _abort, ...state } = item;
    return state;
  }

  /** @returns {DelegationState[]} */
  list() {
    return [...this.#items.keys()].map((id) => /** @type {DelegationState} */ (this.get(id)));
  }

  /** Finished delegations leave the board once their result is in the log. @param {string} id */
  remove(id) {
    if (this.#items.delete(id)) this.#emit();
  }

  /** @param {() => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    return () => {
      this.#listeners.delete(fn);
    };
  }

  #emit() {
    for (const fn of this.#listeners) fn();
  }
}
