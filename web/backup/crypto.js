import { toBase64, fromBase64 } from '../storage/base64.js';
import { z } from 'zod';
import { PREFIX, BackupError, corrupt, issueText, parseJson } from './common.js';

/** Passphrase encryption of the API keys in a backup: PBKDF2-SHA-256 → AES-GCM. */

const KDF_ITERATIONS = 600_000;

const ConfigKey = z.string().startsWith(PREFIX);
const Base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/);
export const SealedSchema = z.object({
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
/** @typedef {z.infer<typeof SealedSchema>} Sealed */

/** @param {string} passphrase @param {Uint8Array<ArrayBuffer>} salt @param {number} iterations */
async function deriveKey(passphrase, salt, iterations) {
  const base = await crypto.subtle.importKey('raw', new TextEncoder().encode(passphrase), 'PBKDF2', false, ['deriveKey']);
  return crypto.subtle.deriveKey({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, base, { name: 'AES-GCM', length: 256 }, false, [
    'encrypt',
    'decrypt',
  ]);
}

/** @param {Record<string, string>} clear @param {string} passphrase @returns {Promise<Sealed>} */
export async function sealSecrets(clear, passphrase) {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await deriveKey(passphrase, salt, KDF_ITERATIONS);
  const data = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(JSON.stringify(clear))));
  return {
    kdf: { name: 'PBKDF2', hash: 'SHA-256', iterations: KDF_ITERATIONS, salt: toBase64(salt) },
    iv: toBase64(iv),
    data: toBase64(data),
  };
}

/** @param {Sealed} sealed @param {string} passphrase */
export async function openSecrets(sealed, passphrase) {
  const salt = fromBase64(sealed.kdf.salt);
  const iv = fromBase64(sealed.iv);
  if (salt.length < 16 || iv.length !== 12) throw corrupt('secrets.json has a salt or IV of the wrong size');
  const key = await deriveKey(passphrase, salt, sealed.kdf.iterations);
  let plain;
  try {
    plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, key, fromBase64(sealed.data));
  } catch (err) {
    // AES-GCM cannot tell a wrong passphrase from altered bytes; the first is far likelier.
    throw new BackupError(
      'wrong_passphrase',
      'The passphrase is wrong, so the API keys in this backup cannot be opened. Try again, or restore without the API keys.',
      { cause: err },
    );
  }
  const parsed = SecretsSchema.safeParse(parseJson(new TextDecoder().decode(plain)));
  if (!parsed.success) throw corrupt(`its API key section is invalid (${issueText(parsed.error)})`);
  return parsed.data;
}
