// The provider registry (web/providers/catalog.js): every wire format declares itself there —
// its id, its capabilities and a lazy factory — and every provider (a host: OpenAI, Groq, LM
// Studio…) names its wire and says what it needs. Nothing else knows a wire or a provider by
// name: index.js has no switch, and no module outside the registry and a wire's own file
// (web/providers/<wire id>.js) names a wire or provider id. So the next provider is one new file
// plus one registry entry (CONTRIBUTING.md, "A provider").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { WEB, webModules } from '../fixtures/web-modules.mjs';
import { CAPABILITIES, HOST_FIELDS } from '../fixtures/provider-declaration.mjs';

const { CATALOG, WIRES } = await import('../../web/providers/catalog.js');
const { createProvider } = await import('../../web/providers/index.js');

/** What a provider offered on the first-run card (a local one) says there. */
const SETUP_FIELDS = ['title', 'checking', 'action'];

/**
 * The problems of a wire declaration: each capability it lacks or gives a value it may not take.
 * @param {any} wire
 */
function wireProblems(wire) {
  /** @type {string[]} */
  const out = [];
  if (typeof wire?.id !== 'string' || !/^[a-z][a-z0-9-]*$/.test(wire.id)) out.push('id');
  if (typeof wire?.load !== 'function') out.push('load (the lazy factory)');
  for (const [name, ok] of Object.entries(CAPABILITIES)) {
    if (!wire?.capabilities || !(name in wire.capabilities)) out.push(`capabilities.${name} (missing)`);
    else if (!ok(wire.capabilities[name])) out.push(`capabilities.${name} (${JSON.stringify(wire.capabilities[name])})`);
  }
  return out;
}

/** @param {any} host */
function hostProblems(host) {
  /** @type {string[]} */
  const out = [];
  for (const [name, ok] of Object.entries(HOST_FIELDS)) if (!ok(host?.[name])) out.push(name);
  if (host?.local) for (const f of SETUP_FIELDS) if (typeof host.setup?.[f] !== 'string' || !host.setup[f]) out.push(`setup.${f}`);
  return out;
}

test('a wire declaration must declare its id, every capability and a lazy factory; a declaration that lacks one is refused', () => {
  const [sample] = WIRES;
  assert.deepEqual(wireProblems(sample), [], 'control: a registered wire passes');
  for (const name of Object.keys(CAPABILITIES)) {
    const { [name]: _dropped, ...rest } = /** @type {Record<string, unknown>} */ ({ ...sample.capabilities });
    assert.deepEqual(wireProblems({ ...sample, capabilities: rest }), [`capabilities.${name} (missing)`], name);
  }
  assert.deepEqual(wireProblems({ ...sample, load: undefined }), ['load (the lazy factory)']);
  assert.deepEqual(wireProblems({ ...sample, capabilities: { ...sample.capabilities, key: 'maybe' } }), ['capabilities.key ("maybe")']);
  const [host] = CATALOG;
  assert.deepEqual(hostProblems(host), [], 'control: a listed provider passes');
  assert.deepEqual(hostProblems({ ...host, wire: 'no-such-wire' }), ['wire']);
  assert.deepEqual(hostProblems({ ...host, local: true, setup: { title: 'x', checking: 'y' } }), ['setup.action']);
});

test('every registered wire and provider declares all it must', () => {
  assert.ok(WIRES.length >= 7 && CATALOG.length >= WIRES.length);
  for (const wire of WIRES) assert.deepEqual(wireProblems(wire), [], wire.id);
  for (const host of CATALOG) assert.deepEqual(hostProblems(host), [], host.id);
  assert.equal(new Set(WIRES.map((w) => w.id)).size, WIRES.length, 'wire ids are unique');
  assert.equal(new Set(CATALOG.map((e) => e.id)).size, CATALOG.length, 'provider ids are unique');
  for (const wire of WIRES)
    assert.ok(
      CATALOG.some((e) => e.wire === wire.id),
      `${wire.id}: some provider speaks it`,
    );
});

test("each wire's lazy factory loads its own file, web/providers/<wire id>.js, whose providers do what the capabilities say", async () => {
  for (const wire of WIRES) {
    assert.ok(existsSync(join(WEB, 'providers', `${wire.id}.js`)), `${wire.id}: its file`);
    const mod = await wire.load();
    assert.equal(mod, await import(`../../web/providers/${wire.id}.js`), `${wire.id}: load() is the wire's own module`);
    assert.equal(typeof mod.create, 'function', `${wire.id}: exports create()`);
    assert.equal(typeof mod.availability === 'function', wire.capabilities.availability, `${wire.id}: availability() iff declared`);
  }
  for (const entry of CATALOG) {
    const caps = entry.capabilities;
    const baseUrl = entry.baseUrl || 'https://example.test/v1';
    const config = { provider: entry.id, apiKey: 'k', model: entry.defaultModel || 'm', baseUrl };
    const p = /** @type {any} */ (createProvider(config)); // any: the optional methods are looked for
    assert.equal(p.id, entry.id);
    assert.equal(p.supportsNativeTools, caps.tools === 'native', `${entry.id}: tools`);
    assert.equal(typeof p.listModels === 'function', caps.listsModels, `${entry.id}: lists models iff declared`);
    assert.equal(typeof p.pullModel === 'function', caps.pullsModels, `${entry.id}: pulls models iff declared`);
    assert.equal(!!p.connects, caps.runs === 'http', `${entry.id}: an HTTP wire reports when it connected`);
  }
});

test('the capabilities a provider resolves to: key and base URL needs, local, images', () => {
  const caps = (/** @type {string} */ id) => CATALOG.find((e) => e.id === id)?.capabilities;
  for (const e of CATALOG) {
    const w = /** @type {(typeof WIRES)[number]} */ (WIRES.find((x) => x.id === e.wire));
    assert.equal(e.capabilities.key, w.capabilities.key === 'none' ? 'none' : e.needsKey ? 'required' : 'optional', e.id);
    assert.equal(e.capabilities.baseUrl, w.capabilities.baseUrl === 'none' ? 'none' : e.baseUrl ? 'optional' : 'required', e.id);
    assert.equal(e.capabilities.local, e.local, e.id);
  }
  // Controls on both sides of each question.
  assert.equal(caps('openai')?.key, 'required');
  assert.equal(caps('lmstudio')?.key, 'optional');
  assert.equal(caps('openai-compatible')?.baseUrl, 'required');
  assert.equal(caps('groq')?.baseUrl, 'optional');
  assert.equal(caps('perplexity')?.tools, 'codex');
  assert.equal(caps('openrouter')?.tools, 'native');
});

// ---- (b) Nobody else knows a wire or a provider by name. ----

/** The ids nobody but the registry and a wire's own file may name. */
const WIRE_IDS = [...new Set(CATALOG.map((e) => e.wire))];
const PROVIDER_IDS = CATALOG.map((e) => e.id);
const NAMES = [...new Set([...WIRE_IDS, ...PROVIDER_IDS])];
const REGISTRY = join(WEB, 'providers', 'catalog.js');

/** @param {string} source */
const withoutComments = (source) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

/**
 * Where a source names a wire or provider, or branches on a wire: string literals equal to an id,
 * comparisons with `.wire`, a switch on it.
 * @param {string} source @param {string[]} names @returns {string[]}
 */
export function namedWires(source, names) {
  const code = withoutComments(source);
  /** @type {string[]} */
  const found = [];
  for (const m of code.matchAll(/(['"`])([a-z][a-z0-9-]*)\1/g)) if (names.includes(m[2])) found.push(m[0]);
  for (const m of code.matchAll(/\.wire\s*[!=]==?|[!=]==?\s*[\w.?]*\.wire\b|switch\s*\([^)]*\bwire\b/g)) found.push(m[0]);
  return found;
}

/**
 * The web modules where a name is allowed: the registry everywhere; a wire's own file for its
 * own id and the ids of the providers that speak it. The shell is left out: `echo` there is the
 * shell's command, not the Echo provider (and nothing in the shell deals with providers).
 * @param {string} path
 */
function allowedNames(path) {
  if (path === REGISTRY) return NAMES;
  const own = WIRE_IDS.find((id) => path === join(WEB, 'providers', `${id}.js`));
  return own ? [own, ...CATALOG.filter((e) => e.wire === own).map((e) => e.id)] : [];
}

/** Every .js module and .d.ts under web/ but the shell's (see allowedNames). */
const SCANNED = [
  ...webModules(),
  ...readdirSync(WEB, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.d.ts') && !f.startsWith('vendor/'))
    .map((f) => join(WEB, f)),
].filter((p) => !relative(WEB, p).startsWith('shell/'));

test('the scanner finds a wire named in a literal, a comparison with .wire and a switch on it; not in comments or other words', () => {
  const planted = [
    "if (entry.wire === 'ollama') pull();",
    "const free = provider === 'echo';",
    'switch (entry.wire) { default: }',
    'const chosen = { provider: "chrome-ai" };',
    'if (x.wire !== y) no();',
  ].join('\n');
  assert.deepEqual(namedWires(planted, NAMES), ["'ollama'", "'echo'", '"chrome-ai"', '.wire ===', 'switch (entry.wire', '.wire !==']);
  // Controls: comments, other words and URLs are not names.
  const quiet = "// entry.wire === 'ollama'\n/** 'echo' */\nconst s = 'echo me'; const u = 'https://ollama.com';";
  assert.deepEqual(namedWires(quiet, NAMES), []);
  const ollamaHosts = CATALOG.filter((e) => e.wire === 'ollama').map((e) => e.id);
  assert.deepEqual(allowedNames(join(WEB, 'providers', 'ollama.js')), ['ollama', ...ollamaHosts]);
  assert.deepEqual(allowedNames(join(WEB, 'ui', 'settings-dialog.js')), []);
  assert.ok(SCANNED.includes(join(WEB, 'providers', 'types.d.ts')) && SCANNED.includes(join(WEB, 'ui', 'settings-dialog.js')));
});

test("web/providers/index.js has no switch; no module outside the registry and a wire's own file names a wire or a provider", () => {
  /** @type {string[]} */
  const named = [];
  // index.js makes providers through the registry's lazy factories, not a switch.
  const index = withoutComments(readFileSync(join(WEB, 'providers', 'index.js'), 'utf8'));
  if (/\bswitch\s*\(/.test(index)) named.push('providers/index.js: a switch');
  for (const path of SCANNED) {
    const allowed = allowedNames(path);
    const found = namedWires(readFileSync(path, 'utf8'), NAMES).filter((n) => !allowed.includes(n.slice(1, -1)));
    if (found.length) named.push(`${relative(WEB, path)}: ${[...new Set(found)].join(', ')}`);
  }
  assert.deepEqual(named, [], "ask the provider's capabilities (catalog entry .capabilities) instead");
  // Control: the registry itself names them all.
  assert.ok(NAMES.every((n) => namedWires(readFileSync(REGISTRY, 'utf8'), NAMES).includes(`'${n}'`)));
});
