/**
 * The editor bundle (CodeMirror and its language parsers), loaded on first use: most visits
 * never open a file or show code. Shared by the file editor and the chat's code blocks.
 */

/** @type {Promise<typeof import('@clawser/editor')> | null} */
let editorModule = null;

export function loadEditor() {
  editorModule ??= import('@clawser/editor');
  return editorModule;
}

/**
 * The language support for a file extension ([] when there is none).
 * @param {typeof import('@clawser/editor')} cm @param {string} ext
 */
export function languageFor(cm, ext) {
  if (['js', 'mjs', 'cjs', 'jsx'].includes(ext)) return cm.javascript({ jsx: ext === 'jsx' });
  if (['ts', 'tsx', 'mts'].includes(ext)) return cm.javascript({ typescript: true, jsx: ext === 'tsx' });
  if (['md', 'markdown'].includes(ext)) return cm.markdown();
  if (['json', 'jsonl', 'webmanifest'].includes(ext)) return cm.json();
  if (['html', 'htm', 'svg', 'xml'].includes(ext)) return cm.html();
  if (ext === 'css') return cm.css();
  if (ext === 'py') return cm.python();
  return [];
}

/** A code fence's language name → the file extension it is saved and highlighted as. */
const FENCE_EXTENSIONS = /** @type {Record<string, string>} */ ({
  javascript: 'js',
  js: 'js',
  mjs: 'js',
  node: 'js',
  jsx: 'jsx',
  typescript: 'ts',
  ts: 'ts',
  tsx: 'tsx',
  python: 'py',
  py: 'py',
  json: 'json',
  jsonl: 'jsonl',
  html: 'html',
  xml: 'xml',
  svg: 'svg',
  css: 'css',
  markdown: 'md',
  md: 'md',
  bash: 'sh',
  sh: 'sh',
  shell: 'sh',
  zsh: 'sh',
  yaml: 'yaml',
  yml: 'yaml',
  toml: 'toml',
  sql: 'sql',
  rust: 'rs',
  go: 'go',
  java: 'java',
  c: 'c',
  cpp: 'cpp',
  'c++': 'cpp',
  csharp: 'cs',
  'c#': 'cs',
  ruby: 'rb',
  php: 'php',
  text: 'txt',
  txt: 'txt',
});

/** @param {string | undefined} fence e.g. "js", "Python" @returns {string} an extension ("txt" when unknown) */
export function extensionForFence(fence) {
  return FENCE_EXTENSIONS[String(fence ?? '').toLowerCase()] ?? 'txt';
}

/**
 * Replaces `code`'s text with highlighted spans (class names from the shared token classes,
 * coloured by styles.css); text nodes only, so nothing the model wrote becomes markup.
 * @param {HTMLElement} code @param {string} ext
 * @returns {Promise<boolean>} false when the language has no parser here
 */
export async function highlightElement(code, ext) {
  const cm = await loadEditor();
  const support = languageFor(cm, ext);
  if (Array.isArray(support)) return false;
  const text = code.textContent ?? '';
  const tree = support.language.parser.parse(text);
  const out = document.createDocumentFragment();
  cm.highlightCode(
    text,
    tree,
    cm.classHighlighter,
    (piece, classes) => {
      if (!classes) out.append(piece);
      else {
        const span = document.createElement('span');
        span.className = classes;
        span.textContent = piece;
        out.append(span);
      }
    },
    () => out.append('\n'),
  );
  // The text may have changed while the bundle loaded (a streaming reply): keep the newer one.
  if ((code.textContent ?? '') !== text) return false;
  code.replaceChildren(out);
  return true;
}
