// Types of the vendored editor bundle (scripts/vendor.mjs → web/vendor/codemirror.js).
declare module '@clawser/editor' {
  export { basicSetup } from 'codemirror';
  export { EditorView, keymap } from '@codemirror/view';
  export { EditorState, Compartment } from '@codemirror/state';
  export { HighlightStyle, syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
  export { javascript } from '@codemirror/lang-javascript';
  export { markdown } from '@codemirror/lang-markdown';
  export { json } from '@codemirror/lang-json';
  export { html } from '@codemirror/lang-html';
  export { css } from '@codemirror/lang-css';
  export { python } from '@codemirror/lang-python';
  export { tags, highlightCode, classHighlighter } from '@lezer/highlight';
}
