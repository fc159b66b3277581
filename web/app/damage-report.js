// The damaged files found on this page, whoever found them (the conversation store, the goals,
// the scheduler, memory…): one notice in the page's banner area — on the home screen or in the
// open workspace, wherever the person is — that lists them and offers, for each, a download of
// its raw bytes and "Set aside". Stores report through a sink (`sink()`); anything else may call
// `add()` with a plain record.
/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { DamageSink } from '../storage/damage.js' */
/** @import { BannerArea } from '../ui/banners.js' */
import { downloadBlob } from '../ui/dom.js';

/**
 * One damaged file.
 * @typedef {object} DamagedItem
 * @property {string} what the item, for people ("Conversation “Trip”: its details (meta.json)")
 * @property {string} where the workspace it belongs to ("Workspace “Notes”", "Every workspace")
 * @property {string} problem what is wrong with it
 * @property {string} rawPath where its raw bytes are in the browser's storage
 * @property {string} [keptAt] where its damaged lines were set aside already (a log)
 * @property {() => Promise<string>} [setAside] moves it aside (kept) and lets its owner start afresh; resolves to where it went
 * @property {FileSystem} [fs] the file system `path`/`keptPath` are read from (default: the page's storage, with `rawPath`/`keptAt`)
 * @property {string} [path] the file in `fs`
 * @property {string} [keptPath] the set-aside lines in `fs`
 */

/** The banner's id. */
export const DAMAGE_BANNER = 'damaged-files';

export class DamageReport {
  /** @type {DamagedItem[]} */
  #items = [];
  /** Items shown before (by key): a file found damaged again (each list(), each opening) is not shown twice. */
  #seen = new Set();

  /**
   * @param {{fs: FileSystem, banners: ReturnType<typeof BannerArea>, dialog?: () => Promise<typeof import('../ui/damage-dialog.js')>,
   *   onError: (err: unknown) => void}} deps
   *   fs: the page's storage (where `rawPath`s are); dialog: loads the dialog module (on first use)
   */
  constructor(deps) {
    this.deps = deps;
  }

  /** The damaged files not set aside or dismissed. */
  get items() {
    return [...this.#items];
  }

  /** One entry per file: found again, by another reader, it is not repeated. @param {DamagedItem} item */
  #key(item) {
    return item.rawPath;
  }

  /**
   * Lists a damaged file (once: the same file found again is ignored until it was set aside)
   * and shows the notice.
   * @param {DamagedItem} item
   */
  add(item) {
    const key = this.#key(item);
    if (this.#seen.has(key)) {
      // News about the same file (more log lines kept, or the file set aside by its store):
      // its entry says so now.
      const at = this.#items.findIndex((i) => this.#key(i) === key);
      if (!item.keptAt || at === -1) return;
      this.#items[at] = item;
    } else {
      this.#seen.add(key);
      this.#items.push(item);
    }
    this.#show();
  }

  /**
   * What a store reports to, for the files of one place: `where` names it for people, `fs` is
   * the store's file system and `prefix` the path of its root in the page's storage.
   * @param {{where: string, fs: FileSystem, prefix?: string}} place
   * @returns {DamageSink}
   */
  sink({ where, fs, prefix = '' }) {
    return (notice) =>
      this.add({
        what: notice.what,
        where,
        problem: notice.problem,
        rawPath: `${prefix}${notice.path}`,
        ...(notice.keptAt ? { keptAt: `${prefix}${notice.keptAt}`, keptPath: notice.keptAt } : {}),
        ...(notice.setAside ? { setAside: notice.setAside } : {}),
        fs,
        path: notice.path,
      });
  }

  #show() {
    const items = this.#items;
    if (!items.length) return this.deps.banners.hide(DAMAGE_BANNER);
    const places = [...new Set(items.map((i) => i.where))];
    // One file: what is wrong too, in short (the dialog has the whole of it).
    const names =
      items.length === 1
        ? `${items[0].what} — ${items[0].problem.split(/ \(|\. /)[0]}`
        : items
            .slice(0, 2)
            .map((i) => i.what)
            .join('; ');
    const more = items.length > 2 ? `; and ${items.length - 2} more` : '';
    const text =
      `Clawser found ${items.length === 1 ? 'a damaged file' : `${items.length} damaged files`} ` +
      `(${places.join(', ')}): ${names}${more}. Everything else works, and nothing was overwritten.`;
    this.deps.banners.show(DAMAGE_BANNER, text, {
      kind: 'warn',
      action: {
        label: 'Review',
        run: () => {
          this.review().catch(this.deps.onError);
        },
      },
    });
  }

  /** Opens the list, with a download and "Set aside" for each file. */
  async review() {
    const shown = this.items;
    const { damageDialog } = await (this.deps.dialog ?? (() => import('../ui/damage-dialog.js')))();
    await damageDialog({
      rows: shown.map((i) => ({
        what: i.what,
        where: i.where,
        problem: i.problem,
        rawPath: i.rawPath,
        ...(i.keptAt ? { keptAt: i.keptAt } : {}),
        canSetAside: !!i.setAside,
      })),
      onDownload: (index) => this.download(shown[index]),
      onSetAside: (index) => this.setAside(shown[index]),
      onError: this.deps.onError,
    });
  }

  /**
   * Downloads the raw bytes: the set-aside lines of a log, else the damaged file as it is.
   * @param {DamagedItem} item
   */
  async download(item) {
    const fs = item.fs ?? this.deps.fs;
    const path = item.keptAt ? (item.keptPath ?? item.keptAt) : (item.path ?? item.rawPath);
    const bytes = await fs.readBytes(path);
    const name = (item.keptAt ?? item.rawPath).split('/').slice(-3).join('-').replace(/^\.+/, '');
    downloadBlob(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (bytes)], { type: 'application/octet-stream' }), `damaged-${name}`);
  }

  /**
   * Sets the file aside (its owner renames it, keeps it and starts afresh); it leaves the list.
   * @param {DamagedItem} item @returns {Promise<string>} where it went
   */
  async setAside(item) {
    if (!item.setAside) throw new Error('This file cannot be set aside here.');
    const to = await item.setAside();
    this.#items = this.#items.filter((i) => i !== item);
    // The same file damaged again later is news.
    this.#seen.delete(this.#key(item));
    this.#show();
    return to;
  }
}
