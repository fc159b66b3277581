/**
 * @typedef {Record<string, unknown> & {class?: string, on?: Record<string, (e: any) => void>}} Props
 * `on` handlers receive the DOM event of their type; `any` because one map serves every event type.
 */

/**
 * Creates an element: `h('button', {class: 'x', on: {click}}, 'Label')`. Text children are
 * text nodes (never parsed as HTML). Props that are element properties are set as such;
 * the rest (aria-*, data-*, role, for, …) become attributes.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Props | null} [props]
 * @param {...(Node | string | number | false | null | undefined | (Node | string | false | null | undefined)[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'on') {
      for (const [type, fn] of Object.entries(/** @type {Record<string, (e: Event) => void>} */ (value))) el.addEventListener(type, fn);
    } else if (key === 'class') {
      el.className = String(value);
    } else if (key in el && !key.includes('-') && key !== 'list' && key !== 'form') {
      /** @type {any} */ (el)[key] = value; // known DOM property of this element
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'number' ? String(child) : child);
  }
  return el;
}

/** @param {Element} el */
export function clear(el) {
  el.replaceChildren();
  return el;
}

// Made once: toLocale*String builds a formatter per call (half a millisecond each, which a
// list of a thousand conversations pays a thousand times).
const TIME = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const DAY = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });

/** "14:05" today, "Nov 3" another day. @param {number} ts */
export function formatTime(ts) {
  const d = new Date(ts);
  const today = new Date();
  return d.getFullYear() === today.getFullYear() && d.getMonth() === today.getMonth() && d.getDate() === today.getDate()
    ? TIME.format(d)
    : DAY.format(d);
}

/**
 * Offers a Blob as a download under `name` (a temporary object URL on a hidden link).
 * @param {Blob} blob @param {string} name
 */
export function downloadBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked later: the browser reads the URL after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

/**
 * Asks for one file with the browser's file picker; `onFile` gets it (not called when the user
 * cancelled). `accept`: the input's accept list (".zip,application/zip").
 * @param {string} accept @param {(file: File) => void} onFile
 */
export function pickFile(accept, onFile) {
  const picker = /** @type {HTMLInputElement} */ (h('input', { type: 'file', accept }));
  picker.addEventListener('change', () => {
    if (picker.files?.[0]) onFile(picker.files[0]);
  });
  picker.click();
}

/**
 * Runs UI actions so that a failure reaches `onError` (a banner) instead of being lost in a
 * rejected promise: `const guarded = guard(props.onError); button.onclick = () => guarded(save)`.
 * @param {(err: unknown) => void} onError
 * @returns {(fn: () => Promise<unknown>) => Promise<void>}
 */
export function guard(onError) {
  return async (fn) => {
    try {
      await fn();
    } catch (err) {
      onError(err);
    }
  };
}
