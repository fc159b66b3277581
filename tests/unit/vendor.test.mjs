// The vendored packages (scripts/vendor.mjs): zod's `z` is built from the functions the app
// uses, so every `z.name` called in web/ must be on it — a missing one would fail only at run time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const TYPE_ONLY = new Set(['infer', 'input', 'output']);

/** @param {string} dir @returns {AsyncGenerator<string>} */
async function* jsFiles(dir) {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'vendor') yield* jsFiles(p);
    } else if (p.endsWith('.js')) yield p;
  }
}

test('every z.name the app calls exists on the vendored z (and behaves like zod)', async () => {
  // Imported by URL so the type checker does not read the minified bundle; its types are zod's.
  /** @type {typeof import('zod')} */
  const { z } = await import(String(new URL('../../web/vendor/zod.js', import.meta.url)));
  /** @type {Map<string, string>} */
  const used = new Map();
  for await (const file of jsFiles(new URL('../../web', import.meta.url).pathname)) {
    const text = await readFile(file, 'utf8');
    if (!/from 'zod'/.test(text)) continue;
    for (const m of text.matchAll(/\bz\.([A-Za-z]+)\b/g)) if (!TYPE_ONLY.has(m[1])) used.set(m[1], file);
  }
  assert.ok(used.size >= 10, `found ${used.size} names`);
  for (const [name, file] of used)
    assert.ok(name in z, `z.${name} (used in ${file}) is missing from web/vendor/zod.js: add it to ZOD_FUNCTIONS in scripts/vendor.mjs`);
  const r = z.object({ a: z.string().min(2), b: z.enum(['x', 'y']) }).safeParse({ a: 1, b: 'q' });
  assert.equal(r.success, false);
  assert.match(r.error?.issues[0].message ?? '', /expected string, received number/);
});
