/** Shapes of the backup module (web/backup/backup.js). */

/**
 * Raw access to the app's `clawser_*` config entries (values are the stored JSON text); `flush`
 * resolves once the changes are stored (the restore waits for it before it lets go of its marker).
 */
export type ConfigStore = Pick<import('../storage/types.d.ts').ConfigStore, 'entries' | 'setRaw' | 'remove'> &
  Partial<Pick<import('../storage/types.d.ts').ConfigStore, 'flush'>>;

/** What a backup needs of SecretBox: seal and unseal API keys ("v1:..." strings). */
export interface SecretSealer {
  encrypt(plaintext: string): Promise<string>;
  decrypt(sealed: string): Promise<string>;
}

export type BackupErrorCode =
  | 'not_a_backup'
  | 'unsupported_version'
  | 'corrupt'
  | 'unsafe_path'
  | 'wrong_passphrase'
  | 'too_large'
  | 'restore_failed';

export interface BackupLimits {
  /** Entries in one archive. */
  maxEntries: number;
  /** Uncompressed bytes of all entries together, counted while inflating. */
  maxTotalBytes: number;
}

/** manifest.json */
export interface BackupManifest {
  format: 'clawser-backup';
  version: number;
  /** ISO 8601 */
  createdAt: string;
  appVersion: string;
  files: Array<{ path: string; size: number; sha256: string }>;
  /** Empty folders (e.g. a new workspace), so they come back too. */
  dirs: string[];
  /** Number of entries in config.json. */
  config: number;
  secrets: 'none' | 'passphrase';
  /** SHA-256 of config.json and secrets.json (absent in older backups). */
  checksums?: { config: string; secrets?: string };
}

/** For a "this will replace everything" confirmation screen. */
export interface BackupSummary {
  createdAt: string;
  appVersion: string;
  /** Folders under clawser_workspaces/, with the name from the workspace list when it has one. */
  workspaces: Array<{ id: string; name: string }>;
  files: number;
  bytes: number;
  config: number;
  /** True when API keys were decrypted from the backup and will be restored. */
  secretsIncluded: boolean;
  secretCount: number;
}

export interface BackupContents {
  manifest: BackupManifest;
  files: Map<string, Uint8Array>;
  /** key → raw JSON string, secrets not included. */
  config: Record<string, string>;
  /** key → API key in clear (only in memory, never written as is), or null. */
  secrets: Record<string, string> | null;
  summary: BackupSummary;
}

/** What recoverInterruptedRestore did. */
export type RecoveryOutcome = 'none' | 'rolled_back' | 'completed';
