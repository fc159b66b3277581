/** @import { FileSystem, DirEntry } from '../storage/types.d.ts' */
/** @import { ConfigStore, SecretSealer, BackupErrorCode, BackupLimits, BackupManifest, BackupContents, RecoveryOutcome } from './types.d.ts' */
import { Unzip, UnzipInflate, strFromU8, strToU8, zipSync } from 'fflate';
import { z } from 'zod';
import { QUOTA_MESSAGE, StorageError, isQuotaError } from '../storage/errors.js';
import { normalizePathForCheck } from '../safety/tool-call-validator.js';
import { toBase64, fromBase64 } from '../storage/base64.js';

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
 */

export const BACKUP_FORMAT = 'clawser-backup';
export const BACKUP_VERSION = 1;

/** @type {BackupLimits} */
export const BACKUP_LIMITS = { maxEntries: 20_000, maxTotalBytes: 2 * 1024 * 1024 * 1024 };

const PREFIX = 'clawser_';
const FILES = 'files/';
const KDF_ITERATIONS = 600_000;
// The restore's own entries at the storage root: never backed up, never restored over.
const STAGING = '.restore-staging';
const PREVIOUS = '.restore-previous';
const STATE = '.restore-state.json';
const RESERVED = [STAGING, PREVIOUS, STATE];

/** Backup/restore failure with a stable `code` and a message a person can act on. */
export class BackupError extends Error {
  /** @param {BackupErrorCode} code @param {string} message @param {{cause?: unknown}} [options] */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'BackupError';
    this.code = code;
  }
}

/**
 * ConfigStore over a Storage, limited to `clawser_*` keys. (LocalConfig has `keys(prefix)` but
 * only parsed values, while a backup needs the raw JSON text.)
 * @param {Storage} [storage]
 * @returns {ConfigStore}
 */
export function localStorageConfig(storage = globalThis.localStorage) {
  const check = (/** @type {string} */ key) => {
    if (!key.startsWith(PREFIX)) throw new StorageError('invalid_path', `Config keys must start with "${PREFIX}" (got "${key}").`);
    return key;
  };
  return {
    entries() {
      /** @type {Array<[string, string]>} */
      const out = [];
      for (let i = 0; i < storage.length; i++) {
        const key = storage.key(i);
        const raw = key?.startsWith(PREFIX) ? storage.getItem(key) : null;
        if (key && raw !== null) out.push([key, raw]);
      }
      return out;
    },
    setRaw(key, raw) {
      try {
        storage.setItem(check(key), raw);
      } catch (err) {
        if (isQuotaError(err)) throw new StorageError('quota', QUOTA_MESSAGE, { cause: err });
        throw err;
      }
    },
    remove(key) {
      storage.removeItem(check(key));
    },
  };
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
  if (paths.length + 3 > maxEntries) throw new BackupError('too_large', `There are more than ${maxEntries - 3} files; a backup can hold at most that many. Delete workspaces you no longer need, or export them one by one.`);
  let total = 0;
  const count = (/** @type {number} */ n) => {
    total += n;
    if (total > maxTotalBytes) throw new BackupError('too_large', `Everything together is more than ${mb(maxTotalBytes)} MB, more than one backup can hold. Delete workspaces you no longer need, or export them one by one.`);
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
  return zipSync({ ...zip, ...fileEntries }, { level: 6, mtime: now });
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

// ---------------------------------------------------------------------------------------
// Reading and checking (nothing is touched)

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
const ConfigSchema = z.record(ConfigKey, z.string().refine((raw) => parseJson(raw) !== undefined, 'not valid JSON'));
const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/);
const SealedSchema = z.object({
  kdf: z.object({
    name: z.literal('PBKDF2'),
    hash: z.literal('SHA-256'),
    // Bounded so a crafted file cannot make key derivation hang the tab.
    iterations: z.number().int().min(100_000).max(10_000_000),
    salt: Base64,
  }),
  iv: Base64,
  data: Base64,
});
const SecretsSchema = z.record(ConfigKey, z.string());

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
  if (!manifestBytes) throw new BackupError('not_a_backup', 'This ZIP file is not a Clawser backup (it has no manifest.json). Choose a file made with "Export everything".');
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
    const known = name.startsWith(FILES) ? files.has(name.slice(FILES.length)) : ['manifest.json', 'config.json', 'secrets.json'].includes(name);
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
      if (!passphrase) throw new BackupError('wrong_passphrase', 'This backup includes API keys protected by a passphrase. Enter the passphrase used when it was made, or restore without the API keys.');
      secrets = await openSecrets(sealed, passphrase);
      if (Object.keys(secrets).some((k) => Object.hasOwn(config, k))) throw corrupt('an API key is also in config.json');
    }
  }

  return { manifest, files, config, secrets, summary: summarize(manifest, files, config, secrets) };
}

/**
 * All entries of a ZIP within limits (sizes counted while inflating: headers can lie),
 * mirroring web/files/zip.js, which cannot be reused because it leaves out dot folders.
 * @param {Uint8Array} bytes @param {BackupLimits} limits
 */
function unzip(bytes, { maxEntries, maxTotalBytes }) {
  if (!(bytes[0] === 0x50 && bytes[1] === 0x4b)) throw new BackupError('not_a_backup', 'This file is not a Clawser backup (it is not a ZIP archive). Choose a file made with "Export everything".');
  /** @type {Map<string, Uint8Array>} */
  const out = new Map();
  let count = 0;
  let total = 0;
  /** @type {BackupError | null} */
  let failure = null;
  const fail = (/** @type {BackupError} */ err) => {
    failure ??= err;
  };
  const unzipper = new Unzip((file) => {
    if (failure) return;
    if (++count > maxEntries) return fail(new BackupError('too_large', `The backup has more than ${maxEntries} entries, more than Clawser accepts; nothing was restored.`));
    if (file.name.endsWith('/')) return; // folder entries carry no data
    const reason = unsafeReason(file.name);
    if (reason) return fail(new BackupError('unsafe_path', `The backup contains an unsafe path "${file.name}" (${reason}); nothing was restored. It was not made by Clawser or was altered.`));
    if (out.has(file.name)) return fail(corrupt(`"${file.name}" appears twice`));
    /** @type {Uint8Array[]} */
    const chunks = [];
    let size = 0;
    file.ondata = (err, chunk, final) => {
      if (failure) return;
      if (err) return fail(corrupt(`"${file.name}" cannot be read (${err.message})`));
      size += chunk.length;
      total += chunk.length;
      if (total > maxTotalBytes) {
        fail(new BackupError('too_large', `The backup expands to more than ${mb(maxTotalBytes)} MB, more than Clawser accepts; nothing was restored.`));
        file.terminate();
        return;
      }
      chunks.push(chunk);
      if (final) out.set(file.name, concat(chunks, size));
    };
    try {
      file.start();
    } catch (err) {
      fail(corrupt(`"${file.name}" uses an unsupported compression (${/** @type {Error} */ (err).message})`));
    }
  });
  unzipper.register(UnzipInflate);
  try {
    const step = 64 * 1024; // in pieces, so a limit stops inflation early
    for (let i = 0; i < bytes.length && !failure; i += step) unzipper.push(bytes.subarray(i, i + step), i + step >= bytes.length);
  } catch (err) {
    fail(corrupt(`it is not a readable ZIP archive (${/** @type {Error} */ (err).message})`));
  }
  if (failure) throw failure;
  return out;
}

/** @param {Uint8Array} bytes @returns {BackupManifest} */
function parseManifest(bytes) {
  const raw = /** @type {{format?: unknown, version?: unknown} | undefined} */ (parseJson(strFromU8(bytes)));
  if (!raw || typeof raw !== 'object' || raw.format !== BACKUP_FORMAT) throw new BackupError('not_a_backup', 'This ZIP file is not a Clawser backup. Choose a file made with "Export everything".');
  if (typeof raw.version === 'number' && raw.version > BACKUP_VERSION) {
    throw new BackupError('unsupported_version', `This backup was made by a newer version of Clawser (backup format ${raw.version}; this version reads format ${BACKUP_VERSION}). Update Clawser (reload the page), then restore again.`);
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

/** @param {z.ZodError} error */
function issueText(error) {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'value'}: ${issue.message}` : 'unknown problem';
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
  if (reason) throw new BackupError('unsafe_path', `The backup contains an unsafe path "${path}" (${reason}); nothing was restored. It was not made by Clawser or was altered.`);
}

/** No path is both a file and a folder (it would fail half-way through staging). @param {string[]} files @param {string[]} dirs */
function checkNoClash(files, dirs) {
  const fileSet = new Set(files);
  for (const p of [...files, ...dirs]) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) if (fileSet.has(parts.slice(0, i).join('/'))) throw corrupt(`"${parts.slice(0, i).join('/')}" is both a file and a folder`);
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

// ---------------------------------------------------------------------------------------
// Passphrase encryption of the API keys

/** @param {string} passphrase @param {Uint8Array<ArrayBuffer>} salt @param {number} iterations */
async function deriveKey(passphrase, salt, iterations) {
  const base = await crypto.subtle.importKey('raw', new TextEncoder().encode(passphrase), 'PBKDF2', false, ['deriveKey']);
  return crypto.subtle.deriveKey({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

/** @param {Record<string, string>} clear @param {string} passphrase @returns {Promise<z.infer<typeof SealedSchema>>} */
async function sealSecrets(clear, passphrase) {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await deriveKey(passphrase, salt, KDF_ITERATIONS);
  const data = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(JSON.stringify(clear))));
  return { kdf: { name: 'PBKDF2', hash: 'SHA-256', iterations: KDF_ITERATIONS, salt: toBase64(salt) }, iv: toBase64(iv), data: toBase64(data) };
}

/** @param {z.infer<typeof SealedSchema>} sealed @param {string} passphrase */
async function openSecrets(sealed, passphrase) {
  const salt = fromBase64(sealed.kdf.salt);
  const iv = fromBase64(sealed.iv);
  if (salt.length < 16 || iv.length !== 12) throw corrupt('secrets.json has a salt or IV of the wrong size');
  const key = await deriveKey(passphrase, salt, sealed.kdf.iterations);
  let plain;
  try {
    plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, key, fromBase64(sealed.data));
  } catch (err) {
    // AES-GCM cannot tell a wrong passphrase from altered bytes; the first is far likelier.
    throw new BackupError('wrong_passphrase', 'The passphrase is wrong, so the API keys in this backup cannot be opened. Try again, or restore without the API keys.', { cause: err });
  }
  const parsed = SecretsSchema.safeParse(parseJson(new TextDecoder().decode(plain)));
  if (!parsed.success) throw corrupt(`its API key section is invalid (${issueText(parsed.error)})`);
  return parsed.data;
}

// ---------------------------------------------------------------------------------------
// Restore

/*
 * A restore moves through phases, each recorded first in the marker file `.restore-state.json`
 * (written atomically) at the storage root:
 *   staging   — the backup's files are written into .restore-staging/. Nothing current touched.
 *   aside     — every current top-level entry is moved into .restore-previous/.
 *   placing   — the staged entries are moved to the root.
 *   committed — all files are in place; the marker holds the final config (API keys already
 *               re-sealed by SecretBox), which is now applied in one synchronous run.
 *   cleanup   — the config is applied; .restore-previous/ and the marker are deleted.
 * Moves go file by file (FileSystem.move of a file is atomic; OPFS copies whole folders), so
 * at any moment each file is in exactly one of its two places and a move run again finishes.
 *
 * Recovery rule (recoverInterruptedRestore, at app start): staging, aside and placing roll
 * back — delete what was placed at the root (placing), move .restore-previous/ back, delete
 * the staging folder: the config was not touched yet. committed and cleanup roll forward —
 * (re)apply the config from the marker (idempotent), then delete the leftovers.
 */

/** @typedef {'staging' | 'aside' | 'placing' | 'committed' | 'cleanup'} Phase */
const StateSchema = z.union([
  z.object({ phase: z.enum(['staging', 'aside', 'placing', 'cleanup']) }),
  z.object({ phase: z.literal('committed'), config: z.record(z.string(), z.string()), keep: z.array(z.string()) }),
]);
/** @typedef {z.infer<typeof StateSchema>} RestoreState */

/**
 * Replaces all files and `clawser_*` config with the backup's, all or nothing. Needs free
 * space for a second copy of the backup's files while staging. Other tabs must not write
 * meanwhile (the caller should make the restore exclusive).
 * @param {BackupContents} contents from readBackup
 * @param {{fs: FileSystem, config: ConfigStore, secrets: SecretSealer, keepConfigKeys?: string[]}} deps
 *   keepConfigKeys: current keys not removed even though the backup lacks them (a backup value
 *   for such a key is still applied).
 */
export async function restoreBackup(contents, { fs, config, secrets, keepConfigKeys = [] }) {
  await recoverInterruptedRestore({ fs, config });
  /** @type {Record<string, string>} */
  const finalConfig = { ...contents.config };
  try {
    // Sealed before anything is touched, so a SecretBox failure changes nothing.
    for (const [key, value] of Object.entries(contents.secrets ?? {})) finalConfig[key] = JSON.stringify(await secrets.encrypt(value));
  } catch (err) {
    throw new BackupError('restore_failed', `The API keys could not be stored securely (${errorText(err)}); nothing was changed.`, { cause: err });
  }

  /** @type {Phase | null} */
  let phase = null;
  const enter = async (/** @type {RestoreState} */ state) => {
    await fs.write(STATE, JSON.stringify(state));
    phase = state.phase;
  };
  try {
    await fs.delete(STAGING);
    await enter({ phase: 'staging' });
    // Atomic writes also flush, so the files are durable before the old ones are let go.
    for (const [path, data] of contents.files) await fs.write(`${STAGING}/${path}`, data);
    for (const dir of contents.manifest.dirs) await fs.mkdir(`${STAGING}/${dir}`);
    await enter({ phase: 'aside' });
    await moveTree(fs, '', PREVIOUS);
    await enter({ phase: 'placing' });
    await moveTree(fs, STAGING, '');
    await enter({ phase: 'committed', config: finalConfig, keep: keepConfigKeys });
    applyConfig(config, finalConfig, keepConfigKeys); // puts the old config back if it throws
  } catch (err) {
    /** @type {Phase | null} */
    const reached = phase;
    let undone = reached === null;
    try {
      if (reached === 'committed') await enter({ phase: 'placing' }); // so a crash while undoing rolls back, not forward
      if (reached !== null) await rollBack(fs, reached === 'committed' ? 'placing' : reached);
      undone = true;
    } catch {
      // Left to recoverInterruptedRestore at the next start; the marker says what to do.
    }
    throw new BackupError(
      'restore_failed',
      undone
        ? `Restoring the backup failed (${errorText(err)}); everything was left as it was.`
        : `Restoring the backup failed (${errorText(err)}) and could not be undone right now. Reload Clawser: it will put everything back as it was.`,
      { cause: err },
    );
  }
  try {
    await enter({ phase: 'cleanup' });
    await cleanUp(fs);
  } catch {
    // The restore is complete; leftovers are deleted by recoverInterruptedRestore at the next start.
  }
}

/**
 * Finishes or undoes a restore interrupted by a closed tab (see the recovery rule above). Call
 * at app start before anything reads the storage or config.
 * @param {{fs: FileSystem, config: ConfigStore}} deps config: needed to finish a committed restore
 * @returns {Promise<RecoveryOutcome>}
 */
export async function recoverInterruptedRestore({ fs, config }) {
  const state = await readState(fs);
  if (!state) return 'none';
  if (state.phase === 'committed') {
    try {
      applyConfig(config, state.config, state.keep);
    } catch {
      await fs.write(STATE, JSON.stringify({ phase: 'placing' })); // config unchanged: undo the files too
      await rollBack(fs, 'placing');
      return 'rolled_back';
    }
    await fs.write(STATE, JSON.stringify({ phase: 'cleanup' }));
  }
  if (state.phase === 'committed' || state.phase === 'cleanup') {
    await cleanUp(fs);
    return 'completed';
  }
  await rollBack(fs, state.phase);
  return 'rolled_back';
}

/** @param {FileSystem} fs @returns {Promise<RestoreState | null>} */
async function readState(fs) {
  let text;
  try {
    text = await fs.readText(STATE);
  } catch (err) {
    if (/** @type {{code?: string}} */ (err).code === 'not_found') return null;
    throw err;
  }
  const parsed = StateSchema.safeParse(parseJson(text));
  if (!parsed.success) throw new BackupError('restore_failed', `An interrupted restore left a state file Clawser cannot read (${STATE}); the storage may be mixed. Restore the backup again.`);
  return parsed.data;
}

/** Undoes an unfinished restore from any phase before committed. @param {FileSystem} fs @param {'staging' | 'aside' | 'placing'} phase */
async function rollBack(fs, phase) {
  if (phase === 'placing') {
    // Everything current was moved aside before placing began, so what is at the root is staged.
    for (const e of await listIfExists(fs, '')) if (!RESERVED.includes(e.name)) await fs.delete(e.name);
  }
  if (phase !== 'staging') await moveTree(fs, PREVIOUS, '');
  await cleanUp(fs);
}

/** @param {FileSystem} fs */
async function cleanUp(fs) {
  await fs.delete(PREVIOUS);
  await fs.delete(STAGING);
  await fs.delete(STATE);
}

/**
 * Moves every entry of `from` into `to` (the root's own restore entries excepted), file by
 * file: an interrupted run leaves each file in one place, and running it again finishes.
 * @param {FileSystem} fs @param {string} from @param {string} to
 */
async function moveTree(fs, from, to) {
  for (const e of await listIfExists(fs, from)) {
    if (!from && RESERVED.includes(e.name)) continue;
    const src = join(from, e.name);
    const dst = join(to, e.name);
    if (e.kind === 'file') {
      await fs.move(src, dst);
      continue;
    }
    await fs.mkdir(dst);
    await moveTree(fs, src, dst);
    await fs.delete(src);
  }
}

/**
 * Replaces the `clawser_*` config in one synchronous run (a closing tab cannot split it); on a
 * failure (quota) it puts back exactly what was there and rethrows.
 * @param {ConfigStore} store @param {Record<string, string>} entries @param {string[]} keep
 */
function applyConfig(store, entries, keep) {
  const before = store.entries();
  try {
    for (const [key] of before) if (!Object.hasOwn(entries, key) && !keep.includes(key)) store.remove(key);
    for (const [key, raw] of Object.entries(entries)) store.setRaw(key, raw);
  } catch (err) {
    for (const [key] of store.entries()) store.remove(key); // first free the space the new values took
    for (const [key, raw] of before) store.setRaw(key, raw);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------
// Small helpers

/** @param {FileSystem} fs @param {string} path @returns {Promise<DirEntry[]>} */
async function listIfExists(fs, path) {
  try {
    return await fs.list(path);
  } catch (err) {
    if (/** @type {{code?: string}} */ (err).code === 'not_found') return [];
    throw err;
  }
}

/** @param {string} dir @param {string} name */
const join = (dir, name) => (dir ? `${dir}/${name}` : name);

/** @param {string} what */
const corrupt = (what) => new BackupError('corrupt', `This backup is damaged or was altered: ${what}. Nothing was restored; use another copy of the backup.`);

/** @param {unknown} value @returns {value is string} a SecretBox-sealed API key */
const isSealed = (value) => typeof value === 'string' && value.startsWith('v1:');

/** @param {number} bytes */
const mb = (bytes) => Math.round(bytes / 1024 / 1024);

/** @param {unknown} err */
const errorText = (err) => /** @type {Error} */ (err)?.message ?? String(err);

/** @param {string} raw @returns {unknown} undefined when not JSON */
function parseJson(raw) {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** @param {Uint8Array} data */
async function sha256(data) {
  // digest() wants an ArrayBuffer-backed view; the storage returns plain Uint8Arrays.
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', /** @type {Uint8Array<ArrayBuffer>} */ (data)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** @param {Uint8Array[]} chunks @param {number} size */
function concat(chunks, size) {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}
