/** @import { BackupLimits, BackupManifest, BackupContents } from './types.d.ts' */
import { strFromU8 } from 'fflate';
import { ArchiveFormatError, ArchiveLimitError, expandZip } from '../files/archive-limits.js';
import { z } from 'zod';
import { normalizePathForCheck } from '../safety/tool-call-validator.js';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  BACKUP_LIMITS,
  PREFIX,
  FILES,
  RESERVED,
  BackupError,
  corrupt,
  isSealed,
  parseJson,
  sha256,
  issueText,
} from './common.js';
import { openSecrets, SealedSchema } from './crypto.js';

/** Reading a backup and checking all of it, before anything is touched. */

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const ManifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(BACKUP_VERSION),
  createdAt: z.iso.datetime(),
  appVersion: z.string(),
  files: z.array(z.object({ path: z.string(), size: z.number().int().nonnegative(), sha256: Sha256 })),
  dirs: z.array(z.string()),
  config: z.number().int().nonnegative(),
  secrets: z.enum(['none', 'passphrase']),
  checksums: z.object({ config: Sha256, secrets: Sha256.optional() }).optional(),
});
const ConfigKey = z.string().startsWith(PREFIX);
const ConfigSchema = z.record(
  ConfigKey,
  z.string().refine((raw) => parseJson(raw) !== undefined, 'not valid JSON'),
);

/**
 * Reads and checks a backup completely: ZIP within limits, format and version, safe paths,
 * every listed file present with its size and SHA-256, config keys and JSON values, and the
 * API keys when a passphrase is given.
 * @param {Uint8Array} bytes
 * @param {{passphrase?: string, ignoreSecrets?: boolean, limits?: Partial<BackupLimits>}} [options]
 *   ignoreSecrets: restore without the backup's API keys (passphrase forgotten).
 * @returns {Promise<BackupContents>}
 */
export async function readBackup(bytes, { passphrase, ignoreSecrets = false, limits } = {}) {
  const entries = unzip(bytes, { ...BACKUP_LIMITS, ...limits });
  const manifestBytes = entries.get('manifest.json');
  if (!manifestBytes)
    throw new BackupError(
      'not_a_backup',
      'This ZIP file is not a Clawser backup (it has no manifest.json). Choose a file made with "Export everything".',
    );
  const manifest = parseManifest(manifestBytes);

  /** @type {Map<string, Uint8Array>} */
  const files = new Map();
  for (const f of manifest.files) {
    checkStoragePath(f.path);
    if (files.has(f.path)) throw corrupt(`"${f.path}" is listed twice`);
    const data = entries.get(FILES + f.path);
    if (!data) throw corrupt(`"${f.path}" is listed but missing`);
    if (data.length !== f.size || (await sha256(data)) !== f.sha256) throw corrupt(`"${f.path}" was changed or damaged`);
    files.set(f.path, data);
  }
  for (const d of manifest.dirs) checkStoragePath(d);
  checkNoClash([...files.keys()], manifest.dirs);
  for (const name of entries.keys()) {
    const known = name.startsWith(FILES)
      ? files.has(name.slice(FILES.length))
      : ['manifest.json', 'config.json', 'secrets.json'].includes(name);
    if (!known) throw corrupt(`it contains "${name}", which the manifest does not list`);
  }

  for (const [name, expected] of Object.entries(manifest.checksums ?? {})) {
    const data = entries.get(`${name}.json`);
    if (data && (await sha256(data)) !== expected) throw corrupt(`${name}.json was changed or damaged`);
  }
  const config = parseEntry(entries, 'config.json', ConfigSchema);
  if (Object.keys(config).length !== manifest.config) throw corrupt('config.json does not have the number of entries the manifest says');
  if (Object.values(config).some((raw) => isSealed(parseJson(raw)))) throw corrupt('config.json contains a sealed API key');

  /** @type {Record<string, string> | null} */
  let secrets = null;
  if (entries.has('secrets.json') !== (manifest.secrets === 'passphrase')) throw corrupt('the API key section does not match the manifest');
  if (manifest.secrets === 'passphrase') {
    const sealed = parseEntry(entries, 'secrets.json', SealedSchema);
    if (!ignoreSecrets) {
      if (!passphrase)
        throw new BackupError(
          'wrong_passphrase',
          'This backup includes API keys protected by a passphrase. Enter the passphrase ' +
            'used when it was made, or restore without the API keys.',
        );
      secrets = await openSecrets(sealed, passphrase);
      if (Object.keys(secrets).some((k) => Object.hasOwn(config, k))) throw corrupt('an API key is also in config.json');
    }
  }

  return { manifest, files, config, secrets, summary: summarize(manifest, files, config, secrets) };
}

/**
 * All entries of a ZIP within the shared archive limits (web/files/archive-limits.js: the ratio
 * and its message as everywhere; a backup's own entry count and total, which hold a whole
 * device's data), before anything is restored. Dot folders are fine here (a backup holds the
 * app's own data); unsafe names and duplicates refuse the whole backup.
 * @param {Uint8Array} bytes @param {BackupLimits} limits
 */
function unzip(bytes, { maxEntries, maxTotalBytes }) {
  if (!(bytes[0] === 0x50 && bytes[1] === 0x4b))
    throw new BackupError(
      'not_a_backup',
      'This file is not a Clawser backup (it is not a ZIP archive). Choose a file made with "Export everything".',
    );
  /** @type {Set<string>} */
  const seen = new Set();
  /** @type {ReturnType<typeof expandZip>} */
  let expanded;
  try {
    expanded = expandZip(bytes, {
      limits: { maxEntries, maxTotalBytes, maxEntryBytes: maxTotalBytes },
      select: (name) => {
        const reason = unsafeReason(name);
        if (reason)
          throw new BackupError(
            'unsafe_path',
            `The backup contains an unsafe path "${name}" (${reason}); nothing was restored. It was not made by Clawser or was altered.`,
          );
        if (seen.has(name)) throw corrupt(`"${name}" appears twice`);
        seen.add(name);
        return true;
      },
    });
  } catch (err) {
    if (err instanceof ArchiveLimitError) throw new BackupError('too_large', err.message);
    if (err instanceof ArchiveFormatError)
      throw corrupt(err.entry ? `"${err.entry}" cannot be read (${err.detail})` : `it is ${err.detail}`);
    throw err;
  }
  const bad = expanded.unsupported[0];
  if (bad) throw corrupt(`"${bad.name}" uses an ${bad.reason}`);
  /** @type {Map<string, Uint8Array>} */
  const out = new Map();
  for (const e of expanded.entries) if (!e.name.endsWith('/')) out.set(e.name, e.data);
  return out;
}

/** @param {Uint8Array} bytes @returns {BackupManifest} */
function parseManifest(bytes) {
  const raw = /** @type {{format?: unknown, version?: unknown} | undefined} */ (parseJson(strFromU8(bytes)));
  if (!raw || typeof raw !== 'object' || raw.format !== BACKUP_FORMAT)
    throw new BackupError('not_a_backup', 'This ZIP file is not a Clawser backup. Choose a file made with "Export everything".');
  if (typeof raw.version === 'number' && raw.version > BACKUP_VERSION) {
    throw new BackupError(
      'unsupported_version',
      `This backup was made by a newer version of Clawser (backup format ${raw.version}; this version reads format ${BACKUP_VERSION}). ` +
        `Update Clawser (reload the page), then restore again.`,
    );
  }
  const parsed = ManifestSchema.safeParse(raw);
  if (!parsed.success) throw corrupt(`its manifest is invalid (${issueText(parsed.error)})`);
  return parsed.data;
}

/**
 * @template {z.ZodType} S
 * @param {Map<string, Uint8Array>} entries @param {string} name @param {S} schema
 * @returns {z.infer<S>}
 */
function parseEntry(entries, name, schema) {
  const bytes = entries.get(name);
  if (!bytes) throw corrupt(`${name} is missing`);
  const parsed = schema.safeParse(parseJson(strFromU8(bytes)));
  if (!parsed.success) throw corrupt(`${name} is invalid (${issueText(parsed.error)})`);
  return parsed.data;
}

/**
 * Why an archive entry name is unsafe, or null. Dot folders are fine here (a backup holds the
 * app's own data); absolute paths, drive letters, backslashes, "."/".." (also as look-alike
 * Unicode), empty segments and control characters are not.
 * @param {string} name
 */
function unsafeReason(name) {
  if (!name) return 'empty name';
  if (/[\0-\x1f\x7f]/.test(name)) return 'control characters';
  if (name.startsWith('/')) return 'absolute path';
  if (name.split('/').some((s) => s === '')) return 'empty path segment';
  const v = normalizePathForCheck(name);
  if (v.includes('\\')) return 'backslash';
  if (v.startsWith('/')) return 'absolute path';
  if (/^[a-zA-Z]:/.test(v)) return 'drive-letter path';
  if (v.split('/').some((s) => s === '.' || s === '..')) return 'path traversal';
  return null;
}

/** A path inside the storage: safe, and not one of the restore's own entries. @param {string} path */
function checkStoragePath(path) {
  const reason = unsafeReason(path) ?? (RESERVED.includes(path.split('/')[0]) ? 'reserved name' : null);
  if (reason)
    throw new BackupError(
      'unsafe_path',
      `The backup contains an unsafe path "${path}" (${reason}); nothing was restored. It was not made by Clawser or was altered.`,
    );
}

/** No path is both a file and a folder (it would fail half-way through staging). @param {string[]} files @param {string[]} dirs */
function checkNoClash(files, dirs) {
  const fileSet = new Set(files);
  for (const p of [...files, ...dirs]) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++)
      if (fileSet.has(parts.slice(0, i).join('/'))) throw corrupt(`"${parts.slice(0, i).join('/')}" is both a file and a folder`);
  }
  for (const d of dirs) if (fileSet.has(d)) throw corrupt(`"${d}" is both a file and a folder`);
}

/**
 * @param {BackupManifest} manifest @param {Map<string, Uint8Array>} files
 * @param {Record<string, string>} config @param {Record<string, string> | null} secrets
 */
function summarize(manifest, files, config, secrets) {
  /** @type {Map<string, string>} */
  const names = new Map();
  const list = parseJson(config[`${PREFIX}workspaces`] ?? '[]');
  if (Array.isArray(list)) for (const w of list) if (typeof w?.id === 'string' && typeof w?.name === 'string') names.set(w.id, w.name);
  /** @type {Set<string>} */
  const ids = new Set();
  for (const p of files.keys()) if (p.startsWith('clawser_workspaces/') && p.split('/').length > 2) ids.add(p.split('/')[1]);
  for (const d of manifest.dirs) if (d.startsWith('clawser_workspaces/')) ids.add(d.split('/')[1]);
  let bytes = 0;
  for (const data of files.values()) bytes += data.length;
  return {
    createdAt: manifest.createdAt,
    appVersion: manifest.appVersion,
    workspaces: [...ids].sort().map((id) => ({ id, name: names.get(id) ?? id })),
    files: files.size,
    bytes,
    config: Object.keys(config).length,
    secretsIncluded: secrets !== null,
    secretCount: secrets ? Object.keys(secrets).length : 0,
  };
}
