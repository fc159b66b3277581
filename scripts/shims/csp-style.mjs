// xterm.js styles itself with <style> elements and style attributes, which the app's
// Content-Security-Policy (style-src 'self') blocks. scripts/vendor.mjs points xterm at this
// element instead: its text becomes a constructable stylesheet adopted by the document (CSSOM,
// which the policy allows), added while the element is in the page and dropped when it leaves.
class ClawserCss extends HTMLElement {
  constructor() {
    super();
    this.sheet = new CSSStyleSheet();
    this.css = '';
  }

  /** @override */
  get textContent() {
    return this.css;
  }

  /** @override */
  set textContent(value) {
    this.css = String(value ?? '');
    this.sheet.replaceSync(this.css);
  }

  connectedCallback() {
    if (!document.adoptedStyleSheets.includes(this.sheet)) document.adoptedStyleSheets = [...document.adoptedStyleSheets, this.sheet];
  }

  disconnectedCallback() {
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== this.sheet);
  }
}

if (typeof customElements !== 'undefined' && !customElements.get('clawser-css')) customElements.define('clawser-css', ClawserCss);
