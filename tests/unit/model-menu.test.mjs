// The chat header's model menu (web/app/chat/model-choice.js): the workspace provider's models and
// its fallbacks; a choice saved through the workspace's settings, a fallback swapping places.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { modelMenu, switchModel } from '../../web/app/chat/model-choice.js';
import { ChatError } from '../../web/app/chat/errors.js';

test("the menu: the chosen model first, then the provider's others (those that answered here first), then the fallbacks; \
none without a provider", () => {
  const menu = modelMenu({ provider: 'openai', model: 'my-model', baseUrl: '' }, [
    { provider: 'anthropic', model: 'claude-haiku-4-5', baseUrl: '' },
    { provider: 'nowhere', model: 'x', baseUrl: '' },
    { provider: 'ollama', model: '', baseUrl: '' },
  ]);
  assert.equal(menu?.current, 'model:my-model');
  assert.equal(menu?.label, 'OpenAI · my-model', "the workspace's provider and model in words (the top bar's badge)");
  assert.deepEqual(menu?.choices.slice(0, 3), [
    { id: 'model:my-model', label: 'my-model', group: 'OpenAI' },
    { id: 'model:gpt-4.1-mini', label: 'gpt-4.1-mini', group: 'OpenAI' },
    { id: 'model:gpt-4.1', label: 'gpt-4.1', group: 'OpenAI' },
  ]);
  assert.deepEqual(
    menu?.choices.filter((c) => c.group === 'Fallbacks'),
    [
      { id: 'fallback:0', label: 'Anthropic · claude-haiku-4-5', group: 'Fallbacks' },
      { id: 'fallback:2', label: 'Ollama (local) · its default model', group: 'Fallbacks' },
    ],
    'a fallback whose provider is unknown is left out; the others keep their place in the chain',
  );
  // A model of the catalog is listed once; no model chosen is the provider's default.
  const listed = modelMenu({ provider: 'openai', model: 'gpt-4.1', baseUrl: '' }, []);
  assert.equal(listed?.choices.filter((c) => c.id === 'model:gpt-4.1').length, 1);
  assert.deepEqual(modelMenu({ provider: 'openai', model: '', baseUrl: '' }, [])?.choices[0], {
    id: 'model:',
    label: "OpenAI's default model",
    group: 'OpenAI',
  });
  assert.equal(modelMenu(null, []), null);
  // A model typed in Settings that answered here stays to go back to (another provider's does not).
  const back = modelMenu(
    { provider: 'openai', model: 'gpt-4.1', baseUrl: '' },
    [],
    [
      { provider: 'openai', model: 'my-model' },
      { provider: 'anthropic', model: 'claude-haiku-4-5' },
    ],
  );
  assert.deepEqual(
    back?.choices.slice(0, 2).map((c) => c.id),
    ['model:gpt-4.1', 'model:my-model'],
  );
  assert.equal(
    back?.choices.some((c) => c.label.includes('claude')),
    false,
  );
});

test('a choice is saved as the workspace settings (its other fields kept); a fallback swaps places with the model', async () => {
  /** @type {{provider: string, model: string, baseUrl: string} | null} */
  let saved = { provider: 'openai', model: 'gpt-4.1', baseUrl: 'http://127.0.0.1:9/v1' };
  let chain = [{ provider: 'anthropic', model: 'claude-haiku-4-5', baseUrl: '' }];
  const deps = {
    settings: /** @type {any} */ ({
      load: () => saved,
      save: async (/** @type {string} */ ws, /** @type {any} */ next) => {
        assert.equal(ws, 'ws');
        saved = next;
      },
    }), // a stand-in of SettingsStore's load and save
    workspaceId: 'ws',
    fallbacks: () => chain,
    saveFallbacks: (/** @type {typeof chain} */ next) => {
      chain = next;
    },
  };
  await switchModel('model:gpt-4o', deps);
  assert.deepEqual(saved, { provider: 'openai', model: 'gpt-4o', baseUrl: 'http://127.0.0.1:9/v1' });
  await switchModel('fallback:0', deps);
  assert.deepEqual(saved, { provider: 'anthropic', model: 'claude-haiku-4-5', baseUrl: '' });
  assert.deepEqual(chain, [{ provider: 'openai', model: 'gpt-4o', baseUrl: 'http://127.0.0.1:9/v1' }]);
  await switchModel('fallback:0', deps);
  assert.deepEqual(saved, { provider: 'openai', model: 'gpt-4o', baseUrl: 'http://127.0.0.1:9/v1' }, 'swapped back');
  // A fallback that is gone is refused, nothing saved.
  await assert.rejects(switchModel('fallback:3', deps), (err) => err instanceof ChatError && err.code === 'not_found');
  assert.equal(saved?.model, 'gpt-4o');
  saved = null;
  await assert.rejects(switchModel('model:x', deps), (err) => err instanceof ChatError && err.code === 'client');
});
