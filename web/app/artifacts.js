/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { ArtifactKind, ArtifactShown, ArtifactShelfSource } from '../ui/types.d.ts' */

/** Where artifacts are kept in the workspace: artifacts/<conversation>/<name>/v<N>.<ext>. */
export const ARTIFACTS = 'artifacts';

/** A fenced block's language → the artifact's kind; the file's extension is the kind's. */
const KINDS = /** @type {Record<string, ArtifactKind>} */ ({ html: 'html', svg: 'svg', mermaid: 'mermaid', csv: 'csv' });
const EXTENSIONS = /** @type {Record<ArtifactKind, string>} */ ({ html: 'html', svg: 'svg', mermaid: 'mmd', csv: 'csv' });
/** The media type an export downloads as. */
export const MEDIA_TYPES = /** @type {Record<ArtifactKind, string>} */ ({
  html: 'text/html',
  svg: 'image/svg+xml',
  mermaid: 'text/plain',
  csv: 'text/csv',
});
/** A block shorter than this is an example in a sentence, not something made. */
const MIN_CHARS = 20;

const FENCE = /^(`{3,}|~{3,})[ \t]*([A-Za-z]+)[^\n]*\n([\s\S]*?)\n\1[ \t]*$/gm;

/**
 * The artifacts a reply made: its fenced blocks of HTML, SVG, Mermaid and CSV, each named by its
 * kind and place among the reply's blocks of that kind ("html-1"): the first HTML block of a
 * later reply in the conversation is a new version of the same artifact.
 * @param {string} text
 * @returns {{name: string, kind: ArtifactKind, content: string}[]}
 */
export function extractArtifacts(text) {
  /** @type {Record<string, number>} */
  const seen = {};
  const out = [];
  for (const m of text.matchAll(FENCE)) {
    const kind = KINDS[m[2].toLowerCase()];
    const content = m[3];
    if (!kind || content.trim().length < MIN_CHARS) continue;
    seen[kind] = (seen[kind] ?? 0) + 1;
    out.push({ name: `${kind}-${seen[kind]}`, kind, content });
  }
  return out;
}

/** @param {string} s */
const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A CSV as a page: its table, and a bar chart (SVG) of the first numeric column against the
 * first column when it has one. Every cell is escaped: the page is built from data, not markup.
 * @param {string} csv @param {{parse: (text: string, options: object) => {data: unknown}}} Papa papaparse
 */
export function csvPage(csv, Papa) {
  const rows = /** @type {string[][]} */ (Papa.parse(csv.trim(), { skipEmptyLines: true }).data);
  const [head = [], ...body] = rows;
  const numeric = head.findIndex((_, c) => c > 0 && body.length > 0 && body.every((r) => r[c] !== '' && Number.isFinite(Number(r[c]))));
  let chart = '';
  if (numeric > 0) {
    const values = body.map((r) => Number(r[numeric]));
    const max = Math.max(...values.map(Math.abs), 1);
    const bar = 28;
    const width = 480;
    const bars = values
      .map((v, i) => {
        const w = Math.round((Math.abs(v) / max) * (width - 160));
        const y = i * (bar + 6);
        return (
          `<text x="0" y="${y + 19}">${escapeHtml(body[i][0] ?? '')}</text>` +
          `<rect x="120" y="${y}" width="${w}" height="${bar}" fill="#4f7cc8"><title>${escapeHtml(String(v))}</title></rect>` +
          `<text x="${126 + w}" y="${y + 19}">${escapeHtml(String(v))}</text>`
        );
      })
      .join('');
    chart =
      `<figure><figcaption>${escapeHtml(head[numeric])} by ${escapeHtml(head[0] ?? '')}</figcaption>` +
      `<svg role="img" aria-label="Bar chart of ${escapeHtml(head[numeric])}" width="${width}" ` +
      `height="${values.length * (bar + 6)}" viewBox="0 0 ${width} ${values.length * (bar + 6)}" font-family="sans-serif" ` +
      `font-size="13">${bars}</svg></figure>`;
  }
  const cells = (/** @type {string[]} */ r, /** @type {string} */ tag) => r.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('');
  // The chart scales down to the frame's width (its viewBox); a table wider than the frame scrolls in its own box. The
  // labels take the text's colour, which follows the app's theme (the frame gives the page its colour scheme).
  return (
    '<!doctype html><meta charset="utf-8"><style>body{font:14px sans-serif;margin:12px}table{border-collapse:collapse}' +
    'th,td{border:1px solid #8886;padding:4px 8px;text-align:left}figure{margin:16px 0}.table{overflow-x:auto}' +
    'svg{max-width:100%;height:auto}svg text{fill:currentColor}</style>' +
    `<div class="table" tabindex="0" role="region" aria-label="Table"><table><thead><tr>${cells(head, 'th')}</tr></thead>` +
    `<tbody>${body.map((r) => `<tr>${cells(r, 'td')}</tr>`).join('')}</tbody></table></div>${chart}`
  );
}

/**
 * What the frame is given for an artifact: its page (SVG and CSV made into one), or for a
 * Mermaid diagram its source (the frame draws it).
 * @param {ArtifactKind} kind @param {string} content
 * @returns {Promise<string>}
 */
export async function framePage(kind, content) {
  // The frame gives an SVG without a viewBox one from its width and height, so it scales down rather than being cut off.
  if (kind === 'svg') return `<!doctype html><meta charset="utf-8"><style>body{margin:0}svg{max-width:100%;height:auto}</style>${content}`;
  // Loaded with the first table, not on the app's start-up path.
  if (kind === 'csv') return csvPage(content, (await import('papaparse')).default);
  return content;
}

/**
 * The workspace's artifacts: each a folder of versions under artifacts/, and the one on screen
 * beside the chat (the pane follows `subscribe`). A reply's artifacts are saved when its turn
 * ends (the same content again is not a new version); the last one saved is shown.
 * @implements {ArtifactShelfSource}
 */
export class ArtifactShelf {
  /** @type {ArtifactShown | null} */
  current = null;
  /** @type {Set<() => void>} */
  #listeners = new Set();
  /** @type {Promise<string> | null} */
  #mermaid = null;

  /** @param {FileSystem} fs the workspace's files @param {{library?: () => Promise<string>}} [options] library: Mermaid's source */
  constructor(fs, options = {}) {
    this.fs = fs;
    this.loadLibrary = options.library ?? (async () => (await fetch(new URL('../vendor/mermaid.js', import.meta.url))).text());
  }

  /** @param {() => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  #changed() {
    // A copy: a pane made by one listener subscribes itself, and has drawn already.
    for (const fn of [...this.#listeners]) fn();
  }

  /** @param {string} folder @returns {Promise<number[]>} the versions kept, oldest first */
  async #versions(folder) {
    const entries = await this.fs.list(folder).catch(() => []);
    return entries
      .map((e) => /^v(\d+)\./.exec(e.name)?.[1])
      .filter((n) => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }

  /**
   * Saves the artifacts of a reply as new versions and shows the last one.
   * @param {string} conversationId @param {string} reply
   * @returns {Promise<string[]>} the paths written
   */
  async fromReply(conversationId, reply) {
    const made = extractArtifacts(reply);
    /** @type {string[]} */
    const written = [];
    let last = null;
    for (const a of made) {
      const folder = `${ARTIFACTS}/${conversationId}/${a.name}`;
      const versions = await this.#versions(folder);
      const latest = versions.at(-1);
      const ext = EXTENSIONS[a.kind];
      if (latest !== undefined && (await this.fs.readText(`${folder}/v${latest}.${ext}`).catch(() => null)) === a.content) {
        last = { folder, kind: a.kind, name: a.name, version: latest };
        continue;
      }
      const version = (latest ?? 0) + 1;
      await this.fs.write(`${folder}/v${version}.${ext}`, a.content);
      written.push(`${folder}/v${version}.${ext}`);
      last = { folder, kind: a.kind, name: a.name, version };
    }
    if (last) await this.show(last.folder, last.kind, last.name, last.version);
    return written;
  }

  /**
   * Shows a version of an artifact.
   * @param {string} folder @param {ArtifactKind} kind @param {string} name @param {number} version
   */
  async show(folder, kind, name, version) {
    const versions = await this.#versions(folder);
    const path = `${folder}/v${version}.${EXTENSIONS[kind]}`;
    const content = await this.fs.readText(path);
    this.current = {
      name,
      kind,
      version,
      versions: versions.length,
      path,
      content,
      page: await framePage(kind, content),
      mediaType: MEDIA_TYPES[kind],
      fileName: `${name}-v${version}.${EXTENSIONS[kind]}`,
    };
    this.#changed();
  }

  /** The other artifacts of the conversation of the one on screen (the pane's menu), by name. */
  async others() {
    const c = this.current;
    if (!c) return [];
    const conversation = c.path.split('/').slice(0, 2).join('/');
    const entries = await this.fs.list(conversation).catch(() => []);
    return entries
      .filter((e) => e.kind === 'directory' && /^(html|svg|mermaid|csv)-\d+$/.test(e.name))
      .map((e) => e.name)
      .sort();
  }

  /** Shows the latest version of another artifact of the same conversation. @param {string} name */
  async open(name) {
    const c = this.current;
    const kind = /** @type {ArtifactKind | undefined} */ (KINDS[name.split('-')[0]]);
    if (!c || !kind) return;
    const folder = `${c.path.split('/').slice(0, 2).join('/')}/${name}`;
    const latest = (await this.#versions(folder)).at(-1);
    if (latest !== undefined) await this.show(folder, kind, name, latest);
  }

  /** Shows the version before or after the one on screen. @param {-1 | 1} step */
  async step(step) {
    const c = this.current;
    if (!c) return;
    const folder = c.path.slice(0, c.path.lastIndexOf('/'));
    const versions = await this.#versions(folder);
    const next = versions[versions.indexOf(c.version) + step];
    if (next !== undefined) await this.show(folder, c.kind, c.name, next);
  }

  /** Mermaid's source, read once (the service worker has it offline). */
  library() {
    this.#mermaid ??= this.loadLibrary().catch((err) => {
      this.#mermaid = null;
      throw err;
    });
    return this.#mermaid;
  }

  close() {
    this.current = null;
    this.#changed();
  }
}
