// Compaction summaries with Chrome's built-in Summarizer API (a stand-in with its shape):
// used first when available, in parts when the text exceeds its input quota; the chat model
// when it is missing, still downloading, or fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onDeviceSummarizer } from '../../web/providers/on-device-summarizer.js';
import { summarize } from '../../web/agent/conversation/compaction.js';

/** @param {{availability?: string, quota?: number, fail?: boolean}} [o] */
function fakeApi(o = {}) {
  const calls = { create: 0, summarize: /** @type {string[]} */ ([]), destroyed: 0 };
  const api = {
    availability: async () => o.availability ?? 'available',
    create: async () => {
      calls.create++;
      return {
        inputQuota: o.quota ?? 100_000,
        measureInputUsage: async (/** @type {string} */ t) => Math.ceil(t.length / 3),
        summarize: async (/** @type {string} */ t) => {
          if (o.fail) throw new Error('NotSupportedError');
          calls.summarize.push(t);
          return `• summary of ${t.length} chars`;
        },
        destroy: () => {
          calls.destroyed++;
        },
      };
    },
  };
  return { api, calls };
}

const older = /** @type {import('../../web/providers/types.d.ts').Message[]} */ ([
  { role: 'user', content: 'Plan the trip to Lyon' },
  { role: 'assistant', content: 'Train on Friday.' },
]);
/** A chat model that must not be asked, or answers. @param {boolean} [allowed] */
const chatModel = (allowed = true) =>
  /** @type {any} */ ({
    id: 'x',
    model: 'm',
    chat: async () => {
      if (!allowed) throw new Error('the chat model was asked');
      return { content: 'Model summary.', usage: { inputTokens: 10, outputTokens: 3 } };
    },
  });

test('available: the on-device summarizer writes the compaction summary, at no cost; the chat model is not asked', async () => {
  const { api, calls } = fakeApi();
  const r = await summarize(chatModel(false), older, { onDevice: () => onDeviceSummarizer({ Summarizer: api }) });
  assert.equal(r.method, 'on-device');
  assert.match(r.summary, /^• summary of \d+ chars$/);
  assert.equal(r.usage, undefined);
  assert.equal(calls.destroyed, 1, 'the session is released');
});

test('over its input quota: summarized in parts, then the parts together', async () => {
  const { api, calls } = fakeApi({ quota: 400 });
  const long = Array.from({ length: 40 }, (_, i) => ({
    role: /** @type {'user' | 'assistant'} */ (i % 2 ? 'assistant' : 'user'),
    content: `Paragraph ${i}: ${'words '.repeat(20)}`,
  }));
  const r = await summarize(chatModel(false), long, { onDevice: () => onDeviceSummarizer({ Summarizer: api }) });
  assert.equal(r.method, 'on-device');
  assert.ok(calls.summarize.length > 2);
  assert.ok(
    calls.summarize.slice(0, -1).every((t) => t.length <= 400 * 3),
    'each part fits',
  );
  assert.match(calls.summarize.at(-1) ?? '', /summary of/);
});

test('not ready, missing or failing: the chat model summarizes (control for the first test)', async () => {
  for (const scope of [{ Summarizer: fakeApi({ availability: 'downloadable' }).api }, {}, { Summarizer: fakeApi({ fail: true }).api }]) {
    const r = await summarize(chatModel(), older, { onDevice: () => onDeviceSummarizer(/** @type {any} */ (scope)) });
    assert.equal(r.method, 'model');
    assert.equal(r.summary, 'Model summary.');
  }
});
