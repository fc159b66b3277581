// Functions the service worker runs inside a tab (chrome.scripting.executeScript, in the
// extension's isolated world): each is sent as its source, so each is self-contained — it uses
// nothing from outside its own body. They return plain data, or `{error: {code, message}}`.

/**
 * The page's readable text (its `main` or `article` when it has one, else the body, as laid out:
 * hidden parts left out), title, address and the user's selection; `offset`/`max` page it.
 * @param {number} offset @param {number} max
 */
export function readPage(offset, max) {
  const root = document.querySelector('main, article, [role="main"]') ?? document.body;
  const html = /** @type {HTMLElement | null} */ (root);
  // biome-ignore lint/performance/useDomNodeTextContent: the text as laid out (hidden parts left out) is what the user reads
  const text = (html?.innerText ?? '')
    .replace(/[ \t\f\v]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return {
    title: document.title,
    url: location.href,
    selection: String(getSelection() ?? '').slice(0, 10_000),
    text: text.slice(offset, offset + max),
    offset,
    total: text.length,
  };
}

/**
 * Waits until the page has loaded (its resources and fonts), then one more turn of the event loop
 * (scripts that ran on load have run), at most `timeoutMs`.
 * @param {number} timeoutMs
 */
export async function settlePage(timeoutMs) {
  const start = performance.now();
  let timedOut = false;
  /** @param {Promise<unknown>} p */
  const within = (p) =>
    Promise.race([
      p,
      new Promise((resolve) =>
        setTimeout(
          () => {
            timedOut = true;
            resolve(undefined);
          },
          Math.max(0, timeoutMs - (performance.now() - start)),
        ),
      ),
    ]);
  if (document.readyState !== 'complete') await within(new Promise((resolve) => addEventListener('load', resolve, { once: true })));
  await within(document.fonts?.ready ?? Promise.resolve());
  await new Promise((resolve) => setTimeout(resolve, 0));
  return { waitMs: Math.round(performance.now() - start), timedOut };
}

/**
 * Finds one element by CSS selector or accessible name, clicks it (kind 'click') or types into it
 * (kind 'type'). A password field (or one the page marks as taking a password or a one-time code)
 * is refused. Typing replaces the field's value and fires `input` and `change`, as a person's
 * typing does; `submit` then submits its form (or presses Enter).
 * @param {'click' | 'type'} kind @param {{selector?: string, name?: string}} target @param {string} [text] @param {boolean} [submit]
 */
export function actOn(kind, target, text, submit) {
  const squash = (/** @type {string | null | undefined} */ s) => (s ?? '').replace(/\s+/g, ' ').trim();
  /** @param {Element} el */
  const nameOf = (el) => {
    const e = /** @type {HTMLElement & {labels?: NodeListOf<HTMLLabelElement>, value?: string, placeholder?: string, alt?: string}} */ (el);
    const aria = e.getAttribute('aria-label');
    if (aria) return squash(aria);
    const by = e.getAttribute('aria-labelledby');
    if (by) {
      const t = by
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' ');
      if (squash(t)) return squash(t);
    }
    if (e.labels?.length) return squash([...e.labels].map((l) => l.textContent).join(' '));
    const own = e instanceof HTMLInputElement && ['button', 'submit', 'reset'].includes(e.type) ? e.value : e.textContent;
    return squash(own) || squash(e.getAttribute('title')) || squash(e.getAttribute('placeholder')) || squash(e.getAttribute('alt'));
  };
  /** @param {Element} el */
  const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const CLICKABLE =
    'button, a[href], input[type="button"], input[type="submit"], input[type="reset"], input[type="checkbox"], input[type="radio"], ' +
    'summary, select, [role="button"], [role="link"], [role="tab"], [role="menuitem"], [role="checkbox"], [role="switch"], [onclick]';
  const TYPABLE =
    'input:not([type="button"]):not([type="submit"]):not([type="reset"]):not([type="checkbox"]):not([type="radio"])' +
    ':not([type="hidden"]):not([type="file"]), textarea, [contenteditable=""], [contenteditable="true"], [role="textbox"]';
  /** @type {Element | null} */
  let el = null;
  if (target.selector) {
    try {
      el = document.querySelector(target.selector);
    } catch {
      return { error: { code: 'bad_selector', message: `"${target.selector.slice(0, 100)}" is not a valid CSS selector.` } };
    }
  } else {
    const wanted = squash(target.name).toLowerCase();
    const all = [...document.querySelectorAll(kind === 'click' ? CLICKABLE : TYPABLE)].filter(visible);
    el = all.find((e) => nameOf(e).toLowerCase() === wanted) ?? all.find((e) => nameOf(e).toLowerCase().includes(wanted)) ?? null;
  }
  const what = target.selector ? `the selector ${target.selector.slice(0, 100)}` : `the name “${String(target.name).slice(0, 100)}”`;
  if (!el) return { error: { code: 'no_target', message: `Nothing on the page matches ${what}.` } };
  const e = /** @type {HTMLElement} */ (el);
  const described = `${e.tagName.toLowerCase()} “${nameOf(e).slice(0, 80)}”`;
  if (kind === 'click') {
    e.scrollIntoView({ block: 'center' });
    e.focus?.();
    e.click();
    return { done: `Clicked the ${described}.` };
  }
  const input = /** @type {HTMLInputElement} */ (e);
  const auto = (e.getAttribute('autocomplete') ?? '').toLowerCase();
  if (
    (e instanceof HTMLInputElement && input.type === 'password') ||
    /(^|\s)(current-password|new-password|one-time-code)(\s|$)/.test(auto)
  ) {
    return {
      error: {
        code: 'password_field',
        message: `The ${described} takes a password: Clawser never types into password fields.`,
        hint: 'Ask the user to type it themselves.',
      },
    };
  }
  if (!e.matches(TYPABLE)) return { error: { code: 'not_typable', message: `The ${described} is not a field one can type into.` } };
  if (input.disabled || input.readOnly) return { error: { code: 'not_typable', message: `The ${described} is disabled or read-only.` } };
  e.focus();
  if (e.isContentEditable) e.textContent = String(text ?? '');
  else {
    const proto = e instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    // The prototype's setter, so a framework that wraps `value` (React) sees the change.
    Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(e, String(text ?? ''));
  }
  e.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: String(text ?? '') }));
  e.dispatchEvent(new Event('change', { bubbles: true }));
  if (submit) {
    const form = input.form;
    if (form) form.requestSubmit();
    else {
      e.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', bubbles: true }));
      e.dispatchEvent(new KeyboardEvent('keyup', { key: 'Enter', code: 'Enter', bubbles: true }));
    }
  }
  return { done: `Typed ${String(text ?? '').length} characters into the ${described}${submit ? ', and submitted it' : ''}.` };
}
