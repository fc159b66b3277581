import { Marked } from 'marked';
import DOMPurify from 'dompurify';

/**
 * Model output is untrusted. This is the one path it takes to the DOM: Markdown to HTML
 * (marked), then DOMPurify with a strict allow-list: no scripts, event handlers,
 * `javascript:` URLs, forms, frames, SVG/MathML, or inline styles that could overlay the app.
 * Remote images are turned into links, since loading them would let a reply send data to
 * any server (the page's CSP blocks them too).
 */

const marked = new Marked({ gfm: true, breaks: false, async: false });

const ALLOWED_TAGS = [
  'a',
  'abbr',
  'b',
  'blockquote',
  'br',
  'code',
  'del',
  'details',
  'div',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'i',
  'img',
  'input',
  'ins',
  'kbd',
  'li',
  'mark',
  'ol',
  'p',
  'pre',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'summary',
  'sup',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'u',
  'ul',
];
const ALLOWED_ATTR = [
  'href',
  'title',
  'alt',
  'src',
  'class',
  'colspan',
  'rowspan',
  'align',
  'start',
  'type',
  'checked',
  'disabled',
  'open',
];

/**
 * A DOMPurify instance of this module's own (never the shared default one, whose hooks would
 * apply to every other user of it), with the link/image/input/class rules as its hook.
 * @returns {import('dompurify').DOMPurify}
 */
function createPurifier() {
  const purifier = DOMPurify(/** @type {any} */ (globalThis.window)); // any: DOMPurify's WindowLike is narrower than a real Window
  purifier.addHook('afterSanitizeAttributes', (node) => {
    const el = /** @type {Element} */ (node);
    if (el.tagName === 'A') {
      const href = el.getAttribute('href') ?? '';
      if (/^\s*(https?:|mailto:)/i.test(href)) {
        el.setAttribute('target', '_blank');
        el.setAttribute('rel', 'noopener noreferrer nofollow');
      } else if (!href.startsWith('#')) {
        el.removeAttribute('href');
      }
    }
    if (el.tagName === 'IMG') {
      const src = el.getAttribute('src') ?? '';
      if (!/^data:image\/(png|gif|jpeg|webp);/i.test(src)) el.removeAttribute('src');
    }
    if (el.tagName === 'INPUT') {
      // Only GitHub task-list checkboxes, and never interactive.
      if (el.getAttribute('type') !== 'checkbox') el.remove();
      else el.setAttribute('disabled', '');
    }
    if (el.hasAttribute('class')) {
      const kept = (el.getAttribute('class') ?? '').split(/\s+/).filter((c) => /^language-[\w+#-]+$/.test(c));
      if (kept.length) el.setAttribute('class', kept.join(' '));
      else el.removeAttribute('class');
    }
  });
  return purifier;
}

// Outside a page (Node, a worker) there is no DOM to sanitize with: renderMarkdown says so.
const purifier = globalThis.window?.document ? createPurifier() : null;

/** @param {string} text */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/**
 * Markdown → sanitized HTML string.
 * @param {string} markdown
 * @returns {string}
 */
export function renderMarkdown(markdown) {
  const source = String(markdown ?? '').replace(
    /!\[([^\]]*)\]\(\s*<?(https?:[^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/gi,
    (_m, alt, url) => `[${alt ? `Image: ${alt}` : 'Image'}](${url})`,
  );
  let html;
  try {
    html = /** @type {string} */ (marked.parse(source));
  } catch {
    html = `<p>${escapeHtml(source)}</p>`;
  }
  if (!purifier) throw new Error('renderMarkdown needs a page with a DOM (it sanitizes with DOMPurify).');
  return purifier.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    // Allowed schemes, or values without a scheme (DOMPurify checks plain attributes such as
    // type="checkbox" against this too); the hook above then keeps only http(s)/mailto/# links.
    ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|#|data:image\/(?:png|gif|jpeg|webp);|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i,
    SANITIZE_DOM: true,
    SANITIZE_NAMED_PROPS: true,
    RETURN_TRUSTED_TYPE: false,
  });
}
