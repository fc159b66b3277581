/**
 * Update checks against a skills registry index: a JSON file the user points Clawser at
 * (nothing is asked unless they turn it on). Format:
 * `{"skills": [{"name": "pdf-tools", "version": "1.2.0", "url": "https://…/pdf-tools.zip", "description": "…"}]}`.
 * An installed skill's version is its `metadata.version`.
 */
import { z } from 'zod';
import { offlineExplains, offlineMessage } from '../net/offline.js';

export const RegistryIndexSchema = z.object({
  skills: z
    .array(
      z.object({
        name: z.string().min(1).max(64),
        version: z.string().min(1).max(64),
        url: z.string().url().max(2000),
        description: z.string().max(1024).optional(),
      }),
    )
    .max(10_000),
});

export class RegistryError extends Error {
  /** @param {'unreachable' | 'http' | 'invalid'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'RegistryError';
    this.code = code;
  }
}

/**
 * Compares dotted versions numerically ("1.10.0" > "1.9.2"); a pre-release ("1.0.0-beta") is
 * below its release. Negative when a < b.
 * @param {string} a @param {string} b
 */
export function compareVersions(a, b) {
  const parse = (/** @type {string} */ v) => {
    const [main, pre] = v.trim().replace(/^v/i, '').split('-', 2);
    return { parts: main.split('.').map((p) => Number.parseInt(p, 10) || 0), pre: pre ?? null };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < Math.max(x.parts.length, y.parts.length); i++) {
    const d = (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
    if (d) return d;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === null) return 1;
  if (y.pre === null) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/**
 * The installed skills the registry has a newer version of.
 * @param {string} indexUrl
 * @param {{name: string, version: string | null}[]} installed
 * @param {typeof fetch} [fetchFn]
 * @returns {Promise<{name: string, installed: string | null, latest: string, url: string}[]>}
 */
export async function checkUpdates(indexUrl, installed, fetchFn = globalThis.fetch.bind(globalThis)) {
  let res;
  try {
    res = await fetchFn(indexUrl, { credentials: 'omit', cache: 'no-cache' });
  } catch {
    if (offlineExplains(indexUrl)) throw new RegistryError('unreachable', offlineMessage(`the skills registry at ${indexUrl}`));
    throw new RegistryError(
      'unreachable',
      `The skills registry at ${indexUrl} could not be reached (offline, or it does not allow browsers: CORS).`,
    );
  }
  if (!res.ok) throw new RegistryError('http', `The skills registry answered HTTP ${res.status} at ${indexUrl}.`);
  let parsed;
  try {
    parsed = RegistryIndexSchema.safeParse(await res.json());
  } catch {
    throw new RegistryError('invalid', `${indexUrl} is not JSON: not a skills registry index.`);
  }
  if (!parsed.success)
    throw new RegistryError(
      'invalid',
      `${indexUrl} is not a skills registry index (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}).`,
    );
  const latest = new Map();
  for (const s of parsed.data.skills)
    if (!latest.has(s.name) || compareVersions(s.version, latest.get(s.name).version) > 0) latest.set(s.name, s);
  return installed.flatMap((i) => {
    const l = latest.get(i.name);
    return l && (i.version === null || compareVersions(l.version, i.version) > 0)
      ? [{ name: i.name, installed: i.version, latest: l.version, url: l.url }]
      : [];
  });
}
