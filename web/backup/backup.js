/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { ConfigStore, SecretSealer, BackupLimits, BackupManifest } from './types.d.ts' */
import { deflateSync, strToU8, zipSync } from 'fflate';
import { ARCHIVE_LIMITS } from '../files/archive-limits.js';
import { LocalConfig } from '../storage/local-config.js';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  BACKUP_LIMITS,
  PREFIX,
  FILES,
  RESERVED,
  BackupError,
  isSealed,
  mb,
  parseJson,
  sha256,
  join,
} from './common.js';
import { sealSecrets } from './crypto.js';

export { BACKUP_FORMAT, BACKUP_VERSION, BACKUP_LIMITS, BackupError } from './common.js';
export { readBackup } from './format.js';
export { restoreBackup, recoverInterruptedRestore } from './restore.js';

/**
 * "Export everything / Restore": one ZIP with every file of the app's storage and every
 * `clawser_*` config entry. Layout:
 *   manifest.json  {format: 'clawser-backup', version: 1, createdAt, appVersion,
 *                   files: [{path, size, sha256}], dirs: [empty folders], config: count,
 *                   secrets: 'none' | 'passphrase'}
 *   files/<path>   each file, byte for byte
 *   config.json    {key: raw JSON string}, API keys (SecretBox "v1:" values) left out
 *   secrets.json   only with a passphrase: {kdf: {name: 'PBKDF2', hash: 'SHA-256', iterations,
 *                   salt}, iv, data} — data is AES-GCM over JSON {key: API key}; base64 fields
 *
 * This module makes a backup; format.js reads and checks one (nothing touched), crypto.js
 * seals the API keys with the passphrase, restore.js puts a checked backup in place.
 */

/**
 * The `clawser_*` config entries of a Storage as a backup reads and writes them (raw JSON
 * text): the one localStorage module, LocalConfig.
 * @param {Storage} [storage]
 * @returns {ConfigStore}
 */
export function localStorageConfig(storage) {
  return new LocalConfig(storage);
}

// ---------------------------------------------------------------------------------------
// Export

/**
 * @param {{fs: FileSystem, config: ConfigStore, secrets: SecretSealer, passphrase?: string,
 *   appVersion: string, now?: Date, limits?: Partial<BackupLimits>}} options
 *   passphrase: when non-empty, API keys are included, encrypted with it; otherwise left out.
 * @returns {Promise<Uint8Array>} the ZIP bytes
 */
export async function createBackup({ fs, config, secrets, passphrase, appVersion, now = new Date(), limits }) {
  const { maxEntries, maxTotalBytes } = { ...BACKUP_LIMITS, ...limits };
  /** @type {string[]} */
  const paths = [];
  /** @type {string[]} */
  const dirs = [];
  await walk(fs, '', paths, dirs);
  // Refuse to make a backup that readBackup would refuse.
  if (paths.length + 3 > maxEntries)
    throw new BackupError(
      'too_large',
      `There are more than ${maxEntries - 3} files; a backup can hold at most that many. Delete workspaces you no longer need, or ` +
        `export them one by one.`,
    );
  let total = 0;
  const count = (/** @type {number} */ n) => {
    total += n;
    if (total > maxTotalBytes)
      throw new BackupError(
        'too_large',
        `Everything together is more than ${mb(maxTotalBytes)} MB, more than one backup can hold. Delete workspaces you no longer need, ` +
          `or export them one by one.`,
      );
  };

  /** @type {Record<string, Uint8Array>} */
  const fileEntries = {};
  /** @type {BackupManifest['files']} */
  const files = [];
  for (const path of paths) {
    const data = await fs.readBytes(path);
    count(data.length);
    fileEntries[FILES + path] = data;
    files.push({ path, size: data.length, sha256: await sha256(data) });
  }

  /** @type {Record<string, string>} */
  const plain = {};
  /** @type {Record<string, string>} */
  const clear = {};
  for (const [key, raw] of config.entries()) {
    if (!key.startsWith(PREFIX)) continue;
    const value = parseJson(raw);
    if (value === undefined) continue; // not JSON: the app cannot read it either, and readBackup would refuse it
    if (!isSealed(value)) plain[key] = raw;
    else if (passphrase) {
      try {
        clear[key] = await secrets.decrypt(value);
      } catch {
        // Unreadable on this device too (its key is gone): the app already asks for it again.
      }
    }
  }

  const configBytes = strToU8(JSON.stringify(plain, null, 2));
  const secretsBytes = passphrase ? strToU8(JSON.stringify(await sealSecrets(clear, passphrase), null, 2)) : null;
  /** @type {BackupManifest} */
  const manifest = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    createdAt: now.toISOString(),
    appVersion,
    files,
    dirs,
    config: Object.keys(plain).length,
    secrets: passphrase ? 'passphrase' : 'none',
    // Damage anywhere is reported as damage (not as a wrong passphrase) before anything else.
    checksums: { config: await sha256(configBytes), ...(secretsBytes ? { secrets: await sha256(secretsBytes) } : {}) },
  };
  /** @type {Record<string, Uint8Array>} */
  const zip = {
    'manifest.json': strToU8(JSON.stringify(manifest, null, 2)),
    'config.json': configBytes,
  };
  if (secretsBytes) zip['secrets.json'] = secretsBytes;
  for (const data of Object.values(zip)) count(data.length);
  return restorableZip({ ...zip, ...fileEntries }, now);
}

/**
 * The backup's ZIP, which readBackup must accept: the shared archive limits refuse an archive
 * that expands to more than 100 times its size (a zip bomb), and a workspace of very repetitive
 * data (a disk image of zeros) compresses like one. Then its densest files are stored
 * uncompressed (and, if that is not enough, every file), so every backup Clawser makes restores.
 * @param {Record<string, Uint8Array>} entries @param {Date} mtime
 */
function restorableZip(entries, mtime) {
  const total = Object.values(entries).reduce((n, d) => n + d.length, 0);
  const fits = (/** @type {Uint8Array} */ zip) => total <= Math.max(ARCHIVE_LIMITS.ratioFreeBytes, ARCHIVE_LIMITS.maxRatio * zip.length);
  const zip = zipSync(entries, { level: 6, mtime });
  if (fits(zip)) return zip;
  /** @type {import('fflate').Zippable} */
  const stored = {};
  for (const [name, data] of Object.entries(entries)) {
    const dense = data.length > 1024 * 1024 && data.length > (ARCHIVE_LIMITS.maxRatio / 2) * deflateSync(data, { level: 1 }).length;
    stored[name] = dense ? [data, { level: 0 }] : data;
  }
  const lighter = zipSync(stored, { level: 6, mtime });
  return fits(lighter) ? lighter : zipSync(entries, { level: 0, mtime });
}

/**
 * Every file and empty folder under `dir`; leftovers of interrupted atomic writes and the
 * restore's own entries are skipped.
 * @param {FileSystem} fs @param {string} dir @param {string[]} files @param {string[]} dirs
 */
async function walk(fs, dir, files, dirs) {
  let kept = 0;
  for (const e of await fs.list(dir)) {
    if ((e.name.startsWith('.') && e.name.includes('.tmp-')) || (!dir && RESERVED.includes(e.name))) continue;
    kept++;
    const path = join(dir, e.name);
    if (e.kind === 'directory') await walk(fs, path, files, dirs);
    else files.push(path);
  }
  if (dir && kept === 0) dirs.push(dir);
}
