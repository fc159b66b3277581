// The "ordinary documents" of the injection detector's training and false-positive sets are the
// installed packages' files: the repository's own workspaces (linked into node_modules by npm,
// web/packages/wsh) are the project's code and stay out of them, so adding a workspace package
// does not move what the detector learns (the leave-family-out floor fell when it was in).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync } from 'node:fs';
import { packageChunks, packageReadmes } from '../fixtures/injection-benign-docs.mjs';

const OWN = /^node_modules\/@clawser\//;

test("no chunk or README of the package sets comes from the repository's own workspaces", () => {
  // Control: the workspace really is linked in, so the walk would meet it.
  assert.ok(lstatSync(new URL('../../node_modules/@clawser/wsh', import.meta.url)).isSymbolicLink());
  for (const heldOut of [false, true]) {
    const chunks = packageChunks({ heldOut, limit: Number.MAX_SAFE_INTEGER, perFile: 1 });
    assert.ok(chunks.length > 100, 'the packages are read');
    assert.deepEqual(
      chunks.filter((c) => OWN.test(c.file)).map((c) => c.file),
      [],
    );
    const readmes = packageReadmes({ heldOut, limit: Number.MAX_SAFE_INTEGER });
    assert.ok(readmes.length > 10);
    assert.deepEqual(
      readmes.filter((r) => OWN.test(r.file)).map((r) => r.file),
      [],
    );
  }
});
