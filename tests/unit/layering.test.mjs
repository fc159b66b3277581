// The dependency direction of docs/architecture.md, checked on every module's runtime imports
// (type-only `@import` comments are free): UI modules get what they show from the controllers
// the app passes in, so they import only other UI modules and the safe Markdown renderer;
// only the app wires views, so nothing below it imports the app or the UI; the agent is above
// the tools, providers and stores; the stores of web/stores/ (goals, jobs, usage) sit below the
// agent and the tools, which both use them; storage is the floor; web/net/ (the offline check, the SSE
// parser) is a leaf that imports nothing outside itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname, resolve, relative } from 'node:path';
import { WEB, webModules } from '../fixtures/web-modules.mjs';


/** The relative module specifiers a source imports at run time (static, side-effect and dynamic). @param {string} source */
export function runtimeImports(source) {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found = code.matchAll(/(?:^|[\n;])\s*(?:import|export)\s[^;'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\n;])\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g);
  return [...found].map((m) => m[1] ?? m[2] ?? m[3]).filter((s) => s.startsWith('.'));
}

/** Every app module (vendor excluded). */
const modules = webModules;

/** The top-level folder under web/ a file belongs to ('clawser.js' for the public API module). @param {string} path */
const layerOf = (path) => relative(WEB, path).split('/')[0];

/**
 * The imports that break the rules, as "from → to".
 * @param {{path: string, source: string}[]} files
 */
export function violations(files) {
  /** @type {string[]} */
  const bad = [];
  for (const { path, source } of files) {
    const from = layerOf(path);
    for (const spec of runtimeImports(source)) {
      const target = resolve(dirname(path), spec);
      const to = layerOf(target);
      const edge = `${relative(WEB, path)} → ${relative(WEB, target)}`;
      if (from === 'ui' && to !== 'ui' && relative(WEB, target) !== 'safety/markdown.js') bad.push(`${edge}: a UI module imports only UI modules and the safe renderer; pass the rest in from the app`);
      if ((to === 'app' || to === 'ui') && from !== 'app' && from !== 'ui' && from !== 'clawser.js') bad.push(`${edge}: only the app imports the app and the UI`);
      if (to === 'agent' && !['agent', 'app', 'clawser.js'].includes(from)) bad.push(`${edge}: the agent sits above the tools, providers and stores; pass what they need in`);
      if (from === 'stores' && ['agent', 'tools', 'app', 'ui'].includes(to)) bad.push(`${edge}: a store of web/stores/ sits below the agent and the tools (both use it); it imports storage, safety, mcp…, never the agent, tools, app or UI`);
      if (from === 'storage' && to !== 'storage') bad.push(`${edge}: storage imports nothing above it`);
      if (from === 'net' && to !== 'net') bad.push(`${edge}: web/net/ imports nothing outside it (a leaf under everything that talks to the network)`);
    }
  }
  return bad;
}

test('runtimeImports finds static, re-exported and dynamic imports, not type-only ones', () => {
  const src = [
    "/** @import { X } from '../agent/x.js' */",
    "import { h } from './dom.js';",
    "import './side.js';",
    "export { y } from '../app/y.js';",
    "// import { z } from '../memory/z.js';",
    "const m = await import('../memory/store.js');",
    "import { zod } from 'zod';",
  ].join('\n');
  assert.deepEqual(runtimeImports(src), ['./dom.js', './side.js', '../app/y.js', '../memory/store.js']);
});

test('the checker flags each kind of wrong import (control)', () => {
  const bad = violations([
    { path: join(WEB, 'ui/x-panel.js'), source: "import { a } from '../memory/summaries.js';\nimport { b } from '../safety/markdown.js';" },
    { path: join(WEB, 'agent/x.js'), source: "import { c } from '../ui/dialogs.js';" },
    { path: join(WEB, 'storage/x.js'), source: "const d = import('../app/x.js');" },
    { path: join(WEB, 'tools/x.js'), source: "import { e } from '../agent/scheduler.js';\nimport { f } from '../safety/leak-detector.js';" },
    { path: join(WEB, 'ui/y-panel.js'), source: "import { g } from '../safety/leak-detector.js';" },
    // web/net/ is a leaf: its modules import only each other (the second line is the control).
    { path: join(WEB, 'net/x.js'), source: "import { h } from '../providers/errors.js';\nimport { i } from './offline.js';\nconst j = import('../storage/errors.js');" },
  ]);
  assert.equal(bad.length, 8, bad.join('\n'));
  assert.match(bad[0], /^ui\/x-panel\.js → memory\/summaries\.js/);
  assert.match(bad[1], /^agent\/x\.js → ui\/dialogs\.js/);
  assert.match(bad[2], /^storage\/x\.js → app\/x\.js: only the app imports/);
  assert.match(bad[3], /^storage\/x\.js → app\/x\.js: storage imports nothing above it/);
  assert.match(bad[4], /^tools\/x\.js → agent\/scheduler\.js: the agent sits above/);
  assert.match(bad[5], /^ui\/y-panel\.js → safety\/leak-detector\.js/);
  assert.match(bad[6], /^net\/x\.js → providers\/errors\.js: web\/net\/ imports nothing outside it/);
  assert.match(bad[7], /^net\/x\.js → storage\/errors\.js: web\/net\/ imports nothing outside it/);
});

test('a store of web/stores/ imports what is below it, never the agent, tools, app or UI (control: storage, safety, mcp; tools may import a store)', () => {
  const bad = violations([
    { path: join(WEB, 'stores/x.js'), source: "import { a } from '../agent/coordination/tabs.js';\nimport { b } from '../tools/registry.js';" },
    { path: join(WEB, 'stores/y.js'), source: "const c = import('../ui/dialogs.js');" },
    // Controls: what a store may import, and the tools (and the agent) importing a store.
    { path: join(WEB, 'stores/z.js'), source: "import { d } from '../storage/locked-json.js';\nimport { e } from '../safety/standing-data.js';\nimport { f } from '../mcp/tool-lists.js';\nimport { g } from './schedule.js';" },
    { path: join(WEB, 'tools/x.js'), source: "import { GOAL_STATUSES } from '../stores/goals.js';" },
    { path: join(WEB, 'agent/runtime/x.js'), source: "import { h } from '../../stores/usage-ledger.js';" },
  ]);
  assert.equal(bad.filter((b) => b.includes('a store of web/stores/')).length, 3, bad.join('\n'));
  assert.ok(bad.some((b) => /^stores\/x\.js → agent\/coordination\/tabs\.js: a store of web\/stores\//.test(b)), bad.join('\n'));
  assert.ok(bad.some((b) => /^stores\/x\.js → tools\/registry\.js: a store of web\/stores\//.test(b)), bad.join('\n'));
  assert.ok(bad.some((b) => /^stores\/y\.js → ui\/dialogs\.js: a store of web\/stores\//.test(b)), bad.join('\n'));
  assert.ok(!bad.some((b) => b.startsWith('stores/z.js') || b.startsWith('tools/x.js') || b.startsWith('agent/runtime/x.js')), bad.join('\n'));
});

test('every module of web/ imports along the dependency direction', () => {
  const files = modules().map((path) => ({ path, source: readFileSync(path, 'utf8') }));
  assert.ok(files.length > 100 && files.some((f) => layerOf(f.path) === 'ui'), 'the modules were found');
  assert.deepEqual(violations(files), []);
});
