/** @import { FileSystem, ConfigStore } from '../storage/types.d.ts' */
/** @import { SecretBox } from '../storage/secrets.js' */
/** @import { WorkspaceStore } from './workspaces.js' */
/** @import { AgentSettingsStore } from './agent-settings.js' */
import { ScopedFileSystem } from '../storage/scoped-fs.js';
import { skippedNote } from '../git/errors.js';
import { formDialog, confirmDialog } from '../ui/dialogs.js';
import { downloadBlob } from '../ui/dom.js';
import { APP_VERSION } from './version.js';
import { markRestoreDone, markRestoreRunning } from './restore-recovery.js';

/** @param {number} n */
const sizeText = (n) => (n < 1024 * 1024 ? `${Math.max(1, Math.round(n / 1024))} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

/** A workspace name from a repository URL ("…/team/notes.git" → "notes"). @param {string} url */
export function repoName(url) {
  const last =
    url
      .replace(/[?#].*$/, '')
      .replace(/\/+$/, '')
      .split('/')
      .pop() ?? '';
  return decodeURIComponent(last.replace(/\.git$/i, '')) || 'Cloned repository';
}

/**
 * The app's whole-data actions: cloning a repository into a new workspace, exporting a
 * backup of everything and restoring one. Dialogs here, rules in web/git and web/backup.
 */
export class DataActions {
  /**
   * @param {{fs: FileSystem, config: ConfigStore, secrets: SecretBox, workspaces: WorkspaceStore, agentSettings: AgentSettingsStore,
   *   status: (text: string | null) => void, notify: (text: string) => void,
   *   exclusive: (fn: () => Promise<void>) => Promise<void>}} deps exclusive: runs the restore with every other tab held back (RestoreGate)
   *   notify: a lasting message for the user (what a clone left out); config: the settings a backup carries and a restore replaces */
  constructor(deps) {
    this.deps = deps;
  }

  /**
   * Asks for a repository and clones it into a new workspace. A failure is said in the dialog,
   * which stays open with what was typed (the proxy and the token are fields of it: there is no
   * workspace yet whose settings could hold them).
   * @returns {Promise<string | null>} the new workspace's id
   */
  async cloneRepository() {
    /** @type {{id: string, skipped: number} | null} */
    let cloned = null;
    await formDialog({
      title: 'Clone a git repository',
      description:
        'The repository becomes a new workspace. Private repositories need an access ' +
        'token; servers that do not allow web pages need a CORS proxy.',
      fields: [
        { name: 'url', label: 'Repository URL', type: 'url', required: true, placeholder: 'https://github.com/you/notes.git' },
        { name: 'token', label: 'Access token (optional)', type: 'password' },
        { name: 'corsProxy', label: 'CORS proxy (optional)', type: 'url', placeholder: 'https://cors.isomorphic-git.org' },
      ],
      submitLabel: 'Clone',
      busyLabel: 'Cloning…',
      submit: async (v) => {
        try {
          cloned = await this.#clone(String(v.url), String(v.token), String(v.corsProxy));
          return null;
        } catch (err) {
          const code = /** @type {{code?: unknown}} */ (err)?.code;
          const field = code === 'cors' ? 'corsProxy' : code === 'auth_failed' ? 'token' : code === 'remote_not_found' ? 'url' : undefined;
          return { error: /** @type {Error} */ (err)?.message ?? String(err), field };
        }
      },
    });
    const done = /** @type {{id: string, skipped: number} | null} */ (cloned);
    if (!done) return null;
    return done.id;
  }

  /**
   * Clones `url` into a new workspace named after it; on failure nothing is left behind.
   * @param {string} url @param {string} token @param {string} corsProxy
   */
  async #clone(url, token, corsProxy) {
    const { cloneInto } = await import('../git/git.js');
    const ws = await this.deps.workspaces.create(repoName(url));
    this.deps.status(`Cloning ${url}…`);
    let skipped = 0;
    try {
      // cloneInto writes through git's protected view: a repository's copies of Clawser's own folders are never written.
      ({ skipped } = await cloneInto(new ScopedFileSystem(this.deps.fs, `clawser_workspaces/${ws.id}`), url, { token, corsProxy }));
      const s = this.deps.agentSettings.load(ws.id);
      this.deps.agentSettings.save(ws.id, { ...s, git: { ...s.git, corsProxy } });
      if (token) await this.deps.agentSettings.setGitToken(ws.id, token);
    } catch (err) {
      // Nothing half-cloned is left behind.
      await this.deps.workspaces.delete(ws.id).catch(() => {});
      throw err;
    } finally {
      this.deps.status(null);
    }
    if (skipped)
      this.deps.notify(
        `Cloned ${repoName(url)}. ${skippedNote(skipped)} They would have been jobs, goals, memories or other state of Clawser that you ` +
          `did not make.`,
      );
    return { id: ws.id, skipped };
  }

  async exportEverything() {
    const v = await formDialog({
      title: 'Export everything',
      description:
        'Downloads one file with all workspaces, conversations, files, memories, goals, schedules and settings. ' +
        'Models on this computer are not in it (keep their .gguf files to import them again); a restore leaves them in place.',
      fields: [
        { name: 'withKeys', label: 'Include API keys and tokens (protected by a passphrase)', type: 'checkbox' },
        {
          name: 'passphrase',
          label: 'Passphrase (only with API keys; at least 8 characters)',
          type: 'password',
          hint: 'Without it the keys in the file cannot be recovered. It is not stored anywhere.',
        },
      ],
      submitLabel: 'Export',
    });
    if (!v) return;
    const passphrase = v.withKeys ? String(v.passphrase) : undefined;
    if (v.withKeys && (passphrase ?? '').length < 8)
      throw new Error('Choose a passphrase of at least 8 characters to include API keys, or export without them.');
    const { createBackup } = await import('../backup/backup.js');
    this.deps.status('Preparing the backup…');
    try {
      const bytes = await createBackup({
        fs: this.deps.fs,
        config: this.deps.config,
        secrets: this.deps.secrets,
        passphrase,
        appVersion: APP_VERSION,
      });
      downloadBlob(
        new Blob([/** @type {BlobPart} */ (bytes)], { type: 'application/zip' }),
        `clawser-backup-${new Date().toISOString().slice(0, 10)}.zip`,
      );
    } finally {
      this.deps.status(null);
    }
  }

  /**
   * Validates a backup completely, shows what will be replaced, and restores it; the page
   * reloads afterwards so every view reads the restored data.
   * @param {File} file
   */
  async restore(file) {
    const { readBackup, restoreBackup } = await import('../backup/backup.js');
    const bytes = new Uint8Array(await file.arrayBuffer());
    let contents;
    try {
      contents = await readBackup(bytes);
    } catch (err) {
      if (/** @type {{code?: string}} */ (err).code !== 'wrong_passphrase') throw err;
      const v = await formDialog({
        title: 'This backup includes API keys',
        description: 'Enter the passphrase it was made with. Leave it empty to restore everything except the keys.',
        fields: [{ name: 'passphrase', label: 'Passphrase', type: 'password' }],
        submitLabel: 'Continue',
      });
      if (!v) return false;
      contents = v.passphrase
        ? await readBackup(bytes, { passphrase: String(v.passphrase) })
        : await readBackup(bytes, { ignoreSecrets: true });
    }
    const s = contents.summary;
    const names = s.workspaces.map((w) => w.name).join(', ');
    const ok = await confirmDialog({
      title: 'Replace everything with this backup?',
      message:
        `Backup of ${new Date(s.createdAt).toLocaleString()}: ${s.workspaces.length} ` +
        `workspace(s)${names ? ` (${names})` : ''}, ${s.files} files (${sizeText(s.bytes)}), ${s.config} ` +
        `settings, ${s.secretsIncluded ? `${s.secretCount} API key(s)` : 'no API keys'}. Everything Clawser keeps in this browser now ` +
        `is replaced. If the restore fails, nothing changes.`,
      confirmLabel: 'Replace everything',
    });
    if (!ok) return false;
    this.deps.status('Restoring…');
    const run = async () => {
      // The marker file the restore writes is what a next start recovers from; this only keeps
      // the next page's first view from painting meanwhile.
      markRestoreRunning(true);
      await restoreBackup(contents, { fs: this.deps.fs, config: this.deps.config, secrets: this.deps.secrets });
      markRestoreRunning(false);
      // Said by the next page, which the reload opens on the restored data.
      markRestoreDone(
        `Backup restored: ${s.workspaces.length} workspace(s)${names ? ` (${names})` : ''}, ${s.files} files` +
          `${s.secretsIncluded ? `, ${s.secretCount} API key(s)` : ''}, from ${new Date(s.createdAt).toLocaleString()}.`,
      );
    };
    // Exclusive across tabs: the others stop writing and wait (see RestoreGate).
    await this.deps.exclusive(run);
    return true;
  }
}
