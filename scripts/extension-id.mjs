// The id Chrome gives the companion extension (extension/): the first 128 bits of the SHA-256 of
// its public key (the manifest's `key`, base64 DER), each hex digit written as a letter a–p.
// `node scripts/extension-id.mjs` prints the id of extension/manifest.json; with a path, that
// manifest's (a copy packed under an organization's own key).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The manifest of the repository's extension. */
export const MANIFEST = fileURLToPath(new URL('../extension/manifest.json', import.meta.url));

/** @param {string} key the manifest's `key` (base64 of the DER public key) */
export function extensionIdOf(key) {
  const hex = createHash('sha256').update(Buffer.from(key, 'base64')).digest('hex').slice(0, 32);
  return [...hex].map((c) => String.fromCharCode(97 + Number.parseInt(c, 16))).join('');
}

/** @param {string} [path] a manifest.json */
export function manifestId(path = MANIFEST) {
  const manifest = JSON.parse(readFileSync(path, 'utf8'));
  if (typeof manifest.key !== 'string') throw new Error(`${path} has no "key": its id would change with every install.`);
  return extensionIdOf(manifest.key);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(manifestId(process.argv[2]));
