// `**` as bash 5.2 expands it with `shopt -s globstar`, for the vendored interpreter (bundled in
// by scripts/just-bash-patches.mjs, which calls it for every pattern with a `**` segment): a `**`
// segment matches zero or more folders, so `**/` names every folder below and `a/**` names `a/`
// and everything in it. just-bash's own walk only found files under the last part (`**/*.md`),
// so `**/`, `**` and `**/sub` stayed as written. As in bash: `**` does not enter hidden folders
// (unless dotglob) or links to folders, no part ever matches `.` or `..` (globskipdots), and a
// pattern ending in `/` names folders only, each with its slash. The caller orders the matches.

/** @typedef {{name: string, isDirectory: boolean, isSymbolicLink?: boolean}} GlobEntry */

/**
 * The parts of just-bash's glob expander this uses (its file system, options and matcher).
 * @typedef {object} GlobExpander
 * @property {{readdirWithFileTypes?: (path: string) => Promise<GlobEntry[]>, readdir: (path: string) => Promise<string[]>,
 *   stat: (path: string) => Promise<{isDirectory: boolean}>, resolvePath: (base: string, path: string) => string}} fs
 * @property {string} cwd
 * @property {boolean} dotglob
 * @property {boolean} globskipdots
 * @property {() => void} checkOpsLimit throws the interpreter's limit error: never caught here
 * @property {(segment: string) => boolean} hasGlobChars
 * @property {(name: string, segment: string) => boolean} matchPattern
 */

/**
 * Every path `pattern` (which has at least one segment that is exactly `**`) matches, unordered.
 * @param {GlobExpander} g @param {string} pattern @returns {Promise<string[]>}
 */
export async function expandGlobstar(g, pattern) {
  const foldersOnly = pattern.endsWith('/');
  const segments = pattern.split('/').filter((s) => s !== '');
  /** path → whether it is a folder */
  const found = new Map();
  /** @param {string} path @param {boolean} isDirectory */
  const add = (path, isDirectory) => found.set(path, isDirectory || found.get(path) === true);

  /** @param {string} dir @returns {Promise<GlobEntry[]>} */
  const list = async (dir) => {
    g.checkOpsLimit();
    try {
      if (g.fs.readdirWithFileTypes) return await g.fs.readdirWithFileTypes(dir);
      const names = await g.fs.readdir(dir);
      return await Promise.all(names.map(async (name) => ({ name, isDirectory: await isFolder(g.fs.resolvePath(dir, name)) })));
    } catch {
      return [];
    }
  };
  /** @param {string} path */
  const isFolder = async (path) => (await statOf(path))?.isDirectory === true;
  /** @param {string} path */
  const statOf = async (path) => {
    g.checkOpsLimit();
    try {
      return await g.fs.stat(path);
    } catch {
      return null;
    }
  };
  /** A name a `*` may match: never `.`/`..`, a hidden one only with dotglob. @param {string} name */
  const visible = (name) => name !== '.' && name !== '..' && (g.dotglob || !name.startsWith('.'));
  /** @param {string} prefix @param {string} name */
  const join = (prefix, name) => (prefix === '' ? name : prefix.endsWith('/') ? `${prefix}${name}` : `${prefix}/${name}`);
  /** A folder `**` walks into (not through a link, as bash 4.3 and later). @param {GlobEntry} e */
  const walkable = (e) => e.isDirectory && !e.isSymbolicLink && visible(e.name);

  /** Everything below `dir`, at any depth. @param {string} dir @param {string} prefix @returns {Promise<void>} */
  const everything = async (dir, prefix) => {
    for (const e of await list(dir)) {
      if (!visible(e.name)) continue;
      const path = join(prefix, e.name);
      add(path, e.isDirectory);
      if (walkable(e)) await everything(g.fs.resolvePath(dir, e.name), path);
    }
  };

  /**
   * Matches segments[i…] inside `dir`, shown as `prefix`.
   * @param {string} dir @param {string} prefix @param {number} i @returns {Promise<void>}
   */
  const expand = async (dir, prefix, i) => {
    if (i === segments.length) {
      if (prefix !== '') add(prefix, await isFolder(dir));
      return;
    }
    const segment = segments[i];
    const last = i === segments.length - 1;
    if (segment === '**') {
      if (last) {
        // Zero folders: the folder itself, written with its slash (bash's `a/**` → `a/ …`).
        if (prefix !== '' && !prefix.endsWith('/')) add(`${prefix}/`, true);
        await everything(dir, prefix);
        return;
      }
      await expand(dir, prefix, i + 1);
      for (const e of await list(dir)) {
        if (walkable(e)) await expand(g.fs.resolvePath(dir, e.name), join(prefix, e.name), i);
      }
      return;
    }
    if (!g.hasGlobChars(segment)) {
      const name = segment.replace(/\\(.)/g, '$1');
      const path = g.fs.resolvePath(dir, name);
      const stat = await statOf(path);
      if (!stat) return;
      if (last) add(join(prefix, name), stat.isDirectory);
      else if (stat.isDirectory) await expand(path, join(prefix, name), i + 1);
      return;
    }
    const dots = segment.startsWith('.') && !g.globskipdots;
    const entries = await list(dir);
    if (dots) for (const name of ['.', '..']) if (!entries.some((e) => e.name === name)) entries.push({ name, isDirectory: true });
    for (const e of entries) {
      const special = e.name === '.' || e.name === '..';
      if (special ? !dots : e.name.startsWith('.') && !segment.startsWith('.') && !g.dotglob) continue;
      if (!g.matchPattern(e.name, segment)) continue;
      if (last) add(join(prefix, e.name), e.isDirectory);
      else if (e.isDirectory || e.isSymbolicLink) await expand(g.fs.resolvePath(dir, e.name), join(prefix, e.name), i + 1);
    }
  };

  const absolute = pattern.startsWith('/');
  await expand(absolute ? '/' : g.cwd, absolute ? '/' : '', 0);
  const out = [];
  for (const [path, isDirectory] of found) {
    if (!foldersOnly) out.push(path);
    else if (isDirectory) out.push(path.endsWith('/') ? path : `${path}/`);
  }
  return [...new Set(out)];
}
