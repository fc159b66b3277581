// The local provider (issue 34) in a real Chromium: a GGUF model the test generates (nothing is
// downloaded) imported through the public API into OPFS, listed, and run by llama.cpp compiled
// to WebAssembly (wllama) in the page — forced tool calls that always parse and validate (control:
// the same request unconstrained does not), Stop, and damaged files refused with what to do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { PLAIN_CHAT_TEMPLATE, makeTestGguf } from '../../scripts/make-test-gguf.mjs';
import { useFixture } from './fixture.mjs';

const { page } = await useFixture({ page: 'home' });
const gguf = Buffer.from(makeTestGguf({ seed: 1 })).toString('base64');

/** Imports the test model in the page through the public API. @returns {Promise<string>} its id */
const importModel = (/** @type {string} */ name, /** @type {string} */ base64 = gguf) =>
  page.evaluate(
    async ({ name, base64 }) => {
      const { importLocalModel } = await import('/web/clawser.js');
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      return (await importLocalModel(new File([bytes], 'tiny.gguf'), { name })).id;
    },
    { name, base64 },
  );

/**
 * The parts of one streamed reply of the local provider.
 * @param {string} model @param {Record<string, unknown>} request @param {{stopAfter?: number}} [options]
 */
const stream = (model, request, options = {}) =>
  page.evaluate(
    async ({ model, request, stopAfter }) => {
      const { createProvider } = await import('/web/clawser.js');
      const provider = createProvider({ provider: 'local', model });
      const abort = new AbortController();
      /** @type {any[]} */
      const parts = [];
      let texts = 0;
      let afterStop = 0;
      for await (const part of provider.chatStream(/** @type {any} */ (request), { signal: abort.signal })) {
        parts.push(part);
        if (abort.signal.aborted) afterStop++;
        if (part.type === 'text' && ++texts === stopAfter) abort.abort();
      }
      return { parts, afterStop };
    },
    { model, request, stopAfter: options.stopAfter ?? 0 },
  );

// Three schemas with nested objects, enums, arrays, required and optional fields.
const SCHEMAS = {
  get_weather: z.object({
    city: z.string().max(30),
    unit: z.enum(['c', 'f']),
    days: z.array(z.number().int()).max(3).optional(),
  }),
  save_file: z.object({
    path: z.string().min(1).max(40),
    options: z.object({ append: z.boolean(), mode: z.number().int().nullable().optional() }),
  }),
  tag_items: z.object({
    tags: z
      .array(z.object({ name: z.string().max(10), weight: z.number().optional() }))
      .min(1)
      .max(2),
    note: z.string().max(20).nullable().optional(),
  }),
};
const TOOLS = Object.entries(SCHEMAS).map(([name, schema]) => ({
  name,
  description: `The ${name.replace('_', ' ')} tool.`,
  parameters: z.toJSONSchema(schema),
}));
/** A call that names a tool and whose arguments its schema accepts. @param {any} part */
const validCall = (part) => {
  /** @type {Record<string, z.ZodType>} */
  const schemas = SCHEMAS;
  return part?.type === 'tool_call' && part.name in schemas && schemas[part.name].safeParse(part.arguments).success;
};

/** @type {string} */
let model;

test('a generated GGUF imported through the public API is stored in OPFS, listed with what its header says, and answers', async () => {
  model = await importModel('Tiny test model');
  const listed = await page.evaluate(async () => {
    const { listLocalModels } = await import('/web/clawser.js');
    const root = await navigator.storage.getDirectory();
    const folder = await root.getDirectoryHandle('clawser_models');
    /** @type {string[]} */
    const names = [];
    for await (const [name] of /** @type {any} */ (folder).entries()) names.push(name);
    return { models: await listLocalModels(), names };
  });
  assert.equal(listed.models.length, 1);
  assert.deepEqual(
    { id: listed.models[0].id, name: listed.models[0].name, arch: listed.models[0].architecture, tools: listed.models[0].callsTools },
    { id: model, name: 'Tiny test model', arch: 'llama', tools: true },
  );
  assert.ok(listed.names.includes(model), 'its folder is in OPFS');
  const { parts } = await stream(model, { messages: [{ role: 'user', content: 'Hello' }], maxTokens: 12, temperature: 0 });
  const finish = parts.at(-1);
  assert.equal(finish.type, 'finish', JSON.stringify(parts.at(-1)));
  assert.ok(
    parts.some((p) => p.type === 'text' && p.text.length > 0),
    'it wrote text',
  );
  assert.ok(finish.usage.inputTokens > 0 && finish.usage.outputTokens > 0 && finish.usage.outputTokens <= 12, JSON.stringify(finish));
});

test("with toolChoice 'required', 20 of 20 calls parse and validate against their schemas; control: the same request \
unconstrained does not", async () => {
  const messages = [{ role: 'user', content: 'Use one of the tools.' }];
  /** @type {any[]} */
  const calls = [];
  for (let i = 0; i < 20; i++) {
    const { parts } = await stream(model, { messages, tools: TOOLS, toolChoice: 'required', maxTokens: 600, temperature: 1 });
    const call = parts.find((p) => p.type === 'tool_call');
    assert.equal(parts.at(-1).type, 'finish', JSON.stringify(parts.at(-1)));
    assert.equal(parts.at(-1).stopReason, 'tool_use');
    calls.push(call);
  }
  const valid = calls.filter(validCall);
  assert.equal(valid.length, 20, JSON.stringify(calls.filter((c) => !validCall(c)).slice(0, 3)));
  assert.ok(new Set(valid.map((c) => c.name)).size >= 2, 'more than one tool was chosen');
  // A named tool: every call is that one.
  for (let i = 0; i < 3; i++) {
    const { parts } = await stream(model, { messages, tools: TOOLS, toolChoice: { name: 'save_file' }, maxTokens: 600, temperature: 1 });
    const call = parts.find((p) => p.type === 'tool_call');
    assert.ok(validCall(call) && call.name === 'save_file', JSON.stringify(call));
  }
  // Control: the same request with the tools but without the grammar ('auto': the template renders the
  // tools and the model writes freely) gives no valid call.
  let invalid = 0;
  for (let i = 0; i < 5; i++) {
    const { parts } = await stream(model, { messages, tools: TOOLS, toolChoice: 'auto', maxTokens: 80, temperature: 1 });
    const text = parts
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join('');
    let call = null;
    try {
      const json = JSON.parse(text);
      call = { type: 'tool_call', name: json.name, arguments: json.arguments };
    } catch {
      // not even JSON
    }
    if (!parts.some(validCall) && !validCall(call)) invalid++;
  }
  assert.ok(invalid >= 4, `unconstrained, ${5 - invalid} of 5 were valid calls`);
});

test("a model whose chat template has no tools: under 'auto' each reply is a valid call or words, never a broken call; \
'required' always calls", async () => {
  const plain = Buffer.from(makeTestGguf({ seed: 2, chatTemplate: PLAIN_CHAT_TEMPLATE })).toString('base64');
  const id = await importModel('No tools in its template', plain);
  const listed = await page.evaluate(
    async (id) => (await (await import('/web/clawser.js')).listLocalModels()).find((m) => m.id === id),
    id,
  );
  assert.equal(listed?.callsTools, false);
  const messages = [{ role: 'user', content: 'Use a tool if you need one.' }];
  let calls = 0;
  let words = 0;
  for (let i = 0; i < 8; i++) {
    const { parts } = await stream(id, { messages, tools: TOOLS, toolChoice: 'auto', maxTokens: 300, temperature: 1 });
    const end = parts.at(-1);
    assert.notEqual(end.type, 'error', JSON.stringify(end));
    const call = parts.find((p) => p.type === 'tool_call');
    if (call) {
      assert.ok(validCall(call), JSON.stringify(call));
      assert.equal(end.stopReason, 'tool_use');
      calls++;
    } else {
      const text = parts
        .filter((p) => p.type === 'text')
        .map((p) => p.text)
        .join('');
      assert.ok(text.length > 0 && !text.startsWith('{'), JSON.stringify(text));
      words++;
    }
  }
  assert.equal(calls + words, 8);
  // Control: forced, every reply of the same model is a valid call.
  for (let i = 0; i < 3; i++) {
    const { parts } = await stream(id, { messages, tools: TOOLS, toolChoice: 'required', maxTokens: 600, temperature: 1 });
    assert.ok(validCall(parts.find((p) => p.type === 'tool_call')), JSON.stringify(parts.at(-1)));
  }
});

test('Stop ends a reply mid-generation: the stream says it stopped and writes next to nothing after', async () => {
  const { parts, afterStop } = await stream(
    model,
    { messages: [{ role: 'user', content: 'Write a long story.' }], maxTokens: 2000, temperature: 1 },
    { stopAfter: 5 },
  );
  assert.deepEqual(parts.at(-1), { type: 'error', error: { code: 'aborted', retryable: false, message: 'Stopped.' } });
  assert.ok(afterStop <= 3, `${afterStop} parts came after Stop`);
  // Control: the same request without Stop runs on (it is not a short reply by chance).
  const { parts: full } = await stream(model, {
    messages: [{ role: 'user', content: 'Write a long story.' }],
    maxTokens: 40,
    temperature: 1,
  });
  assert.equal(full.at(-1).type, 'finish');
  assert.ok(full.filter((p) => p.type === 'text').length > 8);
});

test('a truncated or foreign file is refused with what to do and nothing is stored; a model damaged on disk says so', async () => {
  const refused = await page.evaluate(
    async ({ base64 }) => {
      const { importLocalModel, listLocalModels } = await import('/web/clawser.js');
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const before = (await listLocalModels()).length;
      /** @type {{code: string, message: string}[]} */
      const errors = [];
      for (const blob of [new Blob([bytes.slice(0, 2000)]), new Blob(['PK\x03\x04 this is a zip file, not a model at all'])]) {
        await importLocalModel(blob, { name: 'Bad' }).catch((/** @type {any} */ e) => errors.push({ code: e.code, message: e.message }));
      }
      const root = await navigator.storage.getDirectory();
      const folder = await root.getDirectoryHandle('clawser_models');
      /** @type {string[]} */
      const staged = [];
      try {
        for await (const [name] of /** @type {any} */ (await folder.getDirectoryHandle('.incoming')).entries()) staged.push(name);
      } catch {
        // no staging folder at all
      }
      return { errors, before, after: (await listLocalModels()).length, staged };
    },
    { base64: gguf },
  );
  assert.deepEqual(
    refused.errors.map((e) => e.code),
    ['not_gguf', 'not_gguf'],
  );
  for (const e of refused.errors) assert.ok(e.message.length > 30, e.message);
  assert.equal(refused.after, refused.before);
  assert.deepEqual(refused.staged, []);
  // A stored model whose file was cut short afterwards: the provider says it is damaged.
  const damaged = await importModel('To be damaged');
  await page.evaluate(async (id) => {
    const root = await navigator.storage.getDirectory();
    const dir = await (await root.getDirectoryHandle('clawser_models')).getDirectoryHandle(id);
    const file = await (await dir.getFileHandle('part-00001.gguf')).createWritable({ keepExistingData: true });
    await file.truncate(5000);
    await file.close();
  }, damaged);
  const { parts } = await stream(damaged, { messages: [{ role: 'user', content: 'Hello' }], maxTokens: 5 });
  assert.equal(parts.at(-1).type, 'error');
  assert.equal(parts.at(-1).error.code, 'client');
  assert.match(parts.at(-1).error.message, /To be damaged.*damaged.*import it again/);
  // Control: the intact model still answers.
  const { parts: ok } = await stream(model, { messages: [{ role: 'user', content: 'Hello' }], maxTokens: 5 });
  assert.equal(ok.at(-1).type, 'finish');
});

/**
 * Stop at a moment the runtime is busy in its worker and cannot look at the signal: while it loads
 * the model (`load`) or reads a long prompt (`prefill`, its first step of the reply). The page
 * watches wllama's worker: Stop is pressed as the runtime's step is sent, and every message the
 * worker sends back is counted, so the test sees whether the stream ended without waiting for the
 * runtime's answer (no timing: the order of events).
 * @param {string} model @param {Record<string, unknown>} request @param {'load' | 'prefill' | null} at null: no Stop (the control)
 */
const stopWhileBusy = (model, request, at) =>
  page.evaluate(
    async ({ model, request, at }) => {
      const { createProvider } = await import('/web/clawser.js');
      const { loadedLocalModel, unloadLocalModel } = await import('/web/providers/local-engine.js');
      /** @type {any} */
      const g = globalThis;
      if (!g.__workerWatch) {
        const watch = { replies: 0, onSend: /** @type {((m: any) => void) | null} */ (null), watched: new WeakSet() };
        const post = Worker.prototype.postMessage;
        Worker.prototype.postMessage = function (/** @type {any} */ message, /** @type {any} */ ...rest) {
          if (!watch.watched.has(this)) {
            watch.watched.add(this);
            this.addEventListener('message', () => watch.replies++);
          }
          const r = post.call(this, message, ...rest);
          watch.onSend?.(message);
          return r;
        };
        g.__workerWatch = watch;
      }
      const watch = g.__workerWatch;
      // The step: loading from nothing, or a reply's first step with the model already loaded.
      if (at === 'load') await unloadLocalModel();
      const provider = createProvider({ provider: 'local', model });
      const abort = new AbortController();
      let repliesAtStop = -1;
      watch.onSend = (/** @type {any} */ m) => {
        const step = at === 'load' ? 'load' : 'get_result';
        if (!at || abort.signal.aborted || m?.verb !== 'wllama.action' || m.args?.[0] !== step) return;
        repliesAtStop = watch.replies;
        abort.abort();
      };
      /** @type {any[]} */
      const parts = [];
      try {
        for await (const part of provider.chatStream(/** @type {any} */ (request), { signal: abort.signal })) parts.push(part);
      } finally {
        watch.onSend = null;
      }
      return {
        parts,
        stopped: abort.signal.aborted,
        waitedForRuntime: watch.replies !== repliesAtStop,
        loaded: !!(await loadedLocalModel()),
      };
    },
    { model, request, at },
  );

test('Stop while the model loads or reads a long prompt ends the reply without waiting for the runtime, which is torn down; \
the next reply works (control: the same requests without Stop finish)', async () => {
  // About 1,500 tokens (the test model's vocabulary is one token per character), in a context of 2,048.
  const long = Array.from({ length: 30 }, (_, i) => `Line ${i}: the quick brown fox jumps over the lazy dog again.`).join('\n');
  const request = { messages: [{ role: 'user', content: long }], maxTokens: 8, temperature: 0 };
  // Control: without Stop the long prompt is read and answered.
  const full = await stopWhileBusy(model, request, null);
  assert.equal(full.parts.at(-1).type, 'finish', JSON.stringify(full.parts.at(-1)));
  assert.ok(full.parts.at(-1).usage.inputTokens > 1000, JSON.stringify(full.parts.at(-1).usage));
  for (const at of /** @type {const} */ (['prefill', 'load'])) {
    const stopped = await stopWhileBusy(model, request, at);
    assert.equal(stopped.stopped, true, `${at}: Stop was pressed`);
    assert.deepEqual(stopped.parts.at(-1), { type: 'error', error: { code: 'aborted', retryable: false, message: 'Stopped.' } }, at);
    assert.ok(!stopped.parts.some((p) => p.type === 'text'), `${at}: nothing was written`);
    assert.equal(stopped.waitedForRuntime, false, `${at}: the stream ended before the runtime answered its step`);
    assert.equal(stopped.loaded, false, `${at}: the runtime's work was torn down, not left running`);
    // The next reply loads the model again and answers.
    const next = await stopWhileBusy(model, { messages: [{ role: 'user', content: 'Hello' }], maxTokens: 5 }, null);
    assert.equal(next.parts.at(-1).type, 'finish', `${at}: ${JSON.stringify(next.parts.at(-1))}`);
  }
});

test('a WebGPU load that fails is tried again on the CPU and says so; control: a GPU load that works is kept; both failing \
is a load error with what to do; a model too big for the CPU runtime’s memory is refused before loading', async () => {
  const runs = await page.evaluate(async (id) => {
    const { loadLocalModel, unloadLocalModel } = await import('/web/providers/local-engine.js');
    const { sharedLocalModelStore } = await import('/web/providers/local-models.js');
    // The page's import map names it (as the engine imports it).
    const { Wllama } = await import('@wllama/wllama');
    const store = sharedLocalModelStore();
    const model = await store.get(id);
    const files = async () => (await store.open(id)).parts;
    const choice = { gpu: true, threads: 1, isolated: crossOriginIsolated };
    /** The real runtime, but a GPU load fails as a device without WebGPU makes it (`gpu`), or the CPU load too (`all`). */
    const runtime = (/** @type {'gpu' | 'none' | 'all'} */ fails, /** @type {number[]} */ attempts) => ({
      createRuntime: (/** @type {any} */ paths, /** @type {any} */ config) => {
        const wllama = new Wllama(paths, config);
        const load = wllama.loadModel.bind(wllama);
        wllama.loadModel = async (/** @type {Blob[]} */ parts, /** @type {any} */ params) => {
          attempts.push(params.n_gpu_layers);
          if (fails === 'all' || (fails === 'gpu' && params.n_gpu_layers > 0)) throw new Error('WebGPU device lost');
          // The page has no GPU: a load the stand-in lets "work" on the GPU runs on the CPU.
          return load(parts, { ...params, n_gpu_layers: 0 });
        };
        return wllama;
      },
    });
    /** @type {Record<string, any>} */
    const out = {};
    for (const fails of /** @type {const} */ (['gpu', 'none', 'all'])) {
      await unloadLocalModel();
      /** @type {number[]} */
      const attempts = [];
      try {
        const loaded = await loadLocalModel(model, files, { choice, ...runtime(fails, attempts) });
        const reply = await loaded.wllama.createCompletion({ prompt: 'Hello', max_tokens: 3 });
        out[fails] = { attempts, backend: loaded.backend.kind, answered: typeof reply?.choices?.[0]?.text === 'string' };
      } catch (/** @type {any} */ err) {
        out[fails] = { attempts, error: { name: err.name, code: err.code, message: err.message } };
      }
    }
    // A model too big for the memory the CPU runtime has (as its size says) is refused before any load.
    await unloadLocalModel();
    /** @type {number[]} */
    const attempts = [];
    const huge = { ...model, bytes: 5 * 1024 ** 3 };
    out.huge = await loadLocalModel(huge, files, { choice: { ...choice, gpu: false }, ...runtime('none', attempts) }).then(
      () => ({ attempts }),
      (/** @type {any} */ err) => ({ attempts, error: { name: err.name, code: err.code, message: err.message } }),
    );
    await unloadLocalModel();
    return out;
  }, model);
  assert.deepEqual(runs.gpu, { attempts: [999, 0], backend: 'wasm', answered: true });
  assert.deepEqual(runs.none, { attempts: [999], backend: 'webgpu', answered: true });
  assert.deepEqual(runs.all.attempts, [999, 0]);
  assert.equal(runs.all.error.name, 'LocalEngineError');
  assert.equal(runs.all.error.code, 'load');
  assert.match(runs.all.error.message, /could not be loaded: WebGPU device lost.*delete it and import it again/);
  assert.deepEqual(runs.huge.attempts, [], 'no load was tried');
  assert.equal(runs.huge.error?.code, 'memory', JSON.stringify(runs.huge));
  assert.match(runs.huge.error.message, /\(5\.4 GB\) needs more memory than the 4 GB .*smaller quantisation.*WebGPU/);
});

test('a prompt longer than the context the model is loaded with ends with what to do, as an error part and, from chat(), \
an Error with a stable code; control: a prompt that fits is answered', async () => {
  // About 2,600 tokens (one per character) for a context of 2,048.
  const long = Array.from({ length: 50 }, (_, i) => `Line ${i}: the quick brown fox jumps over the lazy dog.`).join('\n');
  const { parts } = await stream(model, { messages: [{ role: 'user', content: long }], maxTokens: 8 });
  const end = parts.at(-1);
  assert.equal(end.type, 'error', JSON.stringify(end));
  assert.equal(end.error.code, 'client');
  assert.equal(end.error.retryable, false);
  assert.match(end.error.message, /longer than the 2,048 tokens of context .* is loaded with.*new conversation/);
  assert.doesNotMatch(end.error.message, /try increasing it/, "llama.cpp's advice is not the user's to follow");
  const thrown = await page.evaluate(
    async ({ model, long }) => {
      const { createProvider } = await import('/web/clawser.js');
      try {
        await createProvider({ provider: 'local', model }).chat({ messages: [{ role: 'user', content: long }], maxTokens: 8 });
        return null;
      } catch (/** @type {any} */ err) {
        return { isError: err instanceof Error, name: err.name, code: err.code, message: err.message };
      }
    },
    { model, long },
  );
  assert.ok(thrown?.isError, JSON.stringify(thrown));
  assert.equal(thrown.code, 'client');
  assert.match(thrown.message, /longer than the 2,048 tokens of context/);
  // Control: half of it fits.
  const fits = await stream(model, { messages: [{ role: 'user', content: long.slice(0, 1200) }], maxTokens: 8 });
  assert.equal(fits.parts.at(-1).type, 'finish', JSON.stringify(fits.parts.at(-1)));
});

test('deleteLocalModel (the public API) unloads a loaded model and removes its file and listing; control: another model stays \
and answers', async () => {
  const doomed = await importModel('To be deleted');
  const { parts } = await stream(doomed, { messages: [{ role: 'user', content: 'Hello' }], maxTokens: 3 });
  assert.equal(parts.at(-1).type, 'finish');
  const after = await page.evaluate(async (id) => {
    const { deleteLocalModel, listLocalModels } = await import('/web/clawser.js');
    const { loadedLocalModel } = await import('/web/providers/local-engine.js');
    const wasLoaded = (await loadedLocalModel())?.id === id;
    await deleteLocalModel(id);
    const root = await navigator.storage.getDirectory();
    /** @type {string[]} */
    const folders = [];
    for await (const [name] of /** @type {any} */ (await root.getDirectoryHandle('clawser_models')).entries()) folders.push(name);
    return { wasLoaded, loaded: (await loadedLocalModel())?.id ?? null, listed: (await listLocalModels()).map((m) => m.id), folders };
  }, doomed);
  assert.equal(after.wasLoaded, true, 'it was loaded');
  assert.equal(after.loaded, null, 'unloaded');
  assert.ok(!after.listed.includes(doomed), 'not listed');
  assert.ok(!after.folders.includes(doomed), 'its folder is gone');
  // Control: the other model is still listed, stored and answers.
  assert.ok(after.listed.includes(model) && after.folders.includes(model));
  const { parts: other } = await stream(model, { messages: [{ role: 'user', content: 'Hello' }], maxTokens: 3 });
  assert.equal(other.at(-1).type, 'finish');
  // Deleting a model that is not there says so.
  const missing = await page.evaluate(async (id) => {
    const { deleteLocalModel } = await import('/web/clawser.js');
    return deleteLocalModel(id).then(
      () => null,
      (/** @type {any} */ e) => ({ name: e.name, code: e.code }),
    );
  }, doomed);
  assert.deepEqual(missing, { name: 'LocalModelError', code: 'not_found' });
});

test('a browser without JSPI is told it cannot run a model in the page and nothing is fetched from elsewhere (wllama would take its \
compat build from a CDN); control: the same request in a browser with JSPI answers', async () => {
  const older = await page.context().newPage();
  try {
    await older.addInitScript(() => {
      // Chrome 133–136: 64-bit memory, no JSPI.
      delete (/** @type {any} */ (WebAssembly).Suspending);
    });
    const origin = new URL(page.url()).origin;
    /** @type {string[]} */
    const elsewhere = [];
    older.on('request', (r) => {
      if (!r.url().startsWith(origin) && !r.url().startsWith('blob:') && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    await older.goto(page.url());
    const request = { messages: [{ role: 'user', content: 'Hello' }], maxTokens: 4, temperature: 0 };
    const parts = await older.evaluate(
      async ({ model, request }) => {
        const { createProvider } = await import('/web/clawser.js');
        /** @type {any[]} */
        const out = [];
        for await (const part of createProvider({ provider: 'local', model }).chatStream(/** @type {any} */ (request))) out.push(part);
        return out;
      },
      { model, request },
    );
    const error = parts.find((p) => p.type === 'error');
    assert.ok(error, JSON.stringify(parts));
    assert.match(error.error?.message ?? error.message ?? JSON.stringify(error), /Chrome or Edge 137/);
    assert.deepEqual(elsewhere, []);
    // Control: the page with JSPI answers the same request.
    const { parts: answered } = await stream(model, request);
    assert.equal(answered.at(-1).type, 'finish', JSON.stringify(answered));
  } finally {
    await older.close();
  }
});
