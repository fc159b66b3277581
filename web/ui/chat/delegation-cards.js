/** @import { ChatState, ChatViewController, DelegationCardsSource } from '../types.d.ts' */
import { h, clear } from '../dom.js';

/**
 * Live cards of the sub-agents a conversation's turn started (agent_delegate): status, current
 * step, cost, Cancel, and a way to their conversation. Each goes under its tool card.
 * @param {{board: DelegationCardsSource, controller: Pick<ChatViewController, 'select' | 'cancelDelegation'>, list: HTMLElement}} props
 *   list: the message list
 */
export function DelegationCards({ board, controller, list }) {
  /** @param {ChatState} s */
  const draw = (s) => {
    const live = board.list().filter((d) => d.parentConversationId === s.activeId);
    for (const el of list.querySelectorAll('.delegation-live')) {
      if (!live.some((d) => d.id === /** @type {HTMLElement} */ (el).dataset.delegation)) el.remove();
    }
    for (const d of live) {
      const card = list.querySelector(`details[data-tool-call="${CSS.escape(d.callId)}"]`);
      const host = card?.parentElement;
      if (!host) continue;
      let el = /** @type {HTMLElement | null} */ (host.querySelector('.delegation-live'));
      if (!el) {
        // Built once and updated in place: a button replaced under the pointer would lose the click.
        el = h(
          'div',
          { class: 'delegation-live row', role: 'group', 'aria-label': `Sub-agent @${d.agent}`, 'data-delegation': d.id },
          h('span', { class: 'small delegation-text' }),
          h(
            'button',
            {
              type: 'button',
              class: 'secondary small-btn delegation-open',
              hidden: true,
              'aria-label': `Open the conversation of @${d.agent}`,
              on: {
                click: () => {
                  const id = board.get(d.id)?.conversationId;
                  if (id) controller.select(id);
                },
              },
            },
            'Open',
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'secondary small-btn danger delegation-cancel',
              'aria-label': `Cancel sub-agent @${d.agent}`,
              on: { click: () => controller.cancelDelegation(d.id) },
            },
            'Cancel',
          ),
        );
        host.append(el);
      }
      const label = { waiting: 'waiting', running: 'running', done: 'done', failed: 'failed', cancelled: 'cancelled' }[d.status];
      const text = /** @type {HTMLElement} */ (el.querySelector('.delegation-text'));
      clear(text).append(
        h('strong', null, `@${d.agent}`),
        ` — ${label} · ${d.step} · ${d.steps} tool call${d.steps === 1 ? '' : 's'}${d.costCents ? ` · ${d.costCents.toFixed(2)}¢` : ''}`,
      );
      /** @type {HTMLButtonElement} */ (el.querySelector('.delegation-open')).hidden = !d.conversationId;
      /** @type {HTMLButtonElement} */ (el.querySelector('.delegation-cancel')).hidden = !(
        d.status === 'waiting' || d.status === 'running'
      );
    }
  };
  return { draw };
}
