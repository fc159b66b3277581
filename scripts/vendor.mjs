#!/usr/bin/env node
// Turns each browser dependency into one ES module under web/vendor/ and writes the
// import map (plus its CSP hash) into index.html. Runs as npm's postinstall step, so a
// fresh `npm install` / `npm ci` leaves a runnable app with nothing fetched at run time.
import { build } from 'esbuild';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writePrecacheManifest } from './build-manifest.mjs';
import { writeIndexHtml } from './index-html.mjs';
import { packWsh } from './pack-wsh.mjs';
import { patchJustBash } from './just-bash-patches.mjs';
import { ICON_NAMES } from '../web/ui/icon-names.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vendorDir = join(root, 'web', 'vendor');

/** The zod functions and classes the app uses as `z.name` (and a few close relatives). */
const ZOD_FUNCTIONS = [
  'string',
  'object',
  'number',
  'enum',
  'array',
  'literal',
  'boolean',
  'record',
  'looseObject',
  'strictObject',
  'unknown',
  'any',
  'union',
  'discriminatedUnion',
  'intersection',
  'tuple',
  'optional',
  'nullable',
  'lazy',
  'null',
  'undefined',
  'never',
  'instanceof',
  'custom',
  'preprocess',
  'int',
  'coerce',
  'iso',
  'toJSONSchema',
  'ZodType',
  'ZodError',
];
/** Names that are reserved words, imported under another name. */
const RESERVED = new Set(['enum', 'null', 'undefined', 'instanceof']);

/**
 * One entry per bare specifier the app imports. `entry` is the source esbuild bundles;
 * extra options cover the known quirks of this stack (see docs/architecture.md).
 * @type {{specifier: string, file: string, entry: string, options?: import('esbuild').BuildOptions}[]}
 */
const packages = [
  { specifier: 'idb-keyval', file: 'idb-keyval.js', entry: "export * from 'idb-keyval';" },
  { specifier: 'fflate', file: 'fflate.js', entry: "export * from 'fflate';" },
  // llama.cpp in WebAssembly for the local model (issue 34); its worker is made from a Blob inside
  // the bundle, and its wasm is copied beside it (wllama/wllama.wasm), loaded only by that provider.
  { specifier: '@wllama/wllama', file: 'wllama.js', entry: "export { Wllama } from '@wllama/wllama';" },
  { specifier: 'dompurify', file: 'dompurify.js', entry: "export { default } from 'dompurify';" },
  { specifier: 'croner', file: 'croner.js', entry: "export * from 'croner';" },
  { specifier: 'minisearch', file: 'minisearch.js', entry: "export { default } from 'minisearch';" },
  // The Dashboard's charts (its stylesheet is copied next to it, see `assets`).
  { specifier: 'uplot', file: 'uplot.js', entry: "export { default } from 'uplot';" },
  {
    // zod's `z` namespace carries every locale and helper (458 KB minified), and it is on the
    // start-up path: the app's `z` is built from the functions it uses (110 KB), so the browser
    // parses a quarter of it. tests/unit/vendor.test.mjs checks every `z.name` the app calls is here.
    specifier: 'zod',
    file: 'zod.js',
    entry: [
      `import { ${ZOD_FUNCTIONS.map((n) => (RESERVED.has(n) ? `${n} as ${n}_` : n)).join(', ')} } from 'zod';`,
      `export const z = Object.freeze({ ${ZOD_FUNCTIONS.map((n) => (RESERVED.has(n) ? `${n}: ${n}_` : n)).join(', ')} });`,
      'export default z;',
    ].join('\n'),
  },
  { specifier: 'marked', file: 'marked.js', entry: "export * from 'marked';" },
  // SKILL.md frontmatter (Agent Skills): a real YAML 1.2 parser.
  { specifier: 'yaml', file: 'yaml.js', entry: "export { parseDocument, isMap, isScalar, isSeq, YAMLParseError } from 'yaml';" },
  { specifier: 'diff', file: 'diff.js', entry: "export * from 'diff';" },
  {
    // The file editor: one bundle so CodeMirror's packages share a single @codemirror/state.
    // Its types: web/types/editor-bundle.d.ts.
    specifier: '@clawser/editor',
    file: 'codemirror.js',
    entry: [
      "export { basicSetup } from 'codemirror';",
      "export { EditorView, keymap } from '@codemirror/view';",
      "export { EditorState, Compartment } from '@codemirror/state';",
      "export { HighlightStyle, syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';",
      "export { javascript } from '@codemirror/lang-javascript';",
      "export { markdown } from '@codemirror/lang-markdown';",
      "export { json } from '@codemirror/lang-json';",
      "export { html } from '@codemirror/lang-html';",
      "export { css } from '@codemirror/lang-css';",
      "export { python } from '@codemirror/lang-python';",
      "export { tags, highlightCode, classHighlighter } from '@lezer/highlight';",
    ].join('\n'),
  },
  {
    specifier: 'isomorphic-git',
    file: 'isomorphic-git.js',
    // isomorphic-git uses a Buffer global: without it, commit fails with "Buffer is not defined".
    entry:
      "import { Buffer } from 'buffer'; if (!globalThis.Buffer) globalThis.Buffer = " +
      "Buffer;\nexport * from 'isomorphic-git'; export { default } from 'isomorphic-git';",
    options: { plugins: [patchIsomorphicGitDeflate()] },
  },
  {
    specifier: 'isomorphic-git/http/web',
    file: 'isomorphic-git-http.js',
    entry: "export * from 'isomorphic-git/http/web'; export { default } from 'isomorphic-git/http/web';",
  },
  {
    specifier: 'html2canvas',
    file: 'html2canvas.js',
    entry: "export { default } from 'html2canvas';",
    // Otherwise esbuild follows the `browser` field to the UMD build.
    options: { mainFields: ['module', 'main'] },
  },
  {
    // The shell (web/shell/): a bash interpreter with its own parser and ~80 commands. Its
    // browser build imports gzip from node:zlib; fflate serves those calls (scripts/shims/).
    specifier: 'just-bash',
    file: 'just-bash.js',
    entry: "export * from 'just-bash/browser';",
    options: { alias: { 'node:zlib': './scripts/shims/node-zlib.mjs' }, plugins: [patchJustBash()] },
  },
  // tar archives for the shell's `tar` (just-bash's browser build has none).
  { specifier: 'modern-tar', file: 'modern-tar.js', entry: "export { packTar, unpackTar } from 'modern-tar';" },
  {
    // The Terminal panel's emulator. Its types: web/types/terminal-bundle.d.ts.
    specifier: '@clawser/terminal',
    file: 'xterm.js',
    entry: "import './scripts/shims/csp-style.mjs'; export { Terminal } from '@xterm/xterm'; export { FitAddon } from '@xterm/addon-fit';",
    options: { plugins: [patchXtermStyles()] },
  },
  // Documents attached to a message (issue 37): read in a worker of the page (web/files/document-worker.js), which
  // imports these by path (an import map does not reach a worker). pdf.js runs its own worker code in that same worker
  // (pdf.worker.js, copied as it is below), so nothing starts a second one.
  {
    specifier: 'pdfjs-dist',
    file: 'pdfjs.js',
    entry: "export { getDocument, PasswordException, InvalidPDFException, GlobalWorkerOptions } from 'pdfjs-dist';",
  },
  { specifier: 'mammoth', file: 'mammoth.js', entry: "export { extractRawText } from 'mammoth';" },
  { specifier: 'read-excel-file', file: 'read-excel-file.js', entry: "export { default } from 'read-excel-file/browser';" },
  { specifier: 'papaparse', file: 'papaparse.js', entry: "export { default } from 'papaparse';" },
  // Mermaid diagrams of artifacts (issue 37): never run on the app's page. The app reads this file as text and hands it
  // to the artifact frame (web/ui/artifact-frame.html, an opaque origin), which imports it from a blob: URL.
  { specifier: 'mermaid', file: 'mermaid.js', entry: "export { default } from 'mermaid';" },
  {
    specifier: '@xenova/transformers',
    file: 'transformers.js',
    entry: "export * from '@xenova/transformers'; export * as ort from 'onnxruntime-web';",
  },
];

/**
 * The icons the app draws (web/ui/icon-names.js), each as Lucide's drawing: a module of their data
 * alone, not the 2,000 icons of the package (web/ui/icon.js makes the SVG). Vendoring fails
 * loudly on a name Lucide lacks (renamed in an update).
 * @param {string} [iconsFile] lucide-static's drawings, by name
 */
export async function iconsModule(iconsFile = join(root, 'node_modules', 'lucide-static', 'icon-nodes.json')) {
  /** @type {Record<string, [string, Record<string, string>][]>} */
  const all = JSON.parse(await readFile(iconsFile, 'utf8'));
  const missing = ICON_NAMES.filter((name) => !all[name]);
  if (missing.length) throw new Error(`lucide-static has no icon named ${missing.join(', ')} (web/ui/icon-names.js)`);
  const icons = Object.fromEntries(ICON_NAMES.map((name) => [name, all[name]]));
  const licence = '/*! Lucide icons (lucide-static), ISC licence: https://lucide.dev/license */';
  return `${licence}\nexport const ICONS = Object.freeze(${JSON.stringify(icons)});\n`;
}

/**
 * isomorphic-git compresses each object through `new Blob([buffer]).stream()`: creating a
 * Blob is a round trip to the browser process, about half the CPU time of a commit of many
 * small files. The same CompressionStream is fed through its writer instead (same output).
 * Vendoring fails loudly if the code to patch is not found (e.g. after an update).
 * @returns {import('esbuild').Plugin}
 */
function patchIsomorphicGitDeflate() {
  const before = 'const c = new Blob([buffer]).stream().pipeThrough(cs);\n  return new Uint8Array(await new Response(c).arrayBuffer())';
  const after =
    'const writer = cs.writable.getWriter();\n  writer.write(buffer).catch(() => {});\n  ' +
    'writer.close().catch(() => {});\n  return new Uint8Array(await new Response(cs.readable).arrayBuffer())';
  return {
    name: 'patch-isomorphic-git-deflate',
    setup(b) {
      b.onLoad({ filter: /isomorphic-git[\\/]index\.js$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        if (!source.includes(before))
          throw new Error(`isomorphic-git's deflate changed; update patchIsomorphicGitDeflate in scripts/vendor.mjs (${args.path})`);
        return { contents: source.replace(before, after), loader: 'js' };
      });
    },
  };
}

/**
 * xterm.js writes <style> elements and style attributes, both blocked by the app's CSP
 * (style-src 'self'): its style elements become <clawser-css> (scripts/shims/csp-style.mjs, a
 * constructable stylesheet) and its style attributes the element's CSSOM style. Vendoring fails
 * loudly if the code to patch is not found (e.g. after an update).
 * @returns {import('esbuild').Plugin}
 */
function patchXtermStyles() {
  const attr = 't.setAttribute("style",`${t.getAttribute("style")||""}${e};`)';
  return {
    name: 'patch-xterm-styles',
    setup(b) {
      b.onLoad({ filter: /@xterm[\\/]xterm[\\/]lib[\\/]xterm\.mjs$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        const styles = source.split('.createElement("style")').length - 1;
        if (styles < 2 || !source.includes(attr))
          throw new Error(`xterm's styling changed; update patchXtermStyles in scripts/vendor.mjs (${args.path})`);
        return {
          contents: source.replaceAll('.createElement("style")', '.createElement("clawser-css")').replace(attr, 't.style.cssText+=`${e};`'),
          loader: 'js',
        };
      });
    },
  };
}

/** Files used as they are: [from node_modules, to web/vendor]. */
const assets = [
  ['@wllama/wllama/esm/wasm/wllama.wasm', 'wllama/wllama.wasm'],
  ['uplot/dist/uPlot.min.css', 'uplot.css'],
  ['@xterm/xterm/css/xterm.css', 'xterm.css'],
  ['pdfjs-dist/build/pdf.worker.min.mjs', 'pdf.worker.js'],
];

/**
 * Python (issue 39): Pyodide's runtime from its npm package, copied as it is into web/vendor/pyodide/. The npm
 * distribution ships the interpreter and the standard library only (no wheels: numpy, matplotlib… are not in it).
 * These ~13.5 MB are not precached (scripts/build-manifest.mjs): the service worker keeps them on first use.
 */
export const PYODIDE_FILES = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];

/** onnxruntime-web's wasm: without COOP/COEP only the SIMD build is fetched, so only it is precached. */
const wasmFiles = ['ort-wasm-simd.wasm'];

async function main() {
  await rm(vendorDir, { recursive: true, force: true });
  await mkdir(join(vendorDir, 'ort'), { recursive: true });
  await mkdir(join(vendorDir, 'wllama'), { recursive: true });
  await mkdir(join(vendorDir, 'pyodide'), { recursive: true });
  /** @type {Record<string, string>} */
  const imports = {};
  // The icon set: its entry is made from the list of icons used (see iconsModule).
  const all = [...packages, { specifier: '@clawser/icons', file: 'icons.js', entry: await iconsModule() }];
  for (const pkg of all) {
    await build({
      stdin: { contents: pkg.entry, resolveDir: root, loader: 'js', sourcefile: `${pkg.file}-entry.js` },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      legalComments: 'eof',
      logLevel: 'error',
      outfile: join(vendorDir, pkg.file),
      ...pkg.options,
    });
    imports[pkg.specifier] = `./web/vendor/${pkg.file}`;
  }
  for (const wasm of wasmFiles) {
    await copyFile(join(root, 'node_modules', 'onnxruntime-web', 'dist', wasm), join(vendorDir, 'ort', wasm));
  }
  for (const [from, to] of assets) await copyFile(join(root, 'node_modules', from), join(vendorDir, to));
  for (const file of PYODIDE_FILES) await copyFile(join(root, 'node_modules', 'pyodide', file), join(vendorDir, 'pyodide', file));
  // The wsh server as an npm tarball the app serves, for `npx --package=<origin>/web/vendor/wsh-server.tgz wsh-server`.
  await packWsh(vendorDir);
  await writeIndexHtml(imports);
  await writePrecacheManifest();
  console.log(`vendored ${all.length} packages into web/vendor/`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    console.error('vendoring failed:', err);
    process.exit(1);
  });
}
