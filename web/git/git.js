// Why this file is long: the GitRepo façade over isomorphic-git: each method (status, stage,
//  commit, log, diffs, branches, remotes, pull, push, restore) is short, and they share the
//  repository's guarded file system, its index check and its error mapping.
/** @import { FileSystem } from '../storage/types.d.ts' */
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/web';
import { structuredPatch } from 'diff';
import { createGitFs } from './git-fs.js';
import { GitError, toGitError } from './errors.js';
import { PROTECTED_SEGMENTS } from '../storage/workspace-folders.js';
import { gitFileSystem } from '../storage/protected-fs.js';
import { setAsideFile, SET_ASIDE_HINT } from '../storage/damage.js';
import { INDEX_PATH } from './index-check.js';
import { guardedHttp } from './pack-limits.js';

/** What isomorphic-git says when `.git/index` cannot be read. */
const DAMAGED_INDEX =
  /Index file is empty|Invalid dircache magic|Invalid checksum in GitIndex|Unsupported dircache version|GitIndex|dircache/i;

/**
 * Clawser's own folders never enter the repository, and never leave it: git neither stages the
 * workspace's copies nor checks a repository's copies out (they would plant jobs, goals and
 * memories). @param {string} filepath
 */
export function isTracked(filepath) {
  // "./.memory/x" and "/.memory/x" name the same folder.
  const first =
    filepath
      .split('/')
      .find((p) => p && p !== '.')
      ?.toLowerCase() ?? '';
  return !PROTECTED_SEGMENTS.includes(first);
}

/** The refusal for a path in Clawser's own folders. @param {string} filepath */
const protectedPath = (filepath) =>
  new GitError('protected', `"${filepath}" is in Clawser's own folders, which git never stages, commits, checks out or restores.`);

const DIR = '/';
export const DEFAULT_AUTHOR = { name: 'Clawser', email: 'clawser@localhost' };
/** Files larger than this are not diffed line by line. */
const MAX_DIFF_BYTES = 512 * 1024;
const decoder = new TextDecoder('utf-8', { fatal: false });

/**
 * @typedef {{path: string, state: 'new' | 'modified' | 'deleted' | 'unchanged', staged: boolean, unstaged: boolean}} FileStatus
 *   state compares the working copy with the last commit; staged: the index differs from the
 *   last commit; unstaged: the working copy differs from the index.
 * @typedef {{oid: string, message: string, author: string, email: string, timestamp: number, parents: string[]}} CommitInfo
 * @typedef {{oldStart: number, oldLines: number, newStart: number, newLines: number, lines: string[]}} Hunk
 * @typedef {{path: string, change: 'added' | 'modified' | 'deleted', binary: boolean, hunks: Hunk[], tooLarge?: boolean}} FileDiff
 */

/** @param {string} name */
function checkBranchName(name) {
  // git check-ref-format, the rules a user can break by typing.
  if (!name || name.length > 200 || /(^[-./])|([./]$)|\.\.|[\s~^:?*[\\\x00-\x1f\x7f]|@\{|\.lock$|\/\//.test(name) || name === '@') {
    throw new GitError(
      'invalid_name',
      `"${name}" is not a valid branch name: use letters, digits, "-", "_", "/" and "." (no spaces, no "..", not starting with "-").`,
    );
  }
}

/** @param {Uint8Array | null} bytes */
const isBinary = (bytes) => !!bytes && bytes.subarray(0, 8000).includes(0);

/**
 * Git on a workspace: every call runs isomorphic-git on the workspace's own files (the same
 * files the agent and the files panel see). Commands on one repository run one at a time.
 */
export class WorkspaceGit {
  /** @type {Promise<unknown>} */
  #queue = Promise.resolve();

  /**
   * @param {FileSystem} fs the workspace file system
   * @param {{author?: {name: string, email: string}, onDamage?: import('../storage/damage.js').DamageSink}} [options]
   *   onDamage: told when the repository's index is damaged (commands that need it refuse until it is set aside)
   */
  constructor(fs, options = {}) {
    // Git writes its own .git and the user's files, never Clawser's other folders (enforced below git, in storage).
    this.raw = gitFileSystem(fs);
    /** isomorphic-git's promise fs over the workspace (no command cache: safe to keep). */
    this.fs = createGitFs(this.raw);
    this.author = options.author ?? DEFAULT_AUTHOR;
    this.onDamage = options.onDamage;
  }

  /**
   * A damaged index: reported (with a way to set it aside) and refused with a message that says
   * what to do. Setting it aside loses no commit: git reads the files anew, as if all were added.
   * @param {unknown} err
   */
  #damagedIndex(err) {
    const message = /** @type {Error} */ (err)?.message ?? '';
    if (!DAMAGED_INDEX.test(message) || err instanceof GitError) return null;
    const problem = /empty/i.test(message)
      ? 'empty: the file holds nothing'
      : /checksum/i.test(message)
        ? 'cut short or altered: its checksum does not match its content'
        : `not a git index git can read (${message})`;
    const what = 'The git index of this workspace (.git/index, what the next commit will hold)';
    this.onDamage?.({
      what,
      problem: `${problem}. Setting it aside loses no commit: git then sees every file anew`,
      path: INDEX_PATH,
      setAside: () => this.setAsideIndex(),
    });
    return new GitError('damaged', `${what} is damaged (${problem}). ${SET_ASIDE_HINT}`, { cause: err });
  }

  /** Sets a damaged `.git/index` aside (renamed, kept). Resolves to where it went. */
  setAsideIndex() {
    return this.#run(() => setAsideFile(this.raw, INDEX_PATH));
  }

  /**
   * Runs one git command with a fresh per-command adapter and cache, after the previous one; its
   * writes of the index are stored once at its end (git-fs.js).
   * @template T @param {(ctx: {fs: ReturnType<typeof createGitFs>, cache: object}) => Promise<T>} fn @returns {Promise<T>}
   */
  #run(fn) {
    const run = this.#queue
      .then(async () => {
        const fs = createGitFs(this.raw, { commandCache: true });
        // The index the command wrote is stored once, when it ends — also when it fails (as far as it got).
        try {
          return await fn({ fs, cache: {} });
        } finally {
          await fs.flush();
        }
      })
      .catch((err) => {
        throw this.#damagedIndex(err) ?? toGitError(err);
      });
    this.#queue = run.catch(() => {});
    return run;
  }

  async isRepo() {
    return !!(await this.raw.stat('.git/HEAD'));
  }

  /** Creates the repository (branch "main") if there is none. */
  ensureRepo() {
    return this.#run(({ fs }) => this.#ensure(fs));
  }

  /** @param {ReturnType<typeof createGitFs>} fs */
  async #ensure(fs) {
    if (!(await this.isRepo())) await git.init({ fs, dir: DIR, defaultBranch: 'main' });
  }

  /** @returns {Promise<FileStatus[]>} every tracked or untracked (not ignored) file, sorted by path */
  status() {
    return this.#run(async ({ fs, cache }) => {
      if (!(await this.isRepo())) return [];
      const matrix = await git.statusMatrix({ fs, dir: DIR, filter: isTracked, cache });
      return matrix.map(([path, head, workdir, stage]) => ({
        path,
        state: head === 0 ? 'new' : workdir === 0 ? 'deleted' : workdir === 1 ? 'unchanged' : 'modified',
        // stage: 0 absent, 1 same as HEAD, 2 same as workdir, 3 differs from both.
        staged: head === 1 ? stage !== 1 : stage !== 0,
        unstaged: workdir === 0 ? stage !== 0 : !(stage === 2 || (stage === 1 && workdir === 1)),
      }));
    });
  }

  /** Stages files: their current content, or their deletion. @param {string[]} paths */
  stage(paths) {
    return this.#run(async ({ fs, cache }) => {
      await this.#ensure(fs);
      const refused = paths.find((p) => !isTracked(p));
      if (refused) throw protectedPath(refused);
      const present = [];
      for (const filepath of paths) {
        if (await this.raw.stat(filepath)) present.push(filepath);
        else await git.remove({ fs, dir: DIR, filepath, cache });
      }
      if (present.length) await git.add({ fs, dir: DIR, filepath: present, cache });
    });
  }

  /** Takes files out of the next commit (back to their last committed state in the index). @param {string[]} paths */
  unstage(paths) {
    return this.#run(async ({ fs, cache }) => {
      for (const filepath of paths) await git.resetIndex({ fs, dir: DIR, filepath, cache });
    });
  }

  /**
   * Commits what is staged. Returns the commit id, or null when nothing is staged.
   * @param {{message: string, author?: {name: string, email: string}}} options
   */
  commit({ message, author = this.author }) {
    if (!message.trim()) return Promise.reject(new GitError('invalid_message', 'Write a commit message first.'));
    return this.#run(async ({ fs, cache }) => {
      await this.#ensure(fs);
      const matrix = await git.statusMatrix({ fs, dir: DIR, filter: isTracked, cache });
      const anyStaged = matrix.some(([, head, , stage]) => (head === 1 ? stage !== 1 : stage !== 0));
      if (!anyStaged) return null;
      return git.commit({ fs, dir: DIR, message, author, cache });
    });
  }

  /**
   * Stages every change (new, modified, deleted files) and commits. Returns the commit id,
   * or null when there was nothing to commit.
   * @param {{message: string, author?: {name: string, email: string}}} options
   */
  commitAll({ message, author = this.author }) {
    return this.#run(async ({ fs, cache }) => {
      await this.#ensure(fs);
      if (!(await this.raw.stat('.git/index'))) {
        // Nothing staged or committed yet: every file is new, so a listing replaces the status
        // walk (which stats and checks each file). add() still skips ignored files.
        const files = await this.#listFiles('');
        if (!files.length) return null;
        await git.add({ fs, dir: DIR, filepath: files, cache });
        return git.commit({ fs, dir: DIR, message, author, cache });
      }
      const matrix = await git.statusMatrix({ fs, dir: DIR, filter: isTracked, cache });
      const changed = matrix.filter(([, head, workdir, stage]) => !(head === 1 && workdir === 1 && stage === 1));
      if (!changed.length) return null;
      const toAdd = changed.filter(([, , workdir]) => workdir !== 0).map(([filepath]) => filepath);
      // One add of many paths: the files are hashed and written concurrently, the index once.
      if (toAdd.length) await git.add({ fs, dir: DIR, filepath: toAdd, cache });
      for (const [filepath] of changed.filter(([, , workdir]) => workdir === 0)) await git.remove({ fs, dir: DIR, filepath, cache });
      return git.commit({ fs, dir: DIR, message, author, cache });
    });
  }

  /**
   * Commits exactly `paths` as they are in the working copy now (a new, changed or deleted file;
   * a folder with everything under it) and nothing else: every other change, staged or not,
   * stays as it was (`git commit --only <paths>`). The index takes the committed content of
   * those paths. Files git ignores are left out unless already committed. Returns the commit
   * id, or null when those paths are as the last commit has them.
   * @param {string[]} paths @param {{message: string, author?: {name: string, email: string}}} options
   */
  commitPaths(paths, { message, author = this.author }) {
    if (!message.trim()) return Promise.reject(new GitError('invalid_message', 'Write a commit message first.'));
    return this.#run(async ({ fs, cache }) => {
      const roots = commitRoots(paths);
      await this.#ensure(fs);
      if (!roots.length) return null;
      const head = await git.resolveRef({ fs, dir: DIR, ref: 'HEAD' }).catch(() => null);
      const baseTree = head ? (await git.readCommit({ fs, dir: DIR, oid: head, cache })).commit.tree : null;
      const committed = new Set(head ? await git.listFiles({ fs, dir: DIR, ref: head, cache }) : []);
      /** @type {Map<string, TreeChange>} */
      const changes = new Map();
      /** The files each root now has (their blobs), for the index. @type {Map<string, string>} */
      const files = new Map();
      for (const root of roots) {
        const stat = await this.raw.stat(root);
        const found = stat?.kind === 'directory' ? await this.#listFiles(root) : stat ? [root] : [];
        /** @type {Map<string, TreeChange>} */
        const inside = new Map();
        for (const path of found) {
          // An ignored file is not committed unless the repository has it already.
          if (!committed.has(path) && (await git.isIgnored({ fs, dir: DIR, filepath: path }))) continue;
          const oid = await git.writeBlob({ fs, dir: DIR, blob: await this.raw.readBytes(path) });
          files.set(path, oid);
          inside.set(path === root ? '' : path.slice(root.length + 1), { file: oid });
        }
        changes.set(root, inside.get('') ?? (inside.size ? { tree: inside } : null));
      }
      const next = await this.#changeTree(fs, cache, baseTree, changes);
      if (next === baseTree || (!next && !head)) return null;
      // Every file deleted: the empty tree.
      const tree = next ?? (await git.writeTree({ fs, dir: DIR, tree: [] }));
      const oid = await git.commit({ fs, dir: DIR, message, author, tree, cache });
      // The index says what the commit has for these paths (what else is staged stays staged).
      for (const entry of await git.listFiles({ fs, dir: DIR, cache })) {
        if (roots.some((r) => entry === r || entry.startsWith(`${r}/`)) && !files.has(entry))
          await git.updateIndex({ fs, dir: DIR, cache, filepath: entry, remove: true, force: true });
      }
      for (const [filepath, blob] of files) await git.updateIndex({ fs, dir: DIR, cache, filepath, oid: blob, mode: 0o100644, add: true });
      return oid;
    });
  }

  /**
   * A tree with `changes` made to tree `oid` (null: an empty one). A change replaces the entry
   * at its path (relative to this tree) with a file, a tree of files (what a folder holds now),
   * or nothing. Returns the new tree's id, or null when it is empty.
   * @param {ReturnType<typeof createGitFs>} fs @param {object} cache @param {string | null} oid @param {Map<string, TreeChange>} changes
   * @returns {Promise<string | null>}
   */
  async #changeTree(fs, cache, oid, changes) {
    const entries = new Map((oid ? (await git.readTree({ fs, dir: DIR, oid, cache })).tree : []).map((e) => [e.path, e]));
    /** @type {Map<string, Map<string, TreeChange>>} */
    const below = new Map();
    for (const [path, change] of changes) {
      const [name, ...rest] = path.split('/');
      if (rest.length) {
        if (!below.has(name)) below.set(name, new Map());
        /** @type {Map<string, TreeChange>} */ (below.get(name)).set(rest.join('/'), change);
        continue;
      }
      entries.delete(name);
      // Files are 100644, as git.add makes them here (the workspace's files have no mode).
      if (change && 'file' in change) entries.set(name, { path: name, oid: change.file, type: 'blob', mode: '100644' });
      else if (change) {
        const sub = await this.#changeTree(fs, cache, null, change.tree);
        if (sub) entries.set(name, { path: name, oid: sub, type: 'tree', mode: '040000' });
      }
    }
    for (const [name, sub] of below) {
      const before = entries.get(name);
      const tree = await this.#changeTree(fs, cache, before?.type === 'tree' ? before.oid : null, sub);
      if (tree) entries.set(name, { path: name, oid: tree, type: 'tree', mode: '040000' });
      else if (before?.type === 'tree') entries.delete(name);
    }
    if (!entries.size) return null;
    return git.writeTree({ fs, dir: DIR, tree: [...entries.values()] });
  }

  /**
   * Every tracked file under `dir` (not .git or Clawser's own folders), folders listed concurrently.
   * @param {string} dir
   * @returns {Promise<string[]>}
   */
  async #listFiles(dir) {
    const entries = await this.raw.list(dir);
    const nested = await Promise.all(
      entries.map(async (e) => {
        const path = dir ? `${dir}/${e.name}` : e.name;
        if (!isTracked(path)) return [];
        return e.kind === 'directory' ? this.#listFiles(path) : [path];
      }),
    );
    return nested.flat();
  }

  /**
   * Commits, newest first. `filepath` limits to commits that changed that file.
   * @param {{depth?: number, ref?: string, filepath?: string}} [options]
   * @returns {Promise<CommitInfo[]>}
   */
  log({ depth = 50, ref = 'HEAD', filepath } = {}) {
    return this.#run(async ({ fs, cache }) => {
      try {
        const commits = await git.log({ fs, dir: DIR, depth, ref, filepath, cache });
        return commits.map((c) => ({
          oid: c.oid,
          message: c.commit.message.trim(),
          author: c.commit.author.name,
          email: c.commit.author.email,
          timestamp: c.commit.author.timestamp * 1000,
          parents: c.commit.parent,
        }));
      } catch (err) {
        if (/** @type {{code?: string}} */ (err).code === 'NotFoundError') return [];
        throw err;
      }
    });
  }

  /**
   * A file's bytes at a commit (or branch), null when it did not exist there.
   * @param {string} ref commit id or branch @param {string} filepath
   */
  readFileAt(ref, filepath) {
    return this.#run(({ fs, cache }) => this.#blobAt(fs, cache, ref, filepath));
  }

  /**
   * A branch, tag, HEAD, full or abbreviated commit id → full commit id.
   * @param {ReturnType<typeof createGitFs>} fs @param {object} cache @param {string} ref
   */
  async #resolve(fs, cache, ref) {
    try {
      return await git.resolveRef({ fs, dir: DIR, ref });
    } catch {
      if (!/^[0-9a-f]{4,40}$/i.test(ref)) throw new GitError('not_found', `There is no commit or branch "${ref}".`);
      try {
        return await git.expandOid({ fs, dir: DIR, oid: ref.toLowerCase(), cache });
      } catch (err) {
        const code = /** @type {{code?: string}} */ (err).code;
        if (code === 'AmbiguousError') throw new GitError('not_found', `"${ref}" matches several commits; give more characters of its id.`);
        throw new GitError('not_found', `There is no commit "${ref}".`);
      }
    }
  }

  /** @param {ReturnType<typeof createGitFs>} fs @param {object} cache @param {string} ref @param {string} filepath */
  async #blobAt(fs, cache, ref, filepath) {
    // Before the first commit HEAD names nothing: every file is new.
    const oid = await this.#resolve(fs, cache, ref).catch((err) => {
      if (ref === 'HEAD') return null;
      throw err;
    });
    if (!oid) return null;
    try {
      return (await git.readBlob({ fs, dir: DIR, oid, filepath, cache })).blob;
    } catch (err) {
      const code = /** @type {{code?: string}} */ (err).code;
      if (code === 'NotFoundError' || code === 'ObjectTypeError') return null;
      throw err;
    }
  }

  /** @param {ReturnType<typeof createGitFs>} fs @param {object} cache @param {string} filepath */
  async #indexBlob(fs, cache, filepath) {
    /** @type {Uint8Array | null} */
    let found = null;
    await git.walk({
      fs,
      dir: DIR,
      cache,
      trees: [git.STAGE()],
      map: async (path, [entry]) => {
        if (path === '.' || filepath === path || filepath.startsWith(path + '/')) {
          // Index entries carry an object id, not content.
          if (path === filepath && entry && (await entry.type()) === 'blob')
            found = (await git.readBlob({ fs, dir: DIR, oid: await entry.oid(), cache })).blob;
          return true;
        }
        return null;
      },
    });
    return found;
  }

  /**
   * Line diff of one file. `from`: 'HEAD' (default), 'INDEX' or a commit id; `to`: 'WORKDIR'
   * (default), 'INDEX' or a commit id.
   * @param {string} filepath @param {{from?: string, to?: string}} [options]
   * @returns {Promise<FileDiff>}
   */
  diffFile(filepath, { from = 'HEAD', to = 'WORKDIR' } = {}) {
    return this.#run(async ({ fs, cache }) => {
      const side = async (/** @type {string} */ which) => {
        if (which === 'WORKDIR') return this.raw.readBytes(filepath).catch(() => null);
        if (which === 'INDEX') return this.#indexBlob(fs, cache, filepath);
        return this.#blobAt(fs, cache, which, filepath);
      };
      const [a, b] = await Promise.all([side(from), side(to)]);
      return fileDiff(filepath, a, b);
    });
  }

  /**
   * What a commit changed compared with its first parent (everything, for the first commit).
   * @param {string} ref commit id (may be abbreviated) or branch @returns {Promise<FileDiff[]>}
   */
  diffCommit(ref) {
    return this.#run(async ({ fs, cache }) => {
      const oid = await this.#resolve(fs, cache, ref);
      const { commit } = await git.readCommit({ fs, dir: DIR, oid, cache });
      return this.#treeDiff(fs, cache, commit.parent[0] ?? null, oid);
    });
  }

  /**
   * What changed from one commit to another (`git diff A B`): any two commits, in either order.
   * @param {string} from @param {string} to commit ids (may be abbreviated), branches or HEAD
   * @returns {Promise<FileDiff[]>}
   */
  diffCommits(from, to) {
    return this.#run(async ({ fs, cache }) => {
      const [a, b] = [await this.#resolve(fs, cache, from), await this.#resolve(fs, cache, to)];
      return this.#treeDiff(fs, cache, a, b);
    });
  }

  /**
   * The full id of a commit, branch or HEAD, or null when `ref` names none (the shell tells
   * `git diff <commit>` from `git diff <path>` by this, as git does).
   * @param {string} ref @returns {Promise<string | null>}
   */
  resolveCommit(ref) {
    return this.#run(({ fs, cache }) => this.#resolve(fs, cache, ref).catch(() => null));
  }

  /**
   * File diffs between two commits' trees (`before` null: everything in `after` is added).
   * @param {ReturnType<typeof createGitFs>} fs @param {object} cache @param {string | null} before @param {string} after
   */
  async #treeDiff(fs, cache, before, after) {
    const trees = before ? [git.TREE({ ref: before }), git.TREE({ ref: after })] : [git.TREE({ ref: after })];
    /** @type {FileDiff[]} */
    const out = [];
    await git.walk({
      fs,
      dir: DIR,
      cache,
      trees,
      map: async (path, entries) => {
        if (path === '.') return true;
        const [old, now] = before ? entries : [null, entries[0]];
        const [to, tn] = await Promise.all([old?.type(), now?.type()]);
        if (to === 'tree' || tn === 'tree') return true;
        const [oo, on] = await Promise.all([old?.oid(), now?.oid()]);
        if (oo === on) return null;
        const [co, cn] = await Promise.all([old ? old.content() : null, now ? now.content() : null]);
        out.push(fileDiff(path, co ?? null, cn ?? null));
        return null;
      },
    });
    return out.sort((x, y) => x.path.localeCompare(y.path));
  }

  /** @returns {Promise<{current: string | null, branches: string[]}>} */
  branches() {
    return this.#run(async ({ fs }) => {
      if (!(await this.isRepo())) return { current: null, branches: [] };
      const [current, branches] = await Promise.all([git.currentBranch({ fs, dir: DIR }), git.listBranches({ fs, dir: DIR })]);
      return { current: current ?? null, branches: branches.sort() };
    });
  }

  /**
   * Creates a branch at the current commit (or `from`); `checkout` switches to it.
   * @param {string} name @param {{checkout?: boolean, from?: string}} [options]
   * @returns {Promise<{skipped: number}>} skipped: files of Clawser's own folders the checkout left out
   */
  async createBranch(name, { checkout = false, from } = {}) {
    checkBranchName(name);
    return this.#run(async ({ fs }) => {
      const existing = await git.listBranches({ fs, dir: DIR });
      if (existing.includes(name)) throw new GitError('branch_exists', `A branch named "${name}" already exists.`);
      const object = from ? await this.#resolve(fs, {}, from) : await git.resolveRef({ fs, dir: DIR, ref: 'HEAD' }).catch(() => null);
      if (!object) throw new GitError('no_commits', 'Make a first commit before creating branches.');
      await git.branch({ fs, dir: DIR, ref: name, object, checkout: false });
      return checkout ? this.#switch(fs, name, false) : { skipped: 0 };
    });
  }

  /** @param {string} name */
  deleteBranch(name) {
    return this.#run(async ({ fs }) => {
      if ((await git.currentBranch({ fs, dir: DIR })) === name)
        throw new GitError('current_branch', `"${name}" is the current branch; switch to another branch before deleting it.`);
      if (!(await git.listBranches({ fs, dir: DIR })).includes(name))
        throw new GitError('branch_not_found', `There is no branch named "${name}".`);
      await git.deleteBranch({ fs, dir: DIR, ref: name });
    });
  }

  /**
   * Switches the working copy to a branch. Refuses when files have uncommitted changes,
   * unless `force` (which discards them).
   * @param {string} name @param {{force?: boolean}} [options]
   * @returns {Promise<{skipped: number}>} skipped: files of Clawser's own folders left out
   */
  switchBranch(name, { force = false } = {}) {
    return this.#run(async ({ fs }) => this.#switch(fs, name, force));
  }

  /**
   * Tracked files with uncommitted changes (untracked files do not count: checkout and pull keep them).
   * @param {ReturnType<typeof createGitFs>} fs @param {object} cache
   */
  async #dirtyPaths(fs, cache) {
    const matrix = await git.statusMatrix({ fs, dir: DIR, filter: isTracked, cache });
    return matrix.filter(([, head, workdir, stage]) => head !== 0 && !(head === 1 && workdir === 1 && stage === 1)).map(([p]) => p);
  }

  /** @param {ReturnType<typeof createGitFs>} fs @param {string} name @param {boolean} force */
  async #switch(fs, name, force) {
    if (!(await git.listBranches({ fs, dir: DIR })).includes(name))
      throw new GitError('branch_not_found', `There is no branch named "${name}".`);
    if (!force) {
      const dirty = await this.#dirtyPaths(fs, {});
      if (dirty.length) {
        throw new GitError(
          'dirty_worktree',
          `Commit or discard the changes to ${dirty.slice(0, 3).join(', ')}${dirty.length > 3 ? ` and ${dirty.length - 3} more` : ''} ` +
            `before switching branches.`,
        );
      }
    }
    return { skipped: await this.#checkout(fs, {}, name, force) };
  }

  /**
   * Checks `ref` out into the working tree, except Clawser's own folders: only the top-level
   * entries git may write are walked, and the index copies the commit's entries for the left-out
   * files without touching the working tree (like git's skip-worktree), so the next commit
   * keeps the repository's copies instead of deleting them. Returns how many were left out.
   * @param {ReturnType<typeof createGitFs>} fs @param {object} cache @param {string} ref @param {boolean} force
   */
  async #checkout(fs, cache, ref, force) {
    const oid = await git.resolveRef({ fs, dir: DIR, ref });
    const [{ tree }, indexed] = await Promise.all([git.readTree({ fs, dir: DIR, oid, cache }), git.listFiles({ fs, dir: DIR, cache })]);
    const tops = new Set([...tree.map((e) => e.path), ...indexed.map((p) => p.split('/')[0])].filter((p) => isTracked(p)));
    await git.checkout({ fs, dir: DIR, ref, force, filepaths: [...tops], cache });
    return this.#indexInternal(fs, cache, oid);
  }

  /**
   * Points the index entries of Clawser's own folders at commit `oid`'s (adding, changing,
   * removing entries; the working tree is not touched). Returns how many files the commit has there.
   * @param {ReturnType<typeof createGitFs>} fs @param {object} cache @param {string} oid
   */
  async #indexInternal(fs, cache, oid) {
    /** @type {{filepath: string, oid: string, mode: number}[]} */
    const put = [];
    /** @type {string[]} */
    const drop = [];
    let count = 0;
    await git.walk({
      fs,
      dir: DIR,
      cache,
      trees: [git.TREE({ ref: oid }), git.STAGE()],
      map: async (path, [inTree, inIndex]) => {
        if (path === '.') return true;
        if (isTracked(path)) return null;
        const [tt, it] = await Promise.all([inTree?.type(), inIndex?.type()]);
        if (tt === 'tree' || it === 'tree') return true;
        if (inTree && tt === 'blob') {
          count++;
          const [want, have] = await Promise.all([inTree.oid(), inIndex?.oid()]);
          if (want !== have) put.push({ filepath: path, oid: want, mode: await inTree.mode() });
        } else if (inIndex) drop.push(path);
        return null;
      },
    });
    for (const e of put) await git.updateIndex({ fs, dir: DIR, cache, filepath: e.filepath, oid: e.oid, mode: e.mode, add: true });
    for (const filepath of drop) await git.updateIndex({ fs, dir: DIR, cache, filepath, remove: true, force: true });
    return count;
  }

  /** Checks the current branch out into the working tree (after a clone without checkout). Returns how many files were left out. */
  checkoutHead() {
    return this.#run(async ({ fs, cache }) => this.#checkout(fs, cache, (await git.currentBranch({ fs, dir: DIR })) ?? 'HEAD', false));
  }

  /** @returns {Promise<{remote: string, url: string}[]>} */
  remotes() {
    return this.#run(async ({ fs }) => ((await this.isRepo()) ? git.listRemotes({ fs, dir: DIR }) : []));
  }

  /** Sets the URL of a remote ("origin" by default), replacing it. @param {string} url @param {string} [remote] */
  setRemote(url, remote = 'origin') {
    if (!/^https?:\/\/[^\s]+$/.test(url.trim()))
      return Promise.reject(new GitError('invalid_name', 'The remote must be an http(s) URL of a git repository.'));
    return this.#run(async ({ fs }) => {
      await this.#ensure(fs);
      await git.addRemote({ fs, dir: DIR, remote, url: url.trim(), force: true });
    });
  }

  /** @param {ReturnType<typeof createGitFs>} fs @param {string} remote */
  async #remoteUrl(fs, remote) {
    const found = (await git.listRemotes({ fs, dir: DIR })).find((r) => r.remote === remote);
    if (!found) throw new GitError('no_remote', 'This workspace has no remote yet: set its URL in the git panel.');
    return found.url;
  }

  /**
   * Fetches the current branch from the remote and merges it (fast-forward, or a merge commit
   * when histories diverged without conflicts). Refuses with uncommitted changes.
   * @param {RemoteOptions & {remote?: string, author?: {name: string, email: string}}} [options]
   * @returns {Promise<{skipped: number}>} skipped: files of Clawser's own folders left out
   */
  pull(options = {}) {
    return this.#run(async ({ fs, cache }) => {
      const url = await this.#remoteUrl(fs, options.remote ?? 'origin');
      if ((await this.#dirtyPaths(fs, cache)).length) throw new GitError('dirty_worktree', 'Commit your changes before pulling.');
      const ref = (await git.currentBranch({ fs, dir: DIR })) ?? 'main';
      const remote = options.remote ?? 'origin';
      try {
        // git.pull's own checkout would write every path: fetch and merge, then check out through #checkout.
        const { fetchHead, fetchHeadDescription } = await git.fetch({
          fs,
          dir: DIR,
          ...remoteArgs(options, url),
          url: undefined,
          remote,
          ref,
          singleBranch: true,
          cache,
        });
        if (!fetchHead) return { skipped: 0 };
        await git.merge({
          fs,
          dir: DIR,
          ours: ref,
          theirs: fetchHead,
          fastForward: true,
          message: `Merge ${fetchHeadDescription}`,
          author: options.author ?? this.author,
          cache,
        });
        return { skipped: await this.#checkout(fs, cache, ref, false) };
      } catch (err) {
        throw remoteError(err, url, options);
      }
    });
  }

  /** Pushes the current branch. @param {RemoteOptions & {remote?: string, force?: boolean}} [options] */
  push(options = {}) {
    return this.#run(async ({ fs }) => {
      const url = await this.#remoteUrl(fs, options.remote ?? 'origin');
      const ref = (await git.currentBranch({ fs, dir: DIR })) ?? 'main';
      try {
        const result = await git.push({
          fs,
          dir: DIR,
          ...remoteArgs(options, url),
          url: undefined,
          remote: options.remote ?? 'origin',
          ref,
          force: options.force,
        });
        if (!result.ok)
          throw new GitError(
            'non_fast_forward',
            `The remote refused the push: ${result.error ?? 'unknown reason'}. Pull first, then push again.`,
          );
        return result;
      } catch (err) {
        throw remoteError(err, url, options);
      }
    });
  }

  /**
   * Restores files of the working copy to their content at a commit: one file (`filepath`),
   * or the whole tree (tracked files absent from that commit are deleted). HEAD does not move:
   * the restored state shows as changes to commit, so nothing in history is lost. Files of
   * Clawser's own folders in the commit are left out (and counted).
   * A whole-tree restore never discards work that is not committed: a file whose content the
   * repository does not hold (the user's uncommitted edits, a new file) or that is staged is
   * left as it is and named in `kept`. What it replaces is in the repository (a commit's
   * content, what an earlier restore wrote) and can be restored again.
   * @param {string} ref commit id or branch
   * @param {{filepath?: string, onChange?: (path: string) => Promise<void>}} [options] onChange: told before each file is changed
   * @returns {Promise<{changed: string[], skipped: number, kept: string[]}>} the paths that changed; how many were left out; the paths kept
   */
  restore(ref, { filepath, onChange } = {}) {
    if (filepath && !isTracked(filepath)) return Promise.reject(protectedPath(filepath));
    return this.#run(async ({ fs, cache }) => {
      const oid = await this.#resolve(fs, cache, ref);
      const files = (await git.listFiles({ fs, dir: DIR, ref: oid, cache })).filter((p) => !filepath || p === filepath);
      const skipped = files.filter((p) => !isTracked(p)).length;
      const target = new Map(files.filter((p) => isTracked(p)).map((p) => [p, true]));
      const matrix = filepath ? [] : await git.statusMatrix({ fs, dir: DIR, filter: isTracked, cache });
      const current = filepath ? [filepath] : matrix.map(([p]) => p);
      // Staged and not committed: the user's work too.
      const staged = new Set(matrix.filter(([, head, , stage]) => (head === 1 ? stage !== 1 : stage !== 0)).map(([p]) => p));
      /** @type {string[]} */
      const changed = [];
      /** @type {string[]} */
      const kept = [];
      for (const path of new Set([...target.keys(), ...current])) {
        const wanted = target.has(path) ? await this.#blobAt(fs, cache, oid, path) : null;
        const now = await this.raw.readBytes(path).catch(() => null);
        if (wanted === null && now === null) continue;
        if (wanted && now && wanted.length === now.length && wanted.every((b, i) => b === now[i])) continue;
        if (!filepath && now && (staged.has(path) || !(await this.#holds(fs, cache, now)))) {
          kept.push(path);
          continue;
        }
        await onChange?.(path);
        if (wanted) await this.raw.write(path, wanted);
        else await this.raw.delete(path);
        changed.push(path);
      }
      if (filepath && !target.size && !changed.length) throw new GitError('not_found', `"${filepath}" is not in that commit.`);
      return { changed, skipped, kept: kept.sort() };
    });
  }

  /**
   * Whether the repository holds these bytes as an object (a commit's or the index's file).
   * @param {ReturnType<typeof createGitFs>} fs
   * @param {object} cache
   * @param {Uint8Array} bytes
   */
  async #holds(fs, cache, bytes) {
    const { oid } = await git.hashBlob({ object: bytes });
    try {
      await git.readObject({ fs, dir: DIR, oid, format: 'deflated', cache });
      return true;
    } catch (err) {
      if (/** @type {{code?: string}} */ (err).code === 'NotFoundError') return false;
      throw err;
    }
  }
}

/**
 * What replaces an entry of a tree: a file (its blob), a tree of such changes (relative paths;
 * the old entries go), or nothing.
 * @typedef {{file: string} | {tree: Map<string, TreeChange>} | null} TreeChange
 */

/**
 * The paths a commit of `paths` covers: normalized, Clawser's own folders left out, and a path
 * inside another one dropped (the folder covers it). A ".." is refused.
 * @param {string[]} paths
 */
export function commitRoots(paths) {
  const clean = new Set();
  for (const p of paths) {
    const parts = p.split('/').filter((x) => x && x !== '.');
    if (parts.includes('..')) throw new GitError('invalid_path', `"${p}" leaves the workspace.`);
    const path = parts.join('/');
    if (path && isTracked(path)) clean.add(path);
  }
  const sorted = [...clean].sort();
  return sorted.filter((p) => !sorted.some((q) => q !== p && p.startsWith(`${q}/`)));
}

/**
 * @typedef {{token?: string, corsProxy?: string, onProgress?: (p: {phase: string, loaded: number, total?: number}) => void}} RemoteOptions
 *   token: an access token sent as HTTP Basic password (GitHub, GitLab, Gitea accept this);
 *   corsProxy: a URL prefix that relays git's requests for servers that do not allow browsers.
 */

/** @param {RemoteOptions} options @param {string} url */
function remoteArgs(options, url) {
  const token = options.token?.trim();
  return {
    // Every fetch's pack is counted against the archive limits before git writes or indexes any of it.
    http: guardedHttp(http, { onProgress: options.onProgress }),
    corsProxy: options.corsProxy?.trim() || undefined,
    onAuth: () => (token ? { username: 'x-access-token', password: token } : { cancel: true }),
    // A refused token is not retried: it would only be refused again.
    onAuthFailure: () => ({ cancel: true }),
    onProgress: options.onProgress
      ? (/** @type {{phase: string, loaded: number, total?: number}} */ p) =>
          options.onProgress?.({ phase: p.phase, loaded: p.loaded, total: p.total })
      : undefined,
    url,
  };
}

/** @param {unknown} err @param {string} url @param {RemoteOptions} options @param {boolean} [clone] */
const remoteError = (err, url, options, clone) =>
  toGitError(err, { url, corsProxy: options.corsProxy, hasToken: !!options.token?.trim(), clone });

/**
 * Clones a repository into an empty workspace file system, leaving Clawser's own folders out
 * of the working tree (`skipped` counts those files, for the user).
 * @param {FileSystem} fs @param {string} url @param {RemoteOptions & {ref?: string, depth?: number}} [options]
 * @returns {Promise<{repo: WorkspaceGit, skipped: number}>}
 */
export async function cloneInto(fs, url, options = {}) {
  const repo = new WorkspaceGit(fs);
  const gfs = createGitFs(repo.raw);
  const hadGit = await repo.isRepo();
  try {
    // git.clone's checkout would write every path: fetch only, then check out through the filter.
    await git.clone({
      fs: gfs,
      dir: DIR,
      ...remoteArgs(options, url),
      ref: options.ref,
      singleBranch: true,
      depth: options.depth,
      noCheckout: true,
    });
  } catch (err) {
    // isomorphic-git's own clean-up cannot remove a folder that is not empty: nothing half-cloned stays.
    if (!hadGit) await repo.raw.delete('.git').catch(() => {});
    throw remoteError(err, url, options, true);
  }
  const head = await git.currentBranch({ fs: gfs, dir: DIR }).catch(() => undefined);
  // An empty repository has no commit to check out.
  if (!head || !(await git.resolveRef({ fs: gfs, dir: DIR, ref: head }).catch(() => null))) return { repo, skipped: 0 };
  return { repo, skipped: await repo.checkoutHead() };
}

/**
 * @param {string} path @param {Uint8Array | null} a @param {Uint8Array | null} b
 * @returns {FileDiff}
 */
export function fileDiff(path, a, b) {
  const change = a === null ? 'added' : b === null ? 'deleted' : 'modified';
  if (isBinary(a) || isBinary(b)) return { path, change, binary: true, hunks: [] };
  if ((a?.length ?? 0) > MAX_DIFF_BYTES || (b?.length ?? 0) > MAX_DIFF_BYTES)
    return { path, change, binary: false, hunks: [], tooLarge: true };
  const patch = structuredPatch(path, path, a ? decoder.decode(a) : '', b ? decoder.decode(b) : '', '', '', { context: 3 });
  return {
    path,
    change,
    binary: false,
    hunks: patch.hunks.map((h) => ({
      oldStart: h.oldStart,
      oldLines: h.oldLines,
      newStart: h.newStart,
      newLines: h.newLines,
      lines: h.lines,
    })),
  };
}

/**
 * A hunk's range as git writes it: `start,count`, the count left out when it is 1, and an empty
 * range given as the line before it (jsdiff counts an insertion at the top as `1,0`, git as `0,0`).
 * @param {number} start @param {number} count
 */
function hunkRange(start, count) {
  if (count === 1) return `${start}`;
  return `${count === 0 ? Math.max(0, start - 1) : start},${count}`;
}

/** A unified-diff text of file diffs, as `git diff` prints it (the terminal's and the agent's git_diff tool). @param {FileDiff[]} diffs */
export function formatDiff(diffs) {
  return diffs
    .map((d) => {
      const [a, b] = [d.change === 'added' ? '/dev/null' : `a/${d.path}`, d.change === 'deleted' ? '/dev/null' : `b/${d.path}`];
      const head = `diff --git a/${d.path} b/${d.path}`;
      if (d.binary) return `${head}\nBinary files ${a} and ${b} differ`;
      if (d.tooLarge) return `${head}\n--- ${a}\n+++ ${b}\nFile too large to diff`;
      const hunks = d.hunks.map(
        (h) => `@@ -${hunkRange(h.oldStart, h.oldLines)} +${hunkRange(h.newStart, h.newLines)} @@\n${h.lines.join('\n')}`,
      );
      return [`${head}\n--- ${a}\n+++ ${b}`, ...hunks].join('\n');
    })
    .join('\n');
}

/** `git diff --name-status` (`M\tpath`) or `--name-only` lines of file diffs. @param {FileDiff[]} diffs @param {boolean} [withStatus] */
export function formatNameStatus(diffs, withStatus = true) {
  const letter = { added: 'A', deleted: 'D', modified: 'M' };
  return diffs.map((d) => (withStatus ? `${letter[d.change]}\t${d.path}` : d.path)).join('\n');
}
