/** @import { WorkspaceGit, FileDiff } from '../git/git.js' */
/** @import { GitState, GitPanelController } from '../ui/types.d.ts' */
/** @import { AgentSettingsStore } from './agent-settings.js' */
import { skippedNote, keptNote } from '../git/errors.js';

/** An outcome plus, when a checkout left files of Clawser's own folders out, the count. @param {string} text @param {number} skipped */
const withSkipped = (text, skipped) => (skipped ? `${text} ${skippedNote(skipped)}` : text);

/**
 * The commit message being written, per workspace: kept beyond one Git panel, so a panel drawn
 * again (the workspace re-rendered, the panel reopened) shows what the person had typed.
 * @type {Map<string, string>}
 */
const drafts = new Map();

/**
 * The git panel's logic: the workspace repository's state and every action, with the remote
 * credentials (token sealed at rest) and CORS proxy taken from the workspace settings.
 * @implements {GitPanelController}
 */
export class GitController {
  /** @type {GitState} */
  state = { loading: true, isRepo: false, branch: null, branches: [], changes: [], log: [], remotes: [], busy: null, message: null };
  /** @type {Set<(s: GitState) => void>} */
  #listeners = new Set();

  /** @param {{repo: WorkspaceGit, settings: AgentSettingsStore, workspaceId: string}} deps */
  constructor(deps) {
    this.repo = deps.repo;
    this.settings = deps.settings;
    this.workspaceId = deps.workspaceId;
  }

  /** @param {(s: GitState) => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    fn(this.state);
    return () => this.#listeners.delete(fn);
  }

  /** @param {Partial<GitState>} patch */
  #set(patch) {
    this.state = { ...this.state, ...patch };
    for (const fn of this.#listeners) fn(this.state);
  }

  /** The commit message typed and not committed yet. */
  get draft() {
    return drafts.get(this.workspaceId) ?? '';
  }

  set draft(text) {
    if (text) drafts.set(this.workspaceId, text);
    else drafts.delete(this.workspaceId);
  }

  get author() {
    const g = this.settings.load(this.workspaceId).git;
    return { name: g.authorName, email: g.authorEmail };
  }

  async refresh() {
    const isRepo = await this.repo.isRepo();
    if (!isRepo) return this.#set({ loading: false, isRepo, branch: null, branches: [], changes: [], log: [], remotes: [] });
    const [status, { current, branches }, log, remotes] = await Promise.all([
      this.repo.status(),
      this.repo.branches(),
      this.repo.log({ depth: 100 }),
      this.repo.remotes(),
    ]);
    this.#set({
      loading: false,
      isRepo,
      branch: current,
      branches,
      changes: status.filter((s) => s.state !== 'unchanged' || s.staged || s.unstaged),
      log,
      remotes,
    });
  }

  /**
   * Runs an action with a busy label, then refreshes; the outcome message is kept for the status line.
   * @template T @param {string} label @param {() => Promise<T>} fn @param {(r: T) => string} done
   */
  async #act(label, fn, done) {
    this.#set({ busy: label, message: null });
    try {
      const r = await fn();
      await this.refresh().catch(() => {});
      this.#set({ busy: null, message: done(r) });
      return r;
    } catch (err) {
      await this.refresh().catch(() => {});
      this.#set({ busy: null });
      throw err;
    }
  }

  init() {
    return this.#act(
      'Creating the repository…',
      () => this.repo.ensureRepo(),
      () => 'This workspace is now a git repository.',
    );
  }

  /** @param {string[]} paths */
  stage(paths) {
    return this.#act(
      'Staging…',
      () => this.repo.stage(paths),
      () => `Staged ${paths.length} file(s).`,
    );
  }

  /** @param {string[]} paths */
  unstage(paths) {
    return this.#act(
      'Unstaging…',
      () => this.repo.unstage(paths),
      () => `Unstaged ${paths.length} file(s).`,
    );
  }

  /** @param {string} message */
  commit(message) {
    return this.#act(
      'Committing…',
      () => this.repo.commit({ message, author: this.author }),
      (oid) => (oid ? `Committed ${oid.slice(0, 7)}.` : 'Nothing is staged: stage files first.'),
    );
  }

  /** @param {string} path */
  diffFile(path) {
    const change = this.state.changes.find((c) => c.path === path);
    // A staged-only change is shown against HEAD from the index; otherwise working copy vs HEAD.
    return this.repo.diffFile(path, change && change.staged && !change.unstaged ? { from: 'HEAD', to: 'INDEX' } : {});
  }

  /** @param {string} oid @returns {Promise<FileDiff[]>} */
  diffCommit(oid) {
    return this.repo.diffCommit(oid);
  }

  /** @param {string} name @param {boolean} checkout */
  createBranch(name, checkout) {
    return this.#act(
      'Creating the branch…',
      () => this.repo.createBranch(name, { checkout }),
      (r) => withSkipped(`Created branch ${name}${checkout ? ' and switched to it' : ''}.`, r.skipped),
    );
  }

  /** @param {string} name @param {boolean} [force] */
  switchBranch(name, force = false) {
    return this.#act(
      `Switching to ${name}…`,
      () => this.repo.switchBranch(name, { force }),
      (r) => withSkipped(`Switched to ${name}.`, r.skipped),
    );
  }

  /** @param {string} name */
  deleteBranch(name) {
    return this.#act(
      'Deleting the branch…',
      () => this.repo.deleteBranch(name),
      () => `Deleted branch ${name}.`,
    );
  }

  /** @param {string} oid @param {string} [filepath] */
  restore(oid, filepath) {
    return this.#act(
      'Restoring…',
      () => this.repo.restore(oid, { filepath }),
      ({ changed, skipped, kept }) =>
        withSkipped(
          `${
            changed.length
              ? `Restored ${changed.length} file(s) from ${oid.slice(0, 7)}; review and commit ` + `them.`
              : 'Already identical; nothing to ' + 'restore.'
          }${keptNote(kept)}`,
          skipped,
        ),
    );
  }

  /** @param {{url?: string, token?: string | null, corsProxy?: string}} next token: undefined keeps, null removes */
  async saveRemote(next) {
    if (next.url !== undefined && next.url.trim()) await this.repo.setRemote(next.url);
    if (next.token !== undefined) await this.settings.setGitToken(this.workspaceId, next.token);
    if (next.corsProxy !== undefined) {
      const s = this.settings.load(this.workspaceId);
      this.settings.save(this.workspaceId, { ...s, git: { ...s.git, corsProxy: next.corsProxy.trim() } });
    }
    this.#set({ message: 'Remote settings saved.' });
    await this.refresh();
  }

  async #remoteOptions() {
    return {
      token: await this.settings.gitToken(this.workspaceId),
      corsProxy: this.settings.load(this.workspaceId).git.corsProxy,
      author: this.author,
    };
  }

  async pull() {
    const options = await this.#remoteOptions();
    return this.#act(
      'Pulling…',
      () => this.repo.pull(options),
      (r) => withSkipped('Pulled: up to date with the remote.', r.skipped),
    );
  }

  async push() {
    const options = await this.#remoteOptions();
    return this.#act(
      'Pushing…',
      () => this.repo.push(options),
      () => 'Pushed to the remote.',
    );
  }
}
