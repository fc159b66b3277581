import { offlineExplains, offlineMessage } from '../net/offline.js';

/**
 * @typedef {'invalid_name' | 'invalid_message' | 'branch_exists' | 'branch_not_found' | 'current_branch' | 'dirty_worktree'
 *   | 'no_commits' | 'not_found' | 'auth_failed' | 'cors' | 'network' | 'non_fast_forward' | 'merge_conflict'
 *   | 'remote_not_found' | 'no_remote' | 'protected' | 'invalid_path' | 'damaged' | 'git'} GitErrorCode
 */

/** A git failure with a stable code and a message a user can act on. */
export class GitError extends Error {
  /** @param {GitErrorCode} code @param {string} message @param {{cause?: unknown}} [options] */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'GitError';
    this.code = code;
  }
}

/**
 * Maps isomorphic-git's and fetch's errors to GitErrors. `url`/`corsProxy` make network
 * messages specific; `hasToken` tells a refused token from a missing one; `clone`: a clone into
 * a new workspace, whose advice points to the clone's own fields (there are no workspace settings yet).
 * @param {unknown} err @param {{url?: string, corsProxy?: string, hasToken?: boolean, clone?: boolean}} [context]
 * @returns {Error}
 */
export function toGitError(err, context = {}) {
  if (err instanceof GitError) return err;
  const e = /** @type {Error & {code?: string, data?: any}} */ (err); // isomorphic-git errors carry code + data
  const code = e?.code;
  const where = context.url ? ` (${context.url})` : '';
  if (code === 'HttpError') {
    const status = e.data?.statusCode;
    if ((status === 401 || status === 403) && context.hasToken === false) return noToken(where, err, context.clone);
    if (status === 401 || status === 403)
      return new GitError(
        'auth_failed',
        `The server refused the credentials${where}: check the access token and that it may ${status === 403 ? 'write to' : 'read'} ` +
          `this repository.`,
        { cause: err },
      );
    if (status === 404)
      return new GitError('remote_not_found', `No repository at that address${where} (HTTP 404). Check the URL.`, { cause: err });
    return new GitError('network', `The git server answered HTTP ${status ?? '?'} ${e.data?.statusMessage ?? ''}${where}.`, { cause: err });
  }
  if (code === 'PushRejectedError' || code === 'FastForwardError') {
    return new GitError('non_fast_forward', 'The remote has commits you do not have yet. Pull first, then push again.', { cause: err });
  }
  if (code === 'MergeConflictError' || code === 'MergeNotSupportedError') {
    return new GitError(
      'merge_conflict',
      `Your changes and the remote's conflict${e.data?.filepaths ? ` in ${e.data.filepaths.join(', ')}` : ''}. Clawser can only ` +
        `fast-forward or merge without conflicts; resolve it on another machine or start a branch.`,
      { cause: err },
    );
  }
  if (code === 'CheckoutConflictError') {
    return new GitError('dirty_worktree', `Commit or discard your changes to ${(e.data?.filepaths ?? []).slice(0, 3).join(', ')} first.`, {
      cause: err,
    });
  }
  if (code === 'NotFoundError') return new GitError('not_found', `Not found: ${e.data?.what ?? e.message}.`, { cause: err });
  // onAuthFailure cancels after the server refused the token; onAuth cancels when there is none.
  if (code === 'UserCanceledError') {
    return context.hasToken
      ? new GitError(
          'auth_failed',
          `The server refused the credentials${where}: check the access token and that it may read and write this repository.`,
          { cause: err },
        )
      : noToken(where, err, context.clone);
  }
  // fetch() rejects with a TypeError and no detail when CORS blocks the response or the host is unreachable.
  if (e instanceof TypeError && /fetch|network/i.test(e.message)) {
    // The request went to the proxy when there is one: a local proxy needs no internet.
    if (offlineExplains(context.corsProxy || context.url))
      return new GitError('network', offlineMessage(`the git server${where}`), { cause: err });
    return new GitError(
      'cors',
      context.corsProxy
        ? `Could not reach the git server through the CORS proxy ${context.corsProxy}${where}. Check that the proxy is running and ` +
            `allows this page's origin.`
        : `The browser could not reach the git server${where}: it is offline, or it does not allow requests from web pages (CORS). ` +
            (context.clone
              ? 'Give a CORS proxy (a server you trust that relays the requests) in “CORS proxy” and clone again.'
              : "Set a CORS proxy in the workspace's git settings."),
      { cause: err },
    );
  }
  return err instanceof Error ? err : new GitError('git', String(err));
}

/** @param {string} where @param {unknown} cause @param {boolean} [clone] */
const noToken = (where, cause, clone) =>
  new GitError(
    'auth_failed',
    `The server asks for credentials${where}: ` +
      `${clone ? 'give an access token and clone again' : 'add an access token in the git settings'}.`,
    { cause },
  );

/** The user-facing note about what a checkout left out ('' when nothing was). @param {number} skipped */
export function skippedNote(skipped) {
  if (!skipped) return '';
  return `${skipped} ${
    skipped === 1 ? "file of Clawser's own folders in this repository was" : "files of Clawser's own folders in this " + 'repository were'
  } not checked out.`;
}

/**
 * What a whole-workspace restore left as it was (files with changes not committed), for the
 * user or the agent: "" when nothing, else a sentence starting with a space.
 * @param {string[]} kept
 */
export function keptNote(kept) {
  if (!kept.length) return '';
  return (
    ` Kept ${kept.length === 1 ? '1 file' : `${kept.length} files`} with changes not committed ` +
    `as ${kept.length === 1 ? 'it is' : 'they are'}: ${kept.slice(0, 10).join(', ')}${kept.length > 10 ? ', …' : ''} ` +
    `(restore ${kept.length === 1 ? 'it' : 'one'} by name to replace it).`
  );
}
