/** @import { FileSystem } from '../storage/types.d.ts' */
import { ScopedFileSystem } from '../storage/scoped-fs.js';
import { OpfsFileSystem } from '../storage/opfs-fs.js';
import { createGitFs } from '../git/git-fs.js';

/** @type {OpfsFileSystem | null} one storage worker for every workspaceFs() of the page */
let shared = null;

/**
 * A workspace's file system — the very files the agent, the files panel and git see — as
 * Clawser's FileSystem (`readText`, `write`, `list`, …) that also satisfies isomorphic-git's
 * promise `fs` interface (`promises.readFile/writeFile/unlink/readdir/mkdir/rmdir/stat/lstat/
 * readlink/symlink`), so any isomorphic-git command runs on it:
 * `git.log({ fs: workspaceFs(id), dir: '/' })`.
 * @param {string} workspaceId
 * @param {{fs?: FileSystem}} [options] the storage root (default: this page's OPFS)
 * @returns {ScopedFileSystem & {promises: ReturnType<typeof createGitFs>['promises']}}
 */
export function workspaceFs(workspaceId, options = {}) {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(workspaceId)) throw new TypeError(`"${workspaceId}" is not a workspace id.`);
  const root = options.fs ?? (shared ??= new OpfsFileSystem());
  const scoped = new ScopedFileSystem(root, `clawser_workspaces/${workspaceId}`);
  return Object.assign(scoped, { promises: createGitFs(scoped).promises });
}
