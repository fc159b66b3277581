/** @import { ChatViewController } from '../types.d.ts' */
import { h } from '../dom.js';
import { icon } from '../icon.js';

// Why a module of its own: a message and a reply have versions (an edit, a regeneration), and
// the same ‹ 2/3 › control shows them in three places of the transcript; the focus kept across
// a redraw (reading-place.js) also knows its buttons, so that moving to the last version (its
// button disabled) lands on the other one.

/** The accessible name of a version switcher's button: "Previous version of this reply"… */
const VERSION_BUTTON = /^(Previous|Next) version/;

/** Whether a button's accessible name is one of a version switcher's. @param {string} label */
export const isVersionButton = (label) => VERSION_BUTTON.test(label);

/**
 * ‹ 2/3 ›: which version of a message or reply is shown, and the way to the others.
 * @param {Pick<ChatViewController, 'switchVersion'>} controller
 * @param {string} eventId the event the versions branch at
 * @param {{index: number, count: number}} v
 * @param {'message' | 'reply'} what
 * @returns {HTMLElement}
 */
export function versionSwitcher(controller, eventId, v, what) {
  return h(
    'span',
    { class: 'row versions', role: 'group', 'aria-label': `Versions of this ${what}` },
    h(
      'button',
      {
        type: 'button',
        class: 'icon-btn',
        'aria-label': `Previous version of this ${what}`,
        disabled: v.index === 0,
        on: { click: () => controller.switchVersion(eventId, -1) },
      },
      icon('chevron-left'),
    ),
    h('span', { class: 'small', 'aria-live': 'polite' }, `${v.index + 1}/${v.count}`),
    h(
      'button',
      {
        type: 'button',
        class: 'icon-btn',
        'aria-label': `Next version of this ${what}`,
        disabled: v.index === v.count - 1,
        on: { click: () => controller.switchVersion(eventId, 1) },
      },
      icon('chevron-right'),
    ),
  );
}
