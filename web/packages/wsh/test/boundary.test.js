// The package stands alone: its modules import only each other, `zod`, `ws` and Node's own
// modules — nothing of Clawser's app — and the browser modules import nothing of Node's.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Modules the browser loads (the rest are the server, the bin, the Node entry and the tests). */
const BROWSER = ['index.js', 'client.js', 'keys.js', 'protocol.js', 'errors.js', 'transport.js'];

/** @param {string} dir @returns {string[]} */
function modules(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(path).isDirectory()) return modules(path);
    return path.endsWith('.js') ? [path] : [];
  });
}

/** The specifiers a source imports (static and dynamic with a string). @param {string} source */
export function importsOf(source) {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(/(?:^|[\n;])\s*(?:import|export)\s[^;'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => m[1] ?? m[2],
  );
}

/** The outside MCP client of the /mcp tests: the official SDK, a dev dependency of the repository (tests only). */
const MCP_SDK_CLIENT = '@modelcontextprotocol/client';
/** @param {string} file */
const inTests = (file) => relative(ROOT, file).startsWith(`test${'/'}`);

test('every import stays in the package or names zod, ws or a node: module (tests: also the MCP SDK client)', () => {
  /** @type {string[]} */
  const bad = [];
  const files = modules(ROOT);
  assert.ok(files.length >= 15, 'the modules were found');
  for (const file of files) {
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) {
        if (relative(ROOT, resolve(dirname(file), spec)).startsWith('..')) bad.push(`${relative(ROOT, file)} → ${spec}`);
      } else if (!['zod', 'ws'].includes(spec) && !spec.startsWith('node:') && !(inTests(file) && spec === MCP_SDK_CLIENT))
        bad.push(`${relative(ROOT, file)} → ${spec}`);
    }
  }
  assert.deepEqual(bad, []);
  // Control: the scan sees an import that leaves.
  assert.deepEqual(importsOf("import { x } from '../../app/app.js';\nawait import('node:fs');"), ['../../app/app.js', 'node:fs']);
});

test("package.json declares every package its files import (tests: devDependencies, at the root's ranges)", () => {
  const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const root = JSON.parse(readFileSync(join(ROOT, '../../../package.json'), 'utf8'));
  /** @param {string} spec the package a specifier names (@scope/name or name) */
  const packageOf = (spec) =>
    spec
      .split('/')
      .slice(0, spec.startsWith('@') ? 2 : 1)
      .join('/');
  /** @type {string[]} */
  const undeclared = [];
  for (const file of modules(ROOT)) {
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.') || spec.startsWith('node:')) continue;
      const name = packageOf(spec);
      const declared = inTests(file) ? (own.dependencies[name] ?? own.devDependencies?.[name]) : own.dependencies[name];
      if (!declared) undeclared.push(`${relative(ROOT, file)} → ${name}`);
    }
  }
  assert.deepEqual(undeclared, []);
  for (const [name, range] of Object.entries(own.devDependencies ?? {})) {
    assert.equal(range, root.devDependencies[name], `${name}: the same range as the repository's`);
  }
  // Control: the check sees a test import that is not declared.
  assert.equal(own.devDependencies['left-pad'], undefined);
  assert.equal(packageOf('@modelcontextprotocol/client/sub'), '@modelcontextprotocol/client');
});

test('the browser modules import nothing of Node (no node:, no ws)', () => {
  for (const name of BROWSER) {
    const specs = importsOf(readFileSync(join(ROOT, name), 'utf8'));
    assert.deepEqual(
      specs.filter((s) => s.startsWith('node:') || s === 'ws'),
      [],
      name,
    );
  }
});
