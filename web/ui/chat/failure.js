/** @import { ChatState, ChatViewController } from '../types.d.ts' */
import { h } from '../dom.js';

// Why a module of its own: what a failed turn offers (Retry, Continue anyway after self-repair,
// Open settings for a key or address problem) and where it shows (on the failed turn's recorded
// error, or a notice of its own) are rules of their own; the chat loads it with the first failure,
// which the first paint never shows.

/** Failures the settings can fix: a key, the provider's address, the network. */
const SETTINGS_CODES = new Set(['auth', 'client', 'cors', 'network']);

/**
 * The failure display: one per failure, in the message list, with its actions. The message the
 * user wrote is put back in the composer for them to edit or resend.
 * @param {{controller: Pick<ChatViewController, 'retry'>, list: HTMLElement, input: HTMLTextAreaElement,
 *   onOpenSettings: () => void, toBottom: () => void}} props
 *   list: the message list; input: the composer's message box; toBottom: scrolls to the latest message
 */
export function FailureDisplay({ controller, list, input, onOpenSettings, toBottom }) {
  /**
   * Draws the state's failure (or removes the one drawn). `isNew`: a failure not drawn before.
   * @param {ChatState} s @param {boolean} isNew
   */
  const draw = (s, isNew) => {
    // One display per failure: the failed turn's error message carries the actions, or (when
    // nothing was recorded, e.g. no provider configured) a notice of its own does.
    list.querySelector('li.failure:not(.msg)')?.remove();
    for (const el of list.querySelectorAll('li.msg.failure')) {
      el.classList.remove('failure');
      el.querySelector('.msg-body')?.removeAttribute('role');
      el.querySelector('.failure-actions')?.remove();
    }
    if (!s.failure) return;
    const f = s.failure;
    const actions = h('div', { class: 'row failure-actions' });
    // After self-repair stopped a stuck run, going on is the user's call (the run is watched afresh).
    if (f.selfRepair) actions.append(h('button', { type: 'button', on: { click: () => controller.retry() } }, 'Continue anyway'));
    else
      actions.append(
        h(
          'button',
          {
            type: 'button',
            on: {
              click: () => {
                if (input.value.trim() === f.text.trim()) input.value = '';
                controller.retry();
              },
            },
          },
          'Retry',
        ),
      );
    if (!f.selfRepair && SETTINGS_CODES.has(f.code ?? '')) {
      actions.append(h('button', { type: 'button', class: 'secondary', on: { click: onOpenSettings } }, 'Open settings'));
    }
    const lastEvent = s.events.at(-1);
    const recorded =
      lastEvent && (lastEvent.type === 'provider_error' || lastEvent.type === 'stream_error' || lastEvent.type === 'self_repair')
        ? list.querySelector(`li.msg.error[data-event-id="${CSS.escape(lastEvent.id)}"]`)
        : null;
    // The alert is inside the list item: a list holds only list items, for screen readers too.
    if (recorded) {
      recorded.classList.add('failure');
      const body = recorded.querySelector('.msg-body');
      body?.setAttribute('role', 'alert');
      body?.append(actions);
    } else {
      list.append(
        h(
          'li',
          { class: 'failure' },
          h('div', { role: 'alert' }, h('p', null, h('strong', null, 'The reply failed. '), f.message), actions),
        ),
      );
    }
    // The message the user wrote is kept for them to edit or resend.
    if (isNew && !f.resume && !input.value.trim()) input.value = f.text;
    toBottom();
  };
  return { draw };
}
