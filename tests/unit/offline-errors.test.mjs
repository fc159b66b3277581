// Offline named as the cause (issue 13): when the browser says it is offline (navigator.onLine
// false), every network path — git remotes, web_fetch and curl, MCP servers, skills from a URL
// and the skills registry — says so, not "CORS" or "is the server running?". Each has a
// control: online, the same failure keeps its old message. A local address needs no internet,
// so being offline is never its reason.
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { offlineExplains, offlineMessage } from '../../web/net/offline.js';
import { toGitError } from '../../web/git/errors.js';
import { webFetch, webSearch, ruleFetch } from '../../web/tools/web.js';
import { toolSettings } from '../../web/tools/index.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { createShell } from '../../web/shell/shell.js';
import { McpClient, McpError } from '../../web/mcp/client.js';
import { skillsFromUrl } from '../../web/skills/sources.js';
import { checkUpdates } from '../../web/skills/registry.js';
import { SkillError } from '../../web/skills/store.js';

const OFFLINE = /^(curl: )?You are offline, so .+ could not be reached\. Reconnect and try again\.$/;

/** What fetch throws when nothing could be reached (or CORS refused the answer). */
const failedFetch = /** @type {typeof fetch} */ (
  async () => {
    throw new TypeError('Failed to fetch');
  }
);

const original = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
/** Stubs navigator.onLine as the browser reports it. @param {boolean} onLine */
function setOnline(onLine) {
  Object.defineProperty(globalThis, 'navigator', { value: { ...globalThis.navigator, onLine }, configurable: true, writable: true });
}
afterEach(() => {
  if (original) Object.defineProperty(globalThis, 'navigator', original);
  else delete (/** @type {{navigator?: unknown}} */ (globalThis).navigator);
});

test('the check: offline and a remote address; online, unknown or a local address is not offline', () => {
  assert.equal(offlineExplains('https://example.com/x', false), true);
  assert.equal(offlineExplains(undefined, false), true, 'no address: any request needed the network');
  assert.equal(offlineExplains('https://example.com/x', true), false);
  assert.equal(offlineExplains('http://127.0.0.1:8080/x', false), false, 'a local server needs no internet');
  setOnline(false);
  assert.equal(offlineExplains('https://example.com/x'), true, 'navigator.onLine is read at the time of the call');
  setOnline(true);
  assert.equal(offlineExplains('https://example.com/x'), false);
  assert.match(offlineMessage('example.com'), OFFLINE);
});

test('git: a clone, pull or push that cannot reach the server while offline says so', () => {
  const err = new TypeError('Failed to fetch');
  setOnline(false);
  const e = /** @type {import('../../web/git/errors.js').GitError} */ (toGitError(err, { url: 'https://github.com/me/repo.git' }));
  assert.equal(e.code, 'network');
  assert.match(e.message, OFFLINE);
  assert.match(e.message, /the git server \(https:\/\/github\.com\/me\/repo\.git\)/);
  assert.doesNotMatch(e.message, /CORS/);
  // Through a CORS proxy on the internet, offline is still the reason; through a local one, it is not.
  assert.match(toGitError(err, { url: 'https://github.com/me/repo.git', corsProxy: 'https://proxy.example' }).message, OFFLINE);
  assert.match(
    toGitError(err, { url: 'https://github.com/me/repo.git', corsProxy: 'http://localhost:9999' }).message,
    /through the CORS proxy http:\/\/localhost:9999/,
  );
  assert.match(toGitError(err, { url: 'http://127.0.0.1:8174/repo.git' }).message, /\(CORS\)\. Set a CORS proxy/);
  // Control: online, the same failure keeps the CORS advice.
  setOnline(true);
  const online = /** @type {import('../../web/git/errors.js').GitError} */ (toGitError(err, { url: 'https://github.com/me/repo.git' }));
  assert.equal(online.code, 'cors');
  assert.match(online.message, /it is offline, or it does not allow requests from web pages \(CORS\)\. Set a CORS proxy/);
});

test('web_fetch: offline is named instead of "unreachable or CORS"', async () => {
  const ctx = { workspaceId: 'w', fs: new MemoryFileSystem(), settings: toolSettings(), fetch: failedFetch };
  setOnline(false);
  const offline = await webFetch.run({ url: 'https://example.com/page' }, ctx);
  assert.equal(offline.ok, false);
  assert.match(offline.output, OFFLINE);
  assert.match(offline.output, /https:\/\/example\.com\/page could not be reached/);
  setOnline(true);
  const online = await webFetch.run({ url: 'https://example.com/page' }, ctx);
  assert.equal(
    online.output,
    'Could not fetch https://example.com/page: the site is unreachable or does not allow requests from a web page (CORS).',
  );
});

test('web_search: offline is named instead of "could not be reached (or does not allow requests)"', async () => {
  const ctx = {
    workspaceId: 'w',
    fs: new MemoryFileSystem(),
    settings: toolSettings({ searchEndpoint: 'https://searx.example/' }),
    fetch: failedFetch,
  };
  setOnline(false);
  const offline = await webSearch.run({ query: 'cats' }, ctx);
  assert.equal(offline.ok, false);
  assert.match(offline.output, OFFLINE);
  assert.match(offline.output, /the search service at searx\.example could not be reached/);
  setOnline(true);
  const online = await webSearch.run({ query: 'cats' }, ctx);
  assert.equal(online.output, 'The search service at searx.example could not be reached (or does not allow requests from this page).');
});

test('the shell\'s curl: offline is named instead of "unreachable or CORS"', async () => {
  const curl = ruleFetch({ fetch: failedFetch, settings: { allowedPrivateHosts: [], fetchAllowlist: [] } });
  setOnline(false);
  await assert.rejects(curl('https://example.com/data.json'), (err) => err instanceof Error && OFFLINE.test(err.message));
  // What the user sees: the command's error output.
  const shell = createShell({ fs: new MemoryFileSystem(), fetch: curl });
  const run = await shell.run('curl -sS https://example.com/data.json');
  assert.notEqual(run.exitCode, 0);
  assert.match(run.stderr, /You are offline, so https:\/\/example\.com\/data\.json could not be reached\. Reconnect and try again\./);
  setOnline(true);
  await assert.rejects(
    curl('https://example.com/data.json'),
    new RegExp(
      String.raw`^Error: curl: could not reach https:\/\/example\.com\/data\.json \(the site is unre` +
        String.raw`achable or does not allow requests from a web page: CORS\)$`,
    ),
  );
});

test('MCP: a server that cannot be reached while offline is not asked "is it running?"', async () => {
  /** @type {string[]} */
  const asked = [];
  const fetchFn = /** @type {typeof fetch} */ (
    async (_u, init) => {
      asked.push(init?.mode ?? 'cors');
      throw new TypeError('Failed to fetch');
    }
  );
  setOnline(false);
  await assert.rejects(
    new McpClient({ url: 'https://mcp.example/mcp', fetch: fetchFn }).connect(),
    (err) =>
      err instanceof McpError &&
      err.code === 'unreachable' &&
      OFFLINE.test(err.message) &&
      /mcp\.example could not be reached/.test(err.message),
  );
  assert.ok(!asked.includes('no-cors'), 'offline, there is no CORS probe to make');
  // A local server needs no internet: offline or not, the question is whether it runs.
  await assert.rejects(
    new McpClient({ url: 'http://127.0.0.1:9/mcp', fetch: failedFetch }).connect(),
    (err) => err instanceof McpError && /is the server running/.test(err.message),
  );
  setOnline(true);
  await assert.rejects(
    new McpClient({ url: 'https://mcp.example/mcp', fetch: failedFetch }).connect(),
    (err) => err instanceof McpError && err.code === 'unreachable' && /could not be reached: is the server running/.test(err.message),
  );
});

test('skills: installing from a URL and checking the registry while offline say so', async () => {
  setOnline(false);
  await assert.rejects(
    skillsFromUrl('https://skills.example/pdf.zip', failedFetch),
    (err) =>
      err instanceof SkillError &&
      err.code === 'not_found' &&
      OFFLINE.test(err.message) &&
      /skills\.example could not be reached/.test(err.message),
  );
  await assert.rejects(
    checkUpdates('https://registry.example/index.json', [], failedFetch),
    (err) =>
      err instanceof Error &&
      /** @type {{code?: string}} */ (err).code === 'unreachable' &&
      OFFLINE.test(err.message) &&
      /the skills registry at https:\/\/registry\.example\/index\.json/.test(err.message),
  );
  setOnline(true);
  await assert.rejects(
    skillsFromUrl('https://skills.example/pdf.zip', failedFetch),
    /could not be reached \(offline, or it does not allow browsers to download from it: CORS\)/,
  );
  await assert.rejects(
    checkUpdates('https://registry.example/index.json', [], failedFetch),
    /could not be reached \(offline, or it does not allow browsers: CORS\)/,
  );
});
