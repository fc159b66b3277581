/** @import { FileSystem } from '../storage/types.d.ts' */
import git from 'isomorphic-git';
import { createGitFs } from './git-fs.js';
import { PROTECTED_SEGMENTS } from '../safety/tool-call-validator.js';

/** Clawser's own folders never enter the repository. @param {string} filepath */
export function isTracked(filepath) {
  const first = filepath.split('/')[0]?.toLowerCase() ?? '';
  return !PROTECTED_SEGMENTS.includes(first);
}

const DIR = '/';
export const DEFAULT_AUTHOR = { name: 'Clawser', email: 'clawser@localhost' };

/**
 * Git on a workspace: every call runs isomorphic-git on the workspace's own files.
 */
export class WorkspaceGit {
  /** @param {FileSystem} fs the workspace file system */
  constructor(fs) {
    this.fs = createGitFs(fs);
    this.raw = fs;
  }

  async isRepo() {
    return !!(await this.raw.stat('.git/HEAD'));
  }

  /** Creates the repository if there is none. */
  async ensureRepo() {
    if (!(await this.isRepo())) await git.init({ fs: this.fs, dir: DIR, defaultBranch: 'main' });
  }

  /** @returns {Promise<{path: string, state: 'new' | 'modified' | 'deleted' | 'unchanged', staged: boolean}[]>} */
  async status() {
    const matrix = await git.statusMatrix({ fs: createGitFs(this.raw, { commandCache: true }), dir: DIR, filter: isTracked, cache: {} });
    return matrix.map(([path, head, workdir, stage]) => ({
      path,
      state: head === 0 ? 'new' : workdir === 0 ? 'deleted' : head === 1 && workdir === 1 ? 'unchanged' : 'modified',
      staged: stage !== head && (stage === workdir || (workdir === 0 && stage === 0)),
    }));
  }

  /**
   * Stages every change (new, modified, deleted files) and commits. Returns the commit id,
   * or null when there was nothing to commit.
   * @param {{message: string, author?: {name: string, email: string}}} options
   */
  async commitAll({ message, author = DEFAULT_AUTHOR }) {
    await this.ensureRepo();
    // One cache for the whole operation: isomorphic-git keeps the parsed index and packs in it.
    const cache = {};
    const fs = createGitFs(this.raw, { commandCache: true });
    const matrix = await git.statusMatrix({ fs, dir: DIR, filter: isTracked, cache });
    const changed = matrix.filter(([, head, workdir, stage]) => !(head === 1 && workdir === 1 && stage === 1));
    if (!changed.length) return null;
    const toAdd = changed.filter(([, , workdir]) => workdir !== 0).map(([filepath]) => filepath);
    // One add of many paths: the files are hashed and written concurrently, the index once.
    if (toAdd.length) await git.add({ fs, dir: DIR, filepath: toAdd, cache });
    for (const [filepath] of changed.filter(([, , workdir]) => workdir === 0)) await git.remove({ fs, dir: DIR, filepath, cache });
    return git.commit({ fs, dir: DIR, message, author, cache });
  }

  /** @param {number} [depth] */
  async log(depth = 50) {
    try {
      const commits = await git.log({ fs: this.fs, dir: DIR, depth });
      return commits.map((c) => ({ oid: c.oid, message: c.commit.message.trim(), author: c.commit.author.name, timestamp: c.commit.author.timestamp * 1000 }));
    } catch (err) {
      if (/** @type {{code?: string}} */ (err).code === 'NotFoundError') return [];
      throw err;
    }
  }
}
