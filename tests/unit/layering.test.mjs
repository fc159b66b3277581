// The dependency direction of docs/architecture.md, checked on every module's runtime imports
// (type-only `@import` comments are free): UI modules get what they show from the controllers
// the app passes in, so they import only other UI modules and the safe Markdown renderer;
// only the app wires views, so nothing below it imports the app or the UI; the agent is above
// the tools, providers and stores; the stores of web/stores/ (goals, jobs, usage) sit below the
// agent and the tools, which both use them; storage is the floor; web/net/ (the offline check, the SSE
// parser) is a leaf that imports nothing outside itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname, resolve, relative } from 'node:path';
import { WEB, webModules } from '../fixtures/web-modules.mjs';

/** The relative module specifiers a source imports at run time (static, side-effect and dynamic). @param {string} source */
export function runtimeImports(source) {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found = code.matchAll(
    new RegExp(
      String.raw`(?:^|[\n;])\s*(?:import|export)\s[^;'"]*?from\s*['"]([^'"]+)['"]|(?:^|` +
        String.raw`[\n;])\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)`,
      'g',
    ),
  );
  return [...found].map((m) => m[1] ?? m[2] ?? m[3]).filter((s) => s.startsWith('.'));
}

/** Every app module (vendor excluded). */
const modules = webModules;

/** The package of web/packages/ a file belongs to ('andbox', 'wsh'), or '' outside them. @param {string} path */
const packageOf = (path) => {
  const [top, name] = relative(WEB, path).split('/');
  return top === 'packages' ? name : '';
};

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
      if (from === 'ui' && to !== 'ui' && relative(WEB, target) !== 'safety/markdown.js')
        bad.push(`${edge}: a UI module imports only UI modules and the safe renderer; pass the rest in from the app`);
      if ((to === 'app' || to === 'ui') && from !== 'app' && from !== 'ui' && from !== 'clawser.js')
        bad.push(`${edge}: only the app imports the app and the UI`);
      if (to === 'agent' && !['agent', 'app', 'clawser.js'].includes(from))
        bad.push(`${edge}: the agent sits above the tools, providers and stores; pass what they need in`);
      if (from === 'stores' && ['agent', 'tools', 'app', 'ui'].includes(to))
        bad.push(
          `${edge}: a store of web/stores/ sits below the agent and the tools (both use it); it imports storage, safety, mcp…, never ` +
            `the agent, tools, app or UI`,
        );
      if (from === 'storage' && to !== 'storage') bad.push(`${edge}: storage imports nothing above it`);
      if (from === 'packages' && packageOf(path) !== packageOf(target))
        bad.push(
          `${edge}: a package of web/packages/ is standalone: it imports only its own modules (the app imports it, never the reverse)`,
        );
      if (from === 'net' && to !== 'net')
        bad.push(`${edge}: web/net/ imports nothing outside it (a leaf under everything that talks to the network)`);
    }
  }
  return bad;
}

/**
 * The relative module specifiers a source names in types only: JSDoc `@import` and `import('…')`
 * in its comments, or any import of a `.d.ts` file.
 * @param {string} source @param {boolean} declarations the source is a `.d.ts` file
 */
export function typeImports(source, declarations = false) {
  const typed = declarations ? [source] : [...source.matchAll(/\/\*[\s\S]*?\*\//g)].map((m) => m[0]);
  return typed
    .flatMap((text) => [...text.matchAll(/\bfrom\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2]))
    .filter((s) => s.startsWith('.'));
}

/**
 * UI modules that name a type of the app (a concrete controller, a store's record): a view
 * states what it needs as an interface of its own (web/ui/types.d.ts), which the app's
 * classes satisfy where the app hands them over.
 * @param {{path: string, source: string}[]} files
 */
export function typeViolations(files) {
  return files
    .filter(({ path }) => layerOf(path) === 'ui')
    .flatMap(({ path, source }) =>
      typeImports(source, path.endsWith('.d.ts'))
        .map((spec) => resolve(dirname(path), spec))
        .filter((target) => layerOf(target) === 'app')
        .map(
          (target) =>
            `${relative(WEB, path)} → ${relative(WEB, target)}: a view names an interface of its own (web/ui/types.d.ts), not the app's ` +
            `types`,
        ),
    );
}

/**
 * What modules outside the UI take from it by name at run time, when it is not a view, a dialog
 * or a DOM helper: rules belong below the UI (the command palette once took the chat's
 * conversation rules from the chat view).
 * @param {{path: string, source: string}[]} files
 */
export function ruleImports(files) {
  /** @type {string[]} */
  const bad = [];
  for (const { path, source } of files) {
    if (layerOf(path) === 'ui' || path.endsWith('.d.ts')) continue;
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    for (const m of code.matchAll(/(?:^|[\n;])\s*import\s*\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g)) {
      const target = resolve(dirname(path), m[2]);
      if (!m[2].startsWith('.') || layerOf(target) !== 'ui' || relative(WEB, target) === 'ui/dom.js') continue;
      for (const name of m[1]
        .split(',')
        .map((n) => n.trim().split(/\s+as\s+/)[0])
        .filter(Boolean)) {
        if (!/^[A-Z]/.test(name) && !/Dialog$/.test(name) && !/^open[A-Z]/.test(name))
          bad.push(
            `${relative(WEB, path)} imports ${name} from ${relative(WEB, target)}: only views, dialogs and DOM helpers come from the UI`,
          );
      }
    }
  }
  return bad;
}

/** Every `.d.ts` file of web/ (vendor excluded). @param {string} [dir] @returns {string[]} */
function declarationFiles(dir = WEB) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (path === join(WEB, 'vendor')) return [];
    if (e.isDirectory()) return declarationFiles(path);
    return e.name.endsWith('.d.ts') ? [path] : [];
  });
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
    {
      path: join(WEB, 'tools/x.js'),
      source: "import { e } from '../agent/scheduler.js';\nimport { f } from '../safety/leak-detector.js';",
    },
    { path: join(WEB, 'ui/y-panel.js'), source: "import { g } from '../safety/leak-detector.js';" },
    // web/net/ is a leaf: its modules import only each other (the second line is the control).
    {
      path: join(WEB, 'net/x.js'),
      source: "import { h } from '../providers/errors.js';\nimport { i } from './offline.js';\nconst j = import('../storage/errors.js');",
    },
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

test('a store of web/stores/ imports what is below it, never the agent, tools, app or UI (control: storage, safety, mcp; \
tools may import a store)', () => {
  const bad = violations([
    {
      path: join(WEB, 'stores/x.js'),
      source: "import { a } from '../agent/coordination/tabs.js';\nimport { b } from '../tools/registry.js';",
    },
    { path: join(WEB, 'stores/y.js'), source: "const c = import('../ui/dialogs.js');" },
    // Controls: what a store may import, and the tools (and the agent) importing a store.
    {
      path: join(WEB, 'stores/z.js'),
      source:
        "import { d } from '../storage/locked-json.js';\nimport { e } from " +
        "'../safety/standing-data.js';\nimport { f } from '../mcp/tool-lists.js';\nimport { g } from " +
        "'./schedule.js';",
    },
    { path: join(WEB, 'tools/x.js'), source: "import { GOAL_STATUSES } from '../stores/goals.js';" },
    { path: join(WEB, 'agent/runtime/x.js'), source: "import { h } from '../../stores/usage-ledger.js';" },
  ]);
  assert.equal(bad.filter((b) => b.includes('a store of web/stores/')).length, 3, bad.join('\n'));
  assert.ok(
    bad.some((b) => /^stores\/x\.js → agent\/coordination\/tabs\.js: a store of web\/stores\//.test(b)),
    bad.join('\n'),
  );
  assert.ok(
    bad.some((b) => /^stores\/x\.js → tools\/registry\.js: a store of web\/stores\//.test(b)),
    bad.join('\n'),
  );
  assert.ok(
    bad.some((b) => /^stores\/y\.js → ui\/dialogs\.js: a store of web\/stores\//.test(b)),
    bad.join('\n'),
  );
  assert.ok(
    !bad.some((b) => b.startsWith('stores/z.js') || b.startsWith('tools/x.js') || b.startsWith('agent/runtime/x.js')),
    bad.join('\n'),
  );
});

test('a package of web/packages/ imports only its own modules; the app, the tools and the stores may import it (control)', () => {
  const bad = violations([
    { path: join(WEB, 'packages/wsh/client.js'), source: "import { a } from '../../storage/local-config.js';" },
    { path: join(WEB, 'packages/wsh/keys.js'), source: "const b = import('../andbox/index.js');" },
    // Controls: a package's own modules, and the app's layers importing a package.
    { path: join(WEB, 'packages/wsh/index.js'), source: "export { c } from './client.js';\nimport { d } from './server/index.js';" },
    { path: join(WEB, 'stores/remote-machines.js'), source: "const e = import('../packages/wsh/index.js');" },
    { path: join(WEB, 'app/x.js'), source: "import { f } from '../packages/wsh/index.js';" },
  ]);
  const mine = bad.filter((b) => b.includes('a package of web/packages/'));
  assert.equal(mine.length, 2, bad.join('\n'));
  assert.ok(
    mine.some((b) => b.startsWith('packages/wsh/client.js → storage/local-config.js')),
    bad.join('\n'),
  );
  assert.ok(
    mine.some((b) => b.startsWith('packages/wsh/keys.js → packages/andbox/index.js')),
    bad.join('\n'),
  );
  assert.deepEqual(bad, mine, 'control: nothing else is flagged');
});

test('every module of web/ imports along the dependency direction', () => {
  const files = modules().map((path) => ({ path, source: readFileSync(path, 'utf8') }));
  assert.ok(files.length > 100 && files.some((f) => layerOf(f.path) === 'ui'), 'the modules were found');
  assert.deepEqual(violations(files), []);
});

test('typeImports finds JSDoc @import and import() types, and the imports of a .d.ts; not runtime imports', () => {
  const js = [
    "/** @import { ChatController } from '../app/chat-controller.js' */",
    "/** @param {import('../app/git-controller.js').GitState} s */",
    "import { h } from './dom.js';",
    "// a line comment naming '../app/x.js' is no import",
  ].join('\n');
  assert.deepEqual(typeImports(js), ['../app/chat-controller.js', '../app/git-controller.js']);
  const dts = "import type { ClawserEvent } from '../agent/types.d.ts';\nexport type X = import('../app/settings.js').WorkspaceSettings;";
  assert.deepEqual(typeImports(dts, true), ['../agent/types.d.ts', '../app/settings.js']);
});

test("the type checker flags a view that names an app type, and lets it name the agent's (control)", () => {
  const bad = typeViolations([
    {
      path: join(WEB, 'ui/x-panel.js'),
      source:
        "/** @import { GitController } from '../app/git-controller.js' */\n/** @import { ClawserEvent } from '../agent/types.d.ts' */",
    },
    {
      path: join(WEB, 'ui/types.d.ts'),
      source: "import type { Workspace } from '../app/workspaces.js';\nimport type { Usage } from '../providers/types.d.ts';",
    },
    // The app may name the UI's interfaces (it hands its classes to the views).
    { path: join(WEB, 'app/x.js'), source: "/** @import { ChatState } from '../ui/types.d.ts' */\n/** @import { Y } from './y.js' */" },
  ]);
  assert.equal(bad.length, 2, bad.join('\n'));
  assert.match(bad[0], /^ui\/x-panel\.js → app\/git-controller\.js: a view names an interface of its own/);
  assert.match(bad[1], /^ui\/types\.d\.ts → app\/workspaces\.js/);
});

test('no UI module names a type of the app: views state the interfaces they need', () => {
  const files = [...modules(), ...declarationFiles()].map((path) => ({ path, source: readFileSync(path, 'utf8') }));
  assert.ok(
    files.some((f) => layerOf(f.path) === 'ui') && files.some((f) => f.path.endsWith('.d.ts')),
    'the views and the declarations were read',
  );
  assert.deepEqual(typeViolations(files), []);
});

test('the rule checker flags a rule taken from a view, not a view, a dialog or a DOM helper (control)', () => {
  const bad = ruleImports([
    {
      path: join(WEB, 'app/x.js'),
      source:
        "import { stoppedLastReply, ChatView } from '../ui/chat-view.js';\nimport { confirmDialog } " +
        "from '../ui/dialogs.js';\nimport { h, pickFile } from '../ui/dom.js';",
    },
    {
      path: join(WEB, 'app/y.js'),
      source: "import { openCommandPalette } from '../ui/command-palette.js';\nimport { fuzzyRank } from './fuzzy.js';",
    },
  ]);
  assert.deepEqual(bad, ['app/x.js imports stoppedLastReply from ui/chat-view.js: only views, dialogs and DOM helpers come from the UI']);
});

test('the app takes views, dialogs and DOM helpers from the UI, never its rules', () => {
  const files = modules().map((path) => ({ path, source: readFileSync(path, 'utf8') }));
  assert.deepEqual(ruleImports(files), []);
});
