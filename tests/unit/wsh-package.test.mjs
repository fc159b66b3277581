// The wsh package in the app: the service worker's precache ships its browser modules and none
// of what only runs in Node (the server, the bin, the Node entry, tests, package.json); and
// `npm run test:unit` runs the package's own tests against the real server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildPrecacheManifest, notForTheBrowser } from '../../scripts/build-manifest.mjs';

test('the precache holds the wsh browser modules and none of its server-only files', async () => {
  const { files } = await buildPrecacheManifest();
  for (const f of ['index.js', 'client.js', 'keys.js', 'protocol.js', 'errors.js', 'transport.js'])
    assert.ok(files.includes(`./web/packages/wsh/${f}`), `control: ${f} is precached`);
  const wsh = files.filter((f) => f.startsWith('./web/packages/wsh/'));
  const serverOnly = wsh.filter((f) => /\/wsh\/(bin|server|test|types)\/|\/wsh\/(node\.js|package\.json|README\.md|API\.md)$/.test(f));
  assert.deepEqual(serverOnly, []);
  assert.ok(files.includes('./web/packages/andbox/index.js'), 'control: the other package is untouched');
});

test('notForTheBrowser matches the server-only paths only', () => {
  assert.equal(notForTheBrowser('web/packages/wsh/server/index.js'), true);
  assert.equal(notForTheBrowser('web/packages/wsh/bin/wsh-server.js'), true);
  assert.equal(notForTheBrowser('web/packages/wsh/package.json'), true);
  assert.equal(notForTheBrowser('web/packages/wsh/test/auth.test.js'), true);
  assert.equal(notForTheBrowser('web/packages/wsh/client.js'), false, 'control');
  assert.equal(notForTheBrowser('web/packages/wsh/serverless.js'), false, 'control: a prefix of a name is not a folder');
});

test('npm run test:unit runs the wsh package tests', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.match(pkg.scripts['test:unit'], /web\/packages\/wsh\/test\//);
});
