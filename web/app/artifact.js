/** @import { ArtifactPane } from '../tools/types.d.ts' */
/** @import { ArtifactSource } from '../ui/types.d.ts' */
import DOMPurify from 'dompurify';

/** A purifier of its own: the Markdown renderer's hooks (which drop classes) must not apply here. */
const purifier = DOMPurify(window);

/** Everything allowed in the artifact: document markup, no scripts or frames. */
const SANITIZE = {
  WHOLE_DOCUMENT: false,
  FORBID_TAGS: ['script', 'iframe', 'frame', 'frameset', 'object', 'embed', 'base', 'meta', 'link', 'form'],
  FORBID_ATTR: ['srcdoc', 'formaction'],
  ALLOW_DATA_ATTR: true,
};

/**
 * The agent's own page: HTML the agent writes (sanitized with DOMPurify) and queries or edits
 * with CSS selectors. The source of truth is a detached document here; the view shows it in
 * a sandboxed iframe (no scripts, opaque origin), so it can never touch Clawser's own UI.
 * @implements {ArtifactPane}
 * @implements {ArtifactSource}
 */
export class ArtifactDocument {
  #doc = document.implementation.createHTMLDocument('Artifact');
  /** @type {Set<(html: string) => void>} */
  #listeners = new Set();

  get html() {
    return this.#doc.body.innerHTML;
  }

  /** @param {(html: string) => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  #changed() {
    const html = this.html;
    for (const fn of this.#listeners) fn(html);
  }

  /** @param {string} html */
  async setHtml(html) {
    this.#doc.body.innerHTML = /** @type {string} */ (purifier.sanitize(html, SANITIZE));
    this.#changed();
  }

  /** @param {string} selector */
  #select(selector) {
    try {
      return [...this.#doc.body.querySelectorAll(selector)];
    } catch {
      throw new Error(`"${selector}" is not a valid CSS selector.`);
    }
  }

  /** @param {string} selector */
  async query(selector) {
    const els = this.#select(selector);
    return {
      count: els.length,
      items: els.slice(0, 50).map((el) => ({
        tag: el.tagName.toLowerCase(),
        text: (el.textContent ?? '').trim().slice(0, 500),
        html: el.outerHTML.slice(0, 1000),
      })),
    };
  }

  /**
   * @param {string} selector
   * @param {'set_text' | 'set_html' | 'append_html' | 'remove' | 'set_attribute'} action
   * @param {string} [value]
   * @param {string} [attribute]
   */
  async modify(selector, action, value = '', attribute) {
    const els = this.#select(selector);
    for (const el of els) {
      if (action === 'set_text') el.textContent = value;
      else if (action === 'set_html') el.innerHTML = /** @type {string} */ (purifier.sanitize(value, SANITIZE));
      else if (action === 'append_html') el.insertAdjacentHTML('beforeend', /** @type {string} */ (purifier.sanitize(value, SANITIZE)));
      else if (action === 'remove') el.remove();
      else if (action === 'set_attribute') {
        if (
          !attribute ||
          /^on/i.test(attribute) ||
          (/^(src|href|srcdoc|action|formaction)$/i.test(attribute) && /^\s*(javascript|data|vbscript):/i.test(value))
        ) {
          throw new Error(`Setting "${attribute}" to that value is not allowed.`);
        }
        el.setAttribute(attribute, value);
      }
    }
    if (els.length) this.#changed();
    return els.length;
  }
}
