// Provider errors say what to do: a local server that is not running, a base URL that lacks
// "/v1", and being offline are named as such (issue 13), not as "check your internet connection".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fetchError, httpError } from '../../web/providers/errors.js';
import { isLocalAddress } from '../../web/net/offline.js';
import { diagnoseNetworkFailure } from '../../web/providers/connection.js';

const refused = new TypeError('Failed to fetch');

test('local addresses: loopback, this machine and the private networks', () => {
  for (const url of [
    'http://localhost:11434/v1',
    'http://127.0.0.1:1234',
    'http://[::1]:8080/v1',
    'http://0.0.0.0:5000',
    'http://192.168.1.20:11434',
    'http://10.0.0.5/v1',
    'http://172.20.1.1:8000',
    'http://gpu-box.local:8080',
  ]) {
    assert.equal(isLocalAddress(url), true, url);
  }
  for (const url of ['https://api.openai.com/v1', 'https://openrouter.ai/api/v1', 'http://172.32.0.1', 'not a url', ''])
    assert.equal(isLocalAddress(url), false, url);
});

test('a local server that does not answer: "is it running?", not "check your internet connection"', () => {
  const e = fetchError(refused, { label: 'LM Studio', url: 'http://localhost:1234/v1/chat/completions', online: true });
  assert.equal(e.code, 'network');
  assert.match(e.message, /Nothing answered at http:\/\/localhost:1234/);
  assert.match(e.message, /Is the LM Studio server running\? Start it/);
  assert.doesNotMatch(e.message, /internet/);
  // Control: a remote host keeps the connection and CORS advice.
  const remote = fetchError(refused, { label: 'OpenAI', url: 'https://api.openai.com/v1/chat/completions', online: true });
  assert.match(remote.message, /Check your connection and the base URL/);
});

test('offline: the error and the connection test say so', async () => {
  const e = fetchError(refused, { label: 'OpenAI', url: 'https://api.openai.com/v1/chat/completions', online: false });
  assert.equal(e.message, 'You are offline, so OpenAI at https://api.openai.com could not be reached. Reconnect and try again.');
  // A local server needs no internet: being offline is not the reason there.
  assert.doesNotMatch(
    fetchError(refused, { label: 'Ollama', url: 'http://localhost:11434/v1/chat/completions', online: false }).message,
    /offline/,
  );
  // The connection test says the same.
  const fetchImpl = /** @type {typeof fetch} */ (
    async () => {
      throw refused;
    }
  );
  // a catalog entry's fields this function reads
  const entry = /** @type {any} */ ({ id: 'openai', label: 'OpenAI', baseUrl: 'https://api.openai.com/v1' });
  // the provider settings' fields it reads
  const settings = /** @type {any} */ ({ provider: 'openai', model: 'm', baseUrl: 'https://api.openai.com/v1' });
  const offline = await diagnoseNetworkFailure(entry, settings, { fetchImpl, origin: 'http://localhost:8000', online: false });
  assert.equal(
    !offline.ok && offline.message,
    'You are offline, so OpenAI at https://api.openai.com/v1 could not be reached. Reconnect and try again.',
  );
  // Control: online, the advice is about the connection and the base URL.
  const online = await diagnoseNetworkFailure(entry, settings, { fetchImpl, origin: 'http://localhost:8000', online: true });
  assert.match(
    !online.ok ? online.message : '',
    /Could not reach OpenAI at https:\/\/api\.openai\.com\/v1\. Check your internet connection/,
  );
});

test('HTTP 404 from a base URL without a version segment suggests the missing /v1', () => {
  const e = httpError({
    status: 404,
    body: '404 page not found',
    label: 'Ollama',
    model: 'llama3',
    url: 'http://localhost:11434/chat/completions',
  });
  assert.match(e.message, /missing "\/v1"/);
  assert.match(e.message, /http:\/\/localhost:11434\/v1/);
  // Control: a URL that has a version segment gets the plain advice; a missing model is about the model.
  assert.doesNotMatch(
    httpError({ status: 404, body: 'not found', label: 'OpenAI', model: 'm', url: 'https://api.openai.com/v1/chat/completions' }).message,
    /\/v1"/,
  );
  assert.match(
    httpError({
      status: 404,
      body: '{"error":{"message":"model not found"}}',
      label: 'OpenAI',
      model: 'gpt-x',
      url: 'https://api.openai.com/v1/chat/completions',
    }).message,
    /model "gpt-x" was not found/,
  );
});

test('the connection test names a local server that is not running by its address, whatever the preset', async () => {
  const fetchImpl = /** @type {typeof fetch} */ (
    async () => {
      throw refused;
    }
  );
  // a catalog entry's fields this function reads
  const entry = /** @type {any} */ ({ id: 'openai-compatible', label: 'OpenAI-compatible', baseUrl: '' });
  const r = await diagnoseNetworkFailure(
    entry,
    /** @type {any} */ ({ provider: 'openai-compatible', model: 'm', baseUrl: 'http://127.0.0.1:8080/v1' }),
    { fetchImpl, origin: 'http://localhost:8000' },
  );
  assert.ok(!r.ok && r.code === 'network');
  assert.match(r.message, /Is the server at http:\/\/127\.0\.0\.1:8080\/v1 running\?/);
  assert.doesNotMatch(r.message, /internet/);
});
