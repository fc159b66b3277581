import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRoute, formatRoute } from '../../web/app/router.js';
import { resolveStaticPath, startServer, appRoot } from '../../scripts/static-server.mjs';
import { buildPrecacheManifest } from '../../scripts/build-manifest.mjs';
import { readFile } from 'node:fs/promises';

test('routes parse and format both ways', () => {
  assert.deepEqual(parseRoute(''), { name: 'home' });
  assert.deepEqual(parseRoute('#home'), { name: 'home' });
  assert.deepEqual(parseRoute('#workspace/w1'), { name: 'workspace', workspaceId: 'w1', panel: 'chat' });
  assert.deepEqual(parseRoute('#workspace/w1/settings'), { name: 'workspace', workspaceId: 'w1', panel: 'settings' });
  assert.deepEqual(parseRoute('#workspace/w1/bogus', ['files']), { name: 'workspace', workspaceId: 'w1', panel: 'chat' });
  // Without the registry's names (the first views run before it exists) a name is kept as
  // written: a panel registered later is not taken for the chat.
  assert.deepEqual(parseRoute('#workspace/w1/bogus'), { name: 'workspace', workspaceId: 'w1', panel: 'bogus' });
  assert.deepEqual(parseRoute('#workspace/w1/conversation/c9'), {
    name: 'workspace',
    workspaceId: 'w1',
    panel: 'chat',
    conversationId: 'c9',
  });
  assert.deepEqual(parseRoute('#workspace/%E0%A4%A'), { name: 'workspace', workspaceId: '%E0%A4%A', panel: 'chat' });
  for (const hash of ['#home', '#workspace/w1', '#workspace/w1/settings', '#workspace/w1/conversation/c9'])
    assert.equal(formatRoute(parseRoute(hash)), hash);
});

test('static server: paths outside the app are refused', () => {
  const root = '/srv/app';
  assert.equal(resolveStaticPath(root, '/'), '/srv/app/index.html');
  assert.equal(resolveStaticPath(root, '/web/app/main.js'), '/srv/app/web/app/main.js');
  for (const bad of [
    '/../etc/passwd',
    '/web/../../etc/passwd',
    '/%2e%2e/etc/passwd',
    '/web/%2e%2e/%2e%2e/x',
    '/node_modules/zod/package.json',
    '/.git/config',
    '/package.json',
    '/web\\..\\x',
    '/web/%00x',
    '/%E0%A4%A',
  ]) {
    assert.equal(resolveStaticPath(root, bad), null, bad);
  }
});

test('static server: MIME types, no-cache, 404 and 405', async () => {
  const server = await startServer({ port: 0 });
  const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  try {
    const cases = [
      ['/', 'text/html'],
      ['/web/app/main.js', 'text/javascript'],
      ['/manifest.webmanifest', 'application/manifest+json'],
      ['/web/vendor/ort/ort-wasm-simd.wasm', 'application/wasm'],
      ['/sw.js', 'text/javascript'],
      ['/precache-manifest.js', 'text/javascript'],
    ];
    for (const [path, type] of cases) {
      const res = await fetch(base + path);
      assert.equal(res.status, 200, path);
      assert.ok((res.headers.get('content-type') ?? '').startsWith(type), path);
      assert.equal(res.headers.get('cache-control'), 'no-cache', path);
      await res.arrayBuffer();
    }
    assert.equal((await fetch(`${base}/package.json`)).status, 404);
    assert.equal((await fetch(`${base}/web/nope.js`)).status, 404);
    assert.equal((await fetch(`${base}/`, { method: 'POST' })).status, 405);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('static server: every response, errors included, forbids framing by other origins', async () => {
  const server = await startServer({ port: 0 });
  const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  try {
    for (const [path, method, status] of /** @type {const} */ ([
      ['/', 'GET', 200],
      ['/web/packages/andbox/frame.html', 'GET', 200],
      ['/sw.js', 'HEAD', 200],
      ['/package.json', 'GET', 404],
      ['/', 'POST', 405],
    ])) {
      const res = await fetch(base + path, { method });
      assert.equal(res.status, status, path);
      assert.equal(res.headers.get('content-security-policy'), "frame-ancestors 'self'", `${method} ${path}`);
      assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN', `${method} ${path}`);
      await res.arrayBuffer();
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('precache manifest lists the shell, every app module and the vendor files', async () => {
  const { files, version } = await buildPrecacheManifest();
  assert.match(version, /^[0-9a-f]{16}$/);
  for (const f of [
    './',
    './index.html',
    './manifest.webmanifest',
    './web/app/main.js',
    './web/storage/opfs-worker.js',
    './web/vendor/zod.js',
    './web/vendor/ort/ort-wasm-simd.wasm',
    './icons/maskable-512.png',
  ]) {
    assert.ok(files.includes(f), f);
  }
  // Every import map entry is precached.
  const html = await readFile(`${appRoot}/index.html`, 'utf8');
  const map = JSON.parse(/<script type="importmap">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '{}');
  for (const url of Object.values(map.imports)) assert.ok(files.includes(String(url)), String(url));
});

test('web app manifest is installable: standalone, 192/512 icons and maskable', async () => {
  const m = JSON.parse(await readFile(`${appRoot}/manifest.webmanifest`, 'utf8'));
  assert.equal(m.display, 'standalone');
  assert.ok(m.name && m.short_name && m.start_url);
  const sizes = (/** @type {string} */ purpose) =>
    m.icons.filter((/** @type {any} */ i) => i.purpose === purpose).map((/** @type {any} */ i) => i.sizes);
  assert.deepEqual(sizes('any'), ['192x192', '512x512']);
  assert.deepEqual(sizes('maskable'), ['192x192', '512x512']);
});

test('andbox frame.html is generated from frame-script.txt with a matching CSP hash', async () => {
  const { andboxFrameHtml, andboxFrameVersion, andboxFrameVersionModule } = await import('../../scripts/andbox-frame.mjs');
  const onDisk = await readFile(`${appRoot}/web/packages/andbox/frame.html`, 'utf8');
  assert.equal(onDisk, await andboxFrameHtml(), 'run: node scripts/andbox-frame.mjs');
  assert.match(onDisk, /connect-src 'none'/);
  assert.match(onDisk, /worker-src blob:/);
  // Its version (in the URL the client loads) is the hash of exactly these bytes.
  assert.equal(
    await readFile(`${appRoot}/web/packages/andbox/frame-version.js`, 'utf8'),
    andboxFrameVersionModule(andboxFrameVersion(onDisk)),
    'run: node scripts/andbox-frame.mjs',
  );
});

test('static server: an internal error is a 500 with the framing headers, not a request left hanging', async () => {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const empty = await mkdtemp(`${tmpdir()}/clawser-empty-`);
  const server = await startServer({ port: 0, root: empty });
  const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  const quiet = console.error;
  console.error = () => {}; // the server logs the error; the test does not need it on screen
  try {
    const res = await fetch(`${base}/precache-manifest.js`);
    assert.equal(res.status, 500);
    assert.equal(await res.text(), 'Internal server error');
    assert.equal(res.headers.get('content-security-policy'), "frame-ancestors 'self'");
  } finally {
    console.error = quiet;
    server.closeAllConnections();
    server.close();
    await rm(empty, { recursive: true, force: true });
  }
});

test('static server: the versioned sandbox frame is cacheable for a year (its navigation never reaches the service worker); \
everything else revalidates', async () => {
  const server = await startServer({ port: 0 });
  const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  try {
    const versioned = await fetch(`${base}/web/packages/andbox/frame.html?v=abc`);
    assert.equal(versioned.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    await versioned.arrayBuffer();
    for (const path of ['/web/packages/andbox/frame.html', '/web/packages/andbox/index.js', '/']) {
      const res = await fetch(base + path);
      assert.equal(res.headers.get('cache-control'), 'no-cache', path);
      await res.arrayBuffer();
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("index.html is current: import map, its CSP hash, modulepreload of the first view and the list of the app's modules", async () => {
  const { renderIndexHtml, currentImports } = await import('../../scripts/index-html.mjs');
  const onDisk = await readFile(`${appRoot}/index.html`, 'utf8');
  assert.equal(onDisk, await renderIndexHtml(await currentImports()), 'run: node scripts/index-html.mjs');
  // The page preloads the first view's modules only; main.js preloads the app's after painting.
  assert.match(onDisk, /<link rel="modulepreload" href="\.\/web\/app\/first-view\.js">/);
  assert.doesNotMatch(onDisk, /<link rel="modulepreload" href="\.\/web\/(app\/app|agent\/conversation\/conversation)\.js">/);
  const listed = JSON.parse(/<script type="application\/json" id="app-modules">([\s\S]*?)<\/script>/.exec(onDisk)?.[1] ?? '[]');
  // What the app loads with import() once a workspace opens (main.js preloads it after the home screen is ready).
  const later = JSON.parse(/<script type="application\/json" id="workspace-modules">([\s\S]*?)<\/script>/.exec(onDisk)?.[1] ?? '[]');
  assert.ok(listed.includes('./web/app/app.js') && later.includes('./web/agent/conversation/conversation.js'));
  assert.ok(!listed.includes('./web/app/first-view.js'), 'listed once');
  assert.ok(!later.some((/** @type {string} */ f) => listed.includes(f) || f === './web/app/first-view.js'), 'listed once');
  // The home screen's path to app-ready loads none of a workspace's machinery: its services and
  // every tool family, its chat, its views, job delivery, the settings dialog.
  for (const f of [
    './web/app/workspace-services.js',
    './web/tools/index.js',
    './web/app/chat-assembly.js',
    './web/ui/chat-view.js',
    './web/ui/workspace-view.js',
    './web/app/job-delivery.js',
    './web/stores/scheduler.js',
    './web/ui/settings-dialog.js',
  ]) {
    assert.ok(!listed.includes(f), `${f} is not on the home screen's path`);
    assert.ok(later.includes(f), `${f} is preloaded for a workspace`);
  }
  // The run loop and the providers load with the first turn, not at start-up.
  for (const list of [listed, later])
    assert.ok(!list.includes('./web/agent/runtime/agent.js') && !list.includes('./web/providers/index.js'));
  // The memory store and its index load with the workspace's services, not with the workspace:
  // the memory tools (loaded with every tool family) take only its categories.
  assert.ok(later.includes('./web/tools/memory.js'), 'control: the memory tools are on the list');
  for (const f of ['./web/memory/store.js', './web/memory/search.js', './web/memory/recall.js', './web/memory/summaries.js'])
    assert.ok(!listed.includes(f) && !later.includes(f), `${f} is not loaded at start-up`);
  // A panel's entry file loads when the panel first opens: the app registers it from panel-nav.js.
  assert.ok(listed.includes('./web/app/panels.js') && listed.includes('./web/app/panel-nav.js'), 'control: the registry is');
  assert.ok(!listed.some((/** @type {string} */ f) => f.startsWith('./web/app/panels/')), 'no panel entry file is loaded at start-up');
  // A workspace's chat paints from its own short list (preloaded by route-preload.js on such a route).
  const workspace = JSON.parse(
    /<script type="application\/json" id="workspace-view-modules">([\s\S]*?)<\/script>/.exec(onDisk)?.[1] ?? '[]',
  );
  for (const f of [
    './web/app/workspace-first-view.js',
    './web/ui/chat-view.js',
    './web/ui/workspace-view.js',
    './web/agent/conversation/conversation.js',
  ])
    assert.ok(workspace.includes(f), f);
  for (const f of [
    './web/app/app.js',
    './web/app/chat-controller.js',
    './web/app/panels.js',
    './web/storage/opfs-fs.js',
    './web/app/first-view.js',
  ])
    assert.ok(!workspace.includes(f), f);
  // What the first paint never needs loads when first used: a message's editor, a failure's
  // alert, the provider card (painted only in a workspace without a provider).
  for (const f of ['./web/ui/chat/reading-place.js', './web/ui/chat/versions.js']) assert.ok(workspace.includes(f), `control: ${f} is`);
  for (const f of ['./web/ui/chat/message-editor.js', './web/ui/chat/failure.js', './web/ui/first-run.js'])
    assert.ok(!workspace.includes(f), `${f} is not on the first view's list`);
  // 24 before the icons; the rail draws SVG icons (web/ui/icon.js and the vendored web/vendor/icons.js); the
  // conversation list (groups, pins, its More menu) is a module of its own (web/ui/conversation-list-view.js), its
  // grouping another (conversation-groups.js, without the DOM, so the unit tests check it).
  assert.ok(workspace.length < 29, `a short list: ${workspace.length}`);
});

test("the navigation drawn by the first view is the panel registry's: same names, labels, icons, shortcuts, order", async () => {
  const { loadBuiltinPanels } = await import('../../web/app/panels.js');
  const { PANEL_NAV, panelNav } = await import('../../web/app/panel-nav.js');
  assert.deepEqual(
    (await loadBuiltinPanels()).map(({ name, label, icon, shortcut, split }) => ({ name, label, icon, shortcut, split })),
    PANEL_NAV,
  );
  assert.throws(() => panelNav('nope'), /No built-in panel/);
});

test("panel shortcuts: Alt+key by the key's position, Alt+0 the chat, nothing with other modifiers", async () => {
  const { PANEL_NAV, panelOfShortcut } = await import('../../web/app/panel-nav.js');
  const key = (/** @type {string} */ code, /** @type {string} */ k, mods = {}) => ({
    altKey: true,
    ctrlKey: false,
    metaKey: false,
    shiftKey: false,
    code,
    key: k,
    ...mods,
  });
  assert.equal(panelOfShortcut(key('Digit1', '¡'), PANEL_NAV), 'files', 'a Mac types another character');
  assert.equal(panelOfShortcut(key('Digit0', '0'), PANEL_NAV), 'chat');
  assert.equal(panelOfShortcut(key('KeyM', 'µ'), PANEL_NAV), 'servers');
  assert.equal(panelOfShortcut(key('KeyQ', 'q'), PANEL_NAV), null);
  assert.equal(panelOfShortcut(key('Digit1', '1', { ctrlKey: true }), PANEL_NAV), null);
  assert.equal(panelOfShortcut(key('Digit1', '1', { altKey: false }), PANEL_NAV), null);
});

test('APP_VERSION matches package.json (it is recorded in backups)', async () => {
  const { APP_VERSION } = await import('../../web/app/version.js');
  const { readFile } = await import('node:fs/promises');
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.equal(APP_VERSION, pkg.version);
});

test('panel registry: a panel is one entry (name, label, icon, shortcut, view); the router knows the registered names', async () => {
  const { PanelRegistry, loadBuiltinPanels } = await import('../../web/app/panels.js');
  const registry = new PanelRegistry();
  for (const p of await loadBuiltinPanels()) registry.register(p);
  assert.deepEqual(
    registry.list().map((p) => p.name),
    [
      'files',
      'git',
      'memory',
      'goals',
      'schedule',
      'tools',
      'events',
      'dashboard',
      'skills',
      'servers',
      'remote',
      'channels',
      'terminal',
      'agents',
      'config',
    ],
  );
  assert.deepEqual(
    registry.list().map((p) => p.shortcut),
    ['Alt+1', 'Alt+2', 'Alt+3', 'Alt+4', 'Alt+5', 'Alt+6', 'Alt+7', 'Alt+8', 'Alt+S', 'Alt+M', 'Alt+R', 'Alt+C', 'Alt+T', 'Alt+A', 'Alt+9'],
  );
  for (const p of registry.list()) assert.ok(p.label && p.icon && typeof p.open === 'function', p.name);
  const view = { root: /** @type {any} */ ({}) }; // any: a stand-in element, never rendered here
  const off = registry.register({ name: 'heartbeat', label: 'Heartbeat', icon: 'heart-pulse', shortcut: '', open: () => view });
  assert.equal(registry.get('heartbeat')?.label, 'Heartbeat');
  assert.throws(
    () => registry.register({ name: 'heartbeat', label: 'Again', icon: '', shortcut: '', open: () => view }),
    /already registered/,
  );
  for (const name of ['chat', 'settings', 'Bad Name', ''])
    assert.throws(() => registry.register({ name, label: 'x', icon: '', shortcut: '', open: () => view }), /Invalid panel name/);
  // The router accepts any registered panel, and sends unknown ones to the chat.
  const names = registry.list().map((p) => p.name);
  assert.deepEqual(parseRoute('#workspace/w1/heartbeat', names), { name: 'workspace', workspaceId: 'w1', panel: 'heartbeat' });
  assert.deepEqual(parseRoute('#workspace/w1/settings', names), { name: 'workspace', workspaceId: 'w1', panel: 'settings' });
  off();
  assert.deepEqual(
    parseRoute(
      '#workspace/w1/heartbeat',
      registry.list().map((p) => p.name),
    ),
    { name: 'workspace', workspaceId: 'w1', panel: 'chat' },
  );
});
