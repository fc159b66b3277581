import { isVersionButton } from './versions.js';

// Why a module of its own: the transcript is drawn again on every change of the conversation
// (a reply recorded, a version switched, a title arriving), and each time the reader must stay
// where they were: at the latest message while they follow it, on a search hit they opened,
// and with the focus on the control they used (Regenerate, ‹ ›, Copy…), not at the page's top.

/**
 * The reader's place in the message list, kept across redraws: the scroll (following the latest
 * message while the reader is at the bottom, also when content grows after it is drawn; a search
 * hit pinned in the middle until the transcript changes) and the focused message control.
 * @param {{list: HTMLElement, scroller: HTMLElement}} props list: the message list; scroller: what scrolls it
 */
export function ReadingPlace({ list, scroller }) {
  const nearBottom = () => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
  /** A message brought into view (a search hit) stays there until the transcript changes. @type {HTMLElement | null} */
  let pinned = null;
  // Again after layout: the view may not be in the document yet, or images and code still settling.
  const toBottom = () => {
    if (pinned) return;
    scroller.scrollTop = scroller.scrollHeight;
    requestAnimationFrame(() => {
      if (!pinned) scroller.scrollTop = scroller.scrollHeight;
    });
  };
  // Content that grows after it is drawn (highlighted code, images, a narrow split pane) keeps
  // the latest message in view while the reader is at the bottom.
  let atBottom = true;
  scroller.addEventListener(
    'scroll',
    () => {
      atBottom = nearBottom();
    },
    { passive: true },
  );
  const grown = new ResizeObserver(() => {
    if (atBottom && !pinned) scroller.scrollTop = scroller.scrollHeight;
  });
  grown.observe(list);

  /**
   * A message control that had the focus when the transcript was drawn again.
   * @type {{eventId: string | null, index: number, label: string} | null}
   */
  let refocus = null;

  /** Before the transcript is drawn again: the message control with the focus, if any. */
  const rememberFocus = () => {
    const focused = /** @type {HTMLElement | null} */ (document.activeElement);
    const focusedLi = focused && list.contains(focused) && focused.tagName === 'BUTTON' ? focused.closest('li') : null;
    // Kept until the control exists again (Regenerate's buttons are hidden while the reply streams).
    if (focusedLi && focused)
      refocus = {
        eventId: focusedLi.getAttribute('data-event-id'),
        index: [...list.children].indexOf(focusedLi),
        label: focused.getAttribute('aria-label') ?? focused.textContent ?? '',
      };
    else if (focused && focused !== document.body && !list.contains(focused)) refocus = null;
  };

  /** After it is drawn: the focus goes back to the control it was on (or its sibling, or the message now in its place). */
  const restoreFocus = () => {
    const want = refocus;
    if (!want) return;
    // The same message, or for a reply that was regenerated the reply now last in the list.
    const candidates = /** @type {HTMLElement[]} */ (
      [
        want.eventId ? list.querySelector(`li[data-event-id="${CSS.escape(want.eventId)}"]`) : null,
        list.children[want.index],
        [...list.querySelectorAll('li.msg.assistant')].at(-1),
      ].filter(Boolean)
    );
    /** @param {HTMLElement} li */
    const enabled = (li) => /** @type {HTMLElement[]} */ ([...li.querySelectorAll('button')]).filter((b) => !b.hasAttribute('disabled'));
    const same = (/** @type {HTMLElement} */ b) => (b.getAttribute('aria-label') ?? b.textContent ?? '') === want.label;
    const sibling = (/** @type {HTMLElement} */ b) => isVersionButton(want.label) && isVersionButton(b.getAttribute('aria-label') ?? '');
    const again =
      candidates.map((li) => enabled(li).find(same)).find(Boolean) ??
      candidates.map((li) => enabled(li).find(sibling)).find(Boolean) ??
      (candidates[0] ? enabled(candidates[0])[0] : null) ??
      null;
    if (again) {
      again.focus({ preventScroll: true });
      refocus = null;
    }
  };

  /**
   * After the transcript is drawn: a search hit (`focus`, an event id) is centred, marked and
   * focused, and stays in view until the transcript changes; else, when `stick`, the latest message.
   * @param {string | null | undefined} focus @param {boolean} stick
   */
  const place = (focus, stick) => {
    pinned = null;
    if (focus) {
      const target = /** @type {HTMLElement | null} */ (list.querySelector(`li[data-event-id="${CSS.escape(focus)}"]`));
      if (target) {
        pinned = target;
        target.classList.add('found');
        target.tabIndex = -1;
        target.scrollIntoView({ block: 'center' });
        target.focus({ preventScroll: true });
        requestAnimationFrame(() => {
          if (pinned === target) target.scrollIntoView({ block: 'center' });
        });
        return;
      }
    }
    if (stick) toBottom();
  };

  return {
    /** Whether the reader is at (or near) the latest message: a redraw then keeps them there. */
    nearBottom,
    /** Scrolls to the latest message (unless a search hit is pinned). */
    toBottom,
    rememberFocus,
    restoreFocus,
    place,
    destroy: () => grown.disconnect(),
  };
}
