// A model's facts (images, reasoning) have one home, web/providers/model-facts.js: what the
// image limits, the providers' supportsVision and the wires' reasoning settings say of a model
// comes from its record there, and from the host only for models without one (issue 33 §1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WEB } from '../fixtures/web-modules.mjs';

const { CATALOG } = await import('../../web/providers/catalog.js');
const { imageLimitsFor } = await import('../../web/providers/images.js');
const { createProvider } = await import('../../web/providers/index.js');
const { modelFacts, modelReasons, MODELS } = await import('../../web/providers/model-facts.js');

const entry = (/** @type {string} */ id) => CATALOG.find((e) => e.id === id);

test("a router's model takes images as its record says, whatever the host's flag", () => {
  // OpenRouter's flag says images; DeepSeek's chat model takes none.
  assert.equal(imageLimitsFor(entry('openrouter'), 'deepseek/deepseek-chat').accepts, false);
  // Control: a model whose record says images, through the same host.
  assert.equal(imageLimitsFor(entry('openrouter'), 'openai/gpt-4o').accepts, true);
  // Mistral's host has no flag; its small model reads images, its large one does not.
  assert.equal(imageLimitsFor(entry('mistral'), 'mistral-small-latest').accepts, true);
  assert.equal(imageLimitsFor(entry('mistral'), 'mistral-large-latest').accepts, false);
});

test('a model without a record falls back to the host (and local servers to the model name)', () => {
  assert.equal(modelFacts('scripted-1'), undefined);
  assert.equal(imageLimitsFor(entry('openai'), 'some-new-model').accepts, true, "OpenAI's host flag");
  assert.equal(imageLimitsFor(entry('openai-compatible'), 'some-new-model').accepts, false);
  assert.equal(imageLimitsFor(entry('ollama'), 'llava:7b').accepts, true);
  assert.equal(imageLimitsFor(entry('ollama'), 'qwen2.5:7b').accepts, false);
});

test("a provider's supportsVision is the image limits' answer for its model", () => {
  const make = (/** @type {string} */ provider, /** @type {string} */ model) =>
    createProvider({ provider, model, apiKey: 'k', baseUrl: 'http://127.0.0.1:9' });
  for (const [provider, model] of [
    ['openrouter', 'deepseek/deepseek-chat'],
    ['openrouter', 'openai/gpt-4o'],
    ['mistral', 'mistral-small-latest'],
    ['mistral', 'mistral-large-latest'],
    ['openai', 'gpt-4o-mini'],
    ['openai-compatible', 'scripted-1'],
    ['ollama', 'llava:7b'],
    ['ollama', 'qwen2.5:7b'],
  ]) {
    const p = make(provider, model);
    assert.equal(!!p.supportsVision, imageLimitsFor(entry(provider), model).accepts, `${provider} ${model}`);
  }
});

test('which models reason: the record decides; ids without one are matched by family', () => {
  assert.equal(modelReasons('gpt-5-mini'), true);
  assert.equal(modelReasons('gpt-4.1'), false);
  assert.equal(modelReasons('o3-mini'), true);
  assert.equal(modelReasons('o1-preview'), true, 'no record: the o-series family');
  assert.equal(modelReasons('gemini-2.5-flash'), true);
  assert.equal(modelReasons('gemini-2.0-flash'), false);
  assert.equal(modelReasons('gemini-3-pro-preview'), true, 'no record: a later Gemini');
  assert.equal(modelReasons('models/gemini-1.5-pro'), false);
  assert.equal(modelReasons('scripted-1'), false);
});

test('every record states images and reasoning when it states its tools, so no record is half known', () => {
  for (const [id, facts] of Object.entries(MODELS))
    assert.equal(typeof facts.tools, 'boolean', `${id}: tools, images and reasoning are stated (false where it has none)`);
});

test('no wire keeps its own list of reasoning or image models', () => {
  for (const file of ['gemini.js', 'openai-responses.js', 'http.js', 'openai.js', 'anthropic.js']) {
    const source = readFileSync(join(WEB, 'providers', file), 'utf8');
    assert.doesNotMatch(source, /const [A-Z_]*(?:REASONING|THINKING|VISION)[A-Z_]* = \//, file);
  }
});

test('the first-run card names the services a key opens from the registry, one name per service', async () => {
  const { keyProviderNames } = await import('../../web/app/settings.js');
  const names = keyProviderNames();
  // Control: the registry has two entries for OpenAI's service (its two APIs), both needing a key.
  assert.equal(CATALOG.filter((e) => e.capabilities.key === 'required' && e.baseUrl === entry('openai')?.baseUrl).length, 2);
  assert.deepEqual(names.slice(0, 3), ['OpenAI', 'Anthropic', 'Google Gemini']);
  assert.ok(!names.includes('OpenAI Responses'));
  for (const e of CATALOG.filter((x) => x.capabilities.key === 'required'))
    assert.ok(names.includes(e.label) || e.id === 'openai-responses', `${e.id} is named`);
  assert.ok(!names.includes(entry('ollama')?.label ?? ''), 'a provider without a key is not');
});
