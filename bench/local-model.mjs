#!/usr/bin/env node
// The model on this computer (issue 34 §4), measured in a real Chromium, offline (the service
// worker serves the app and wllama's wasm): a GGUF generated here (scripts/make-test-gguf.mjs,
// nothing downloaded) imported into OPFS through LocalModelStore, then loaded into wllama from its
// OPFS File (the browser reads it from disk; no copy in JS memory).
//   localModelLoadMs          from the stored model to a loaded one (median of 3 fresh loads)
//   localTokensPerSecondWasm  decoding speed on one thread and on several, in the app's page, which
//                             is cross-origin isolated (Document-Isolation-Policy, as `npm start`
//                             and the service worker serve it)
//   localVsNativeSpeedRatio   node-llama-cpp's tokens/s ÷ wllama's, same file, same thread count,
//                             same prompt, same number of tokens, greedy, runs alternating (left
//                             out when more threads slow native llama.cpp down: no free cores)
//   localFirstToolCallTokenMs from the request to the first token of a tool-call turn under the
//                             grammar of web/providers/local-grammar.js, the whole prompt processed
//                             (…PromptCached: a next turn, the prompt already in the context)
// The keys are the tiny model's, as the issue asks; its arithmetic is so small that its speed is
// mostly per-token overhead, so `localBenchModel` repeats them on a 38 MB one (the generator's
// `bench` shape), whose speed is the arithmetic's.
//   localStopMs               Stop through the provider: from abort() to the stream's end, mid-reply
//   localStopDuringPrefillMs  the same, Stop pressed as the runtime starts reading a long prompt
//                             (about 1,500 tokens; it cannot look at the signal until it is read)
//   localStopDuringLoadMs     the same, Stop pressed while the runtime loads the model
// The wasm side runs through `pageEngine` below: wllama directly, the model opened as the store
// hands it to the provider; Stop goes through the provider itself.
// Run directly (`node bench/local-model.mjs`) it prints one JSON object; bench/run.mjs imports
// localModelBench() instead.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_SHAPE, makeTestGguf } from '../scripts/make-test-gguf.mjs';
import { launchBrowser, startApp } from '../tests/browser/helpers.mjs';
import { toolCallGrammar } from '../web/providers/local-grammar.js';
import { forwardProgress, openHome } from './page.mjs';

/** A prompt of about 1,500 tokens (the test models' vocabulary is one token per character), for Stop mid-prefill. */
const LONG_PROMPT = Array.from({ length: 30 }, (_, i) => `Line ${i}: the quick brown fox jumps over the lazy dog again.`).join('\n');

/** The same prompt, length and seed on both sides. */
const PROMPT = 'The quick brown fox jumps over the lazy dog. Once upon a time, in a small town,';
const GENERATED = 128;
const SEED = 42;
/** Runs of each speed and latency measurement, and loads of each model. */
const RUNS = 5;
const LOADS = 3;
/** Threads of the multi-thread runs: what a laptop gives a page, at least 2 (this machine has 2 cores). */
const THREADS = Math.max(2, Math.min(4, availableParallelism()));

/** Three tools of the kind the agent offers, for the tool-call turn. */
const TOOLS = [
  {
    name: 'fs_read',
    description: 'Read a file of the workspace.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', maxLength: 80 }, maxBytes: { type: 'integer' } },
      required: ['path'],
    },
  },
  {
    name: 'web_fetch',
    description: 'Fetch a web page.',
    parameters: {
      type: 'object',
      properties: { url: { type: 'string', maxLength: 120 }, format: { enum: ['text', 'markdown', 'html'] } },
      required: ['url', 'format'],
    },
  },
  {
    name: 'memory_store',
    description: 'Remember a fact.',
    parameters: {
      type: 'object',
      properties: {
        key: { type: 'string', maxLength: 40 },
        content: { type: 'string', maxLength: 200 },
        tags: { type: 'array', items: { type: 'string', maxLength: 20 }, maxItems: 4 },
      },
      required: ['key', 'content'],
    },
  },
];

/** The tool-call turn: the tools described in the system message (as a chat template would), then the request. */
const TOOL_TURN = [
  {
    role: /** @type {const} */ ('system'),
    content: `You are Clawser's agent. Call one of these tools:\n${TOOLS.map((t) => JSON.stringify(t)).join('\n')}`,
  },
  { role: /** @type {const} */ ('user'), content: 'Read notes/plan.md and tell me what is left to do.' },
];

const round = (/** @type {number} */ x) => Math.round(x * 100) / 100;
/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * @typedef {object} Decoded one speed run
 * @property {number} tokens tokens generated
 * @property {number} tokensPerSecond decoding speed (llama.cpp's own count: the prompt is not in it)
 * @property {number} wallMs the whole call as the page saw it
 */

/**
 * The wasm side, installed in the page (its source is evaluated there, so it uses nothing from this
 * module). wllama directly for now; the provider later.
 */
function pageEngine() {
  /** @type {import('@wllama/wllama').Wllama | null} */
  let wllama = null;
  /** @type {Promise<import('/web/providers/local-models.js').LocalModelStore> | null} */
  let store = null;
  const openStore = async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { LocalModelStore } = await import('/web/providers/local-models.js');
    return new LocalModelStore(new OpfsFileSystem());
  };
  return {
    /** Imports the file chosen in the page's file input, through the real import path. @param {string} inputId */
    async import(inputId) {
      store ??= openStore();
      const input = /** @type {HTMLInputElement} */ (document.getElementById(inputId));
      const file = /** @type {FileList} */ (input.files)[0];
      const t = performance.now();
      const meta = await (await store).import([file], { name: file.name });
      return { id: meta.id, bytes: meta.bytes, ms: performance.now() - t };
    },
    /**
     * Loads a stored model from its OPFS File(s), as the store hands them to the provider.
     * @param {string} id @param {number} threads
     */
    async load(id, threads) {
      store ??= openStore();
      const { Wllama } = await import('@wllama/wllama');
      const t = performance.now();
      const { parts: files } = await (await store).open(id);
      const quiet = { debug() {}, log() {}, warn() {}, error: console.error };
      wllama = new Wllama(
        { default: new URL('/web/vendor/wllama/wllama.wasm', location.href).href },
        { suppressNativeLog: true, logger: quiet },
      );
      await wllama.loadModel(files, { n_ctx: 2048, n_threads: threads, n_gpu_layers: 0 });
      return {
        ms: performance.now() - t,
        multithread: wllama.isMultithread(),
        threads: wllama.getNumThreads(),
        isolated: crossOriginIsolated,
      };
    },
    /** @param {string} prompt @param {number} tokens @param {number} seed @returns {Promise<Decoded>} */
    async decode(prompt, tokens, seed) {
      if (!wllama) throw new Error('bench: no model loaded');
      const t = performance.now();
      const r = await wllama.createCompletion({ prompt, max_tokens: tokens, ignore_eos: true, temperature: 0, seed });
      const wallMs = performance.now() - t;
      return { tokens: r.usage.completion_tokens, tokensPerSecond: r.timings?.predicted_per_second ?? Number.NaN, wallMs };
    },
    /**
     * From the request to the first token of a tool call made under the grammar. Without the prompt
     * cache the whole prompt is processed (a first turn); with it, what an earlier turn left in the
     * context is reused (a next turn).
     * @param {import('@wllama/wllama').ChatCompletionMessage[]} messages
     * @param {string} grammar @param {number} seed @param {boolean} cachePrompt
     */
    async firstToolCallToken(messages, grammar, seed, cachePrompt) {
      if (!wllama) throw new Error('bench: no model loaded');
      const t = performance.now();
      const stream = await wllama.createChatCompletion({
        messages,
        grammar,
        max_tokens: 24,
        temperature: 0,
        seed,
        stream: true,
        cache_prompt: cachePrompt,
      });
      /** @type {number | null} */
      let first = null;
      let text = '';
      let promptTokens = Number.NaN;
      let promptMs = Number.NaN;
      for await (const chunk of stream) {
        promptTokens = chunk.timings?.prompt_n ?? promptTokens;
        promptMs = chunk.timings?.prompt_ms ?? promptMs;
        const piece = chunk.choices[0]?.delta?.content;
        if (!piece) continue;
        first ??= performance.now() - t;
        text += piece;
      }
      return { ms: first ?? Number.NaN, text, promptTokens, promptMs };
    },
    async unload() {
      await wllama?.exit();
      wllama = null;
    },
    /**
     * Stop, through the provider as the chat uses it: from abort() to the end of the stream, with
     * the reply well under way (20 pieces written). The provider loads its own copy of the model.
     * @param {string} id
     */
    async stop(id) {
      const { createProvider } = await import('/web/providers/index.js');
      const provider = createProvider({ provider: 'local', model: id });
      const abort = new AbortController();
      let pieces = 0;
      let stoppedAt = 0;
      let end = '';
      for await (const part of provider.chatStream(
        { messages: [{ role: 'user', content: 'Write a long story.' }], maxTokens: 4000, temperature: 1 },
        { signal: abort.signal },
      )) {
        end = part.type === 'error' ? part.error.code : part.type;
        if (part.type === 'text' && ++pieces === 20) {
          stoppedAt = performance.now();
          abort.abort();
        }
      }
      const ms = performance.now() - stoppedAt;
      const { unloadLocalModel } = await import('/web/providers/local-engine.js');
      await unloadLocalModel(id);
      return { ms: stoppedAt ? ms : Number.NaN, end };
    },
    /**
     * The page while a model loads and writes, through the provider as the chat uses it: every
     * long task (the main thread busy ≥ 50 ms at a stretch, so a click or a frame waits) from the
     * request, which loads the model, to the reply's end. The modules are loaded before, so only
     * the model's work is watched.
     * @param {string} id
     */
    async mainThreadWhileBusy(id) {
      const { createProvider } = await import('/web/providers/index.js');
      const { unloadLocalModel } = await import('/web/providers/local-engine.js');
      await unloadLocalModel();
      const provider = createProvider({ provider: 'local', model: id });
      /** @type {number[]} */
      const tasks = [];
      const observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) tasks.push(entry.duration);
      });
      observer.observe({ type: 'longtask' });
      // The control: a task this page makes long on purpose is seen (so 0 means none, not blindness).
      // A timer's task: what the bench itself evaluates in the page is not one the observer reports.
      await new Promise((resolve) =>
        setTimeout(() => {
          const busyUntil = performance.now() + 120;
          while (performance.now() < busyUntil) {
            // the main thread held, as a long task would hold it
          }
          resolve(null);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const seen = [...tasks, ...observer.takeRecords().map((entry) => entry.duration)];
      if (!seen.some((ms) => ms >= 100)) throw new Error('bench: the long-task observer missed a 120 ms task made on purpose');
      tasks.length = 0;
      const t = performance.now();
      let pieces = 0;
      try {
        for await (const part of provider.chatStream(
          { messages: [{ role: 'user', content: 'Write a long story.' }], maxTokens: 64, temperature: 1 },
          {},
        )) {
          if (part.type === 'text') pieces++;
          if (part.type === 'error') throw new Error(`bench: the reply failed: ${part.error.message}`);
        }
      } finally {
        // Entries still queued are delivered to takeRecords, not lost.
        for (const entry of observer.takeRecords()) tasks.push(entry.duration);
        observer.disconnect();
      }
      const ms = performance.now() - t;
      await unloadLocalModel(id);
      return { ms, pieces, longTasks: tasks.length, longestTaskMs: Math.max(0, ...tasks) };
    },
    /**
     * Stop while the runtime is busy in its worker: as it is sent the model to load (`load`), or
     * the first step of a reply to a long prompt, the step that reads the prompt (`prefill`). From
     * abort() to the end of the stream, through the provider.
     * @param {string} id @param {'load' | 'prefill'} at @param {string} prompt
     */
    async stopWhileBusy(id, at, prompt) {
      const { createProvider } = await import('/web/providers/index.js');
      const { loadLocalModel, unloadLocalModel } = await import('/web/providers/local-engine.js');
      await unloadLocalModel();
      if (at === 'prefill') {
        store ??= openStore();
        const s = await store;
        await loadLocalModel(await s.get(id), async () => (await s.open(id)).parts);
      }
      const provider = createProvider({ provider: 'local', model: id });
      const abort = new AbortController();
      let stoppedAt = 0;
      const post = Worker.prototype.postMessage;
      const step = at === 'load' ? 'load' : 'get_result';
      Worker.prototype.postMessage = function (/** @type {any} */ message, /** @type {any} */ ...rest) {
        const r = post.call(this, message, ...rest);
        if (!stoppedAt && message?.verb === 'wllama.action' && message.args?.[0] === step) {
          stoppedAt = performance.now();
          abort.abort();
        }
        return r;
      };
      let end = '';
      try {
        for await (const part of provider.chatStream(
          { messages: [{ role: 'user', content: prompt }], maxTokens: 8, temperature: 0 },
          { signal: abort.signal },
        )) {
          end = part.type === 'error' ? part.error.code : part.type;
        }
      } finally {
        Worker.prototype.postMessage = post;
      }
      const ms = performance.now() - stoppedAt;
      await unloadLocalModel(id);
      return { ms: stoppedAt ? ms : Number.NaN, end };
    },
  };
}

/** @typedef {ReturnType<typeof pageEngine>} PageEngine */

/**
 * Calls the engine installed in the page: the function's source runs there with the engine and
 * the argument (JSON), as an expression the bench evaluates (the app's CSP has no 'unsafe-eval').
 * @template T @param {import('playwright-core').Page} page @param {(engine: PageEngine, arg: any) => Promise<T>} fn @param {unknown} [arg]
 * @returns {Promise<T>}
 */
function inPage(page, fn, arg) {
  return page.evaluate(`(${fn.toString()})(globalThis.__localBench, ${JSON.stringify(arg ?? null)})`);
}

/**
 * node-llama-cpp (llama.cpp's CPU build, prebuilt) on the same files. Never downloads or builds
 * anything (build: 'never'); on a machine without its binary, `unavailable` says why.
 * @param {Record<string, string>} files model name → path
 */
async function openNative(files) {
  /** @type {typeof import('node-llama-cpp')} */
  let nlc;
  try {
    nlc = await import('node-llama-cpp');
  } catch (err) {
    return { unavailable: `node-llama-cpp is not installed: ${/** @type {Error} */ (err).message}` };
  }
  /** @type {import('node-llama-cpp').Llama} */
  let llama;
  try {
    llama = await nlc.getLlama({
      gpu: false,
      build: 'never',
      progressLogs: false,
      logLevel: nlc.LlamaLogLevel.error,
      // stdout is the bench's JSON: llama.cpp's messages go to stderr.
      logger: (level, message) => process.stderr.write(`llama.cpp ${level}: ${message}\n`),
    });
  } catch (err) {
    return { unavailable: `no llama.cpp binary for this machine: ${/** @type {Error} */ (err).message}` };
  }
  /** @type {Map<string, import('node-llama-cpp').LlamaModel>} */
  const models = new Map();
  /** @type {Map<string, import('node-llama-cpp').LlamaContextSequence>} */
  const sequences = new Map();
  return {
    /**
     * One decode run: tokens/s from the first generated token to the last (decoding only, as
     * llama.cpp counts it inside wllama). @param {string} name @param {number} threads
     */
    async decode(name, threads) {
      let model = models.get(name);
      if (!model) {
        model = await llama.loadModel({ modelPath: files[name] });
        models.set(name, model);
      }
      let sequence = sequences.get(`${name}/${threads}`);
      if (!sequence) {
        sequence = (await model.createContext({ contextSize: 2048, threads })).getSequence();
        sequences.set(`${name}/${threads}`, sequence);
      }
      await sequence.clearHistory();
      let n = 0;
      let start = 0;
      for await (const _ of sequence.evaluate(model.tokenize(PROMPT), { temperature: 0, seed: SEED })) {
        if (++n === 1) start = performance.now();
        if (n === GENERATED) break;
      }
      return (GENERATED - 1) / ((performance.now() - start) / 1000);
    },
    async close() {
      for (const s of sequences.values()) await s.context.dispose();
      for (const m of models.values()) await m.dispose();
      await llama.dispose();
    },
  };
}

/** @typedef {Exclude<Awaited<ReturnType<typeof openNative>>, {unavailable: string}>} Native */

/**
 * One page on the app (isolated or not): both models imported, then each loaded and measured, the
 * decode runs alternating with native ones at the same thread count (so both meet the same load).
 * @param {{isolated: boolean, threads: number, files: Record<string, string>, native: Native | null}} options
 */
async function wasmRuns({ isolated, threads, files, native }) {
  const app = await startApp();
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    forwardProgress(page);
    await openHome(page, app.url);
    // As the promise goes: no network. The service worker serves the app and wllama's wasm.
    await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 60_000 });
    await browser.context.setOffline(true);
    await page.reload();
    await page.getByRole('heading', { name: 'Workspaces' }).waitFor({ timeout: 60_000 });
    await page.evaluate(`globalThis.__localBench = (${pageEngine.toString()})()`);
    const grammar = toolCallGrammar(TOOLS);
    /** @type {Record<string, Record<string, number>>} */
    const out = {};
    for (const [model, path] of Object.entries(files)) {
      await page.evaluate((id) => {
        const input = Object.assign(document.createElement('input'), { type: 'file', id, hidden: true });
        document.body.append(input);
      }, `bench-${model}`);
      await page.setInputFiles(`#bench-${model}`, path);
      console.error(`bench: local model ${model}: import${isolated ? ' (isolated page)' : ''}`);
      const imported = await inPage(page, (e, id) => e.import(id), `bench-${model}`);
      const loads = [];
      /** @type {{ms: number, multithread: boolean, threads: number, isolated: boolean} | null} */
      let loaded = null;
      // A fresh wllama each time; the first load also compiles the wasm (the browser caches it after).
      for (let i = 0; i < LOADS; i++) {
        if (loaded) await inPage(page, (e) => e.unload());
        loaded = await inPage(page, (e, a) => e.load(a.id, a.threads), { id: imported.id, threads });
        loads.push(loaded.ms);
      }
      if (!loaded) throw new Error('bench: the model was not loaded');
      if (loaded.isolated !== isolated) throw new Error(`bench: the page is ${loaded.isolated ? '' : 'not '}cross-origin isolated`);
      if (loaded.threads !== threads) throw new Error(`bench: wllama runs ${loaded.threads} thread(s), ${threads} asked`);
      console.error(`bench: local model ${model}: decode ${GENERATED} tokens × ${RUNS}, wasm and native, ${loaded.threads} thread(s)`);
      const wasmRates = [];
      const nativeRates = [];
      for (let i = 0; i < RUNS; i++) {
        const d = await inPage(page, (e, a) => e.decode(a.prompt, a.tokens, a.seed), { prompt: PROMPT, tokens: GENERATED, seed: SEED });
        if (d.tokens !== GENERATED) throw new Error(`bench: wllama generated ${d.tokens} tokens, not ${GENERATED}`);
        wasmRates.push(d.tokensPerSecond);
        if (native) nativeRates.push(await native.decode(model, threads));
      }
      console.error(`bench: local model ${model}: first token of a tool call × ${RUNS}, then with the prompt cached`);
      const call = (/** @type {number} */ i, /** @type {boolean} */ cachePrompt) =>
        inPage(page, (e, a) => e.firstToolCallToken(a.messages, a.grammar, a.seed, a.cachePrompt), {
          messages: TOOL_TURN,
          grammar,
          seed: SEED + i,
          cachePrompt,
        });
      const calls = [];
      for (let i = 0; i < RUNS; i++) calls.push(await call(i, false));
      await call(0, true);
      for (let i = 0; i < RUNS; i++) calls.push(await call(i, true));
      const [firstTurns, nextTurns] = [calls.slice(0, RUNS), calls.slice(RUNS)];
      // The grammar's first character: a call that does not start as the object did not run under it.
      if (calls.some((c) => !c.text.startsWith('{')))
        throw new Error(`bench: a tool call did not follow the grammar: ${JSON.stringify(calls.map((c) => c.text))}`);
      await inPage(page, (e) => e.unload());
      const stops = [];
      for (let i = 0; i < RUNS; i++) {
        const stop = await inPage(page, (e, id) => e.stop(id), imported.id);
        if (stop.end !== 'aborted') throw new Error(`bench: a stopped reply ended with ${stop.end}, not as stopped`);
        stops.push(stop.ms);
      }
      /** @type {Record<'load' | 'prefill', number[]>} */
      const busyStops = { load: [], prefill: [] };
      for (let i = 0; i < RUNS; i++) {
        for (const at of /** @type {const} */ (['prefill', 'load'])) {
          const stop = await inPage(page, (e, a) => e.stopWhileBusy(a.id, a.at, a.prompt), { id: imported.id, at, prompt: LONG_PROMPT });
          if (stop.end !== 'aborted') throw new Error(`bench: a reply stopped during ${at} ended with ${stop.end}, not as stopped`);
          busyStops[at].push(stop.ms);
        }
      }
      const smooth = [];
      for (let i = 0; i < RUNS; i++) smooth.push(await inPage(page, (e, id) => e.mainThreadWhileBusy(id), imported.id));
      if (smooth.some((r) => r.pieces === 0)) throw new Error('bench: a reply watched for long tasks wrote nothing');
      out[model] = {
        importMs: imported.ms,
        bytes: imported.bytes,
        firstLoadMs: loads[0],
        loadMs: median(loads),
        threads: loaded.threads,
        // The best run: other work on the machine only ever slows a run down, on both sides alike.
        tokensPerSecond: Math.max(...wasmRates),
        nativeTokensPerSecond: native ? Math.max(...nativeRates) : Number.NaN,
        firstToolCallTokenMs: median(firstTurns.map((c) => c.ms)),
        toolCallPromptMs: median(firstTurns.map((c) => c.promptMs)),
        toolCallPromptTokens: firstTurns[0].promptTokens,
        firstToolCallTokenCachedMs: median(nextTurns.map((c) => c.ms)),
        stopMs: median(stops),
        stopDuringPrefillMs: median(busyStops.prefill),
        stopDuringLoadMs: median(busyStops.load),
        longestTaskMs: median(smooth.map((r) => r.longestTaskMs)),
        longTasks: median(smooth.map((r) => r.longTasks)),
      };
    }
    return out;
  } finally {
    await browser.close();
    await app.close();
  }
}

export async function localModelBench() {
  const dir = await mkdtemp(join(tmpdir(), 'clawser-bench-gguf-'));
  const opened = await openNative({ tiny: join(dir, 'tiny.gguf'), bench: join(dir, 'bench.gguf') });
  const native = 'unavailable' in opened ? null : opened;
  try {
    const files = { tiny: join(dir, 'tiny.gguf'), bench: join(dir, 'bench.gguf') };
    await writeFile(files.tiny, makeTestGguf({ seed: 1 }));
    await writeFile(files.bench, makeTestGguf({ seed: 1, shape: BENCH_SHAPE }));
    // The app's page is isolated either way; one thread is what a page without isolation gets.
    const single = await wasmRuns({ isolated: true, threads: 1, files, native });
    const multi = await wasmRuns({ isolated: true, threads: THREADS, files, native });
    /** @param {'tiny' | 'bench'} model */
    const figures = (model) => {
      const [s, m] = [single[model], multi[model]];
      // More threads making native llama.cpp slower means the cores were not free (its threads wait
      // for each other by spinning, so one descheduled thread stalls the rest): the two-thread runs
      // then measure the machine's other work, and the ratio is left out (`missed` lists it).
      const nativeThreadScaling = native ? m.nativeTokensPerSecond / s.nativeTokensPerSecond : Number.NaN;
      const multiThreadValid = nativeThreadScaling >= 1;
      if (native && !multiThreadValid)
        console.error(
          `bench: local model ${model}: native llama.cpp is slower with ${m.threads} threads than with 1: no free cores, no ratio`,
        );
      return {
        localModelBytes: s.bytes,
        localModelImportMs: round(s.importMs),
        localModelLoadMs: round(s.loadMs),
        localModelFirstLoadMs: round(s.firstLoadMs),
        localModelLoadMsMultiThread: round(m.loadMs),
        localTokensPerSecondWasm: { singleThread: round(s.tokensPerSecond), multiThread: round(m.tokensPerSecond), threads: m.threads },
        localTokensPerSecondNative: native
          ? { singleThread: round(s.nativeTokensPerSecond), multiThread: round(m.nativeTokensPerSecond), threads: m.threads }
          : { unavailable: /** @type {{unavailable: string}} */ (opened).unavailable },
        // Missing (so `missed` lists it) when there is no native side to compare with, or no free cores.
        localVsNativeSpeedRatio: multiThreadValid ? round(m.nativeTokensPerSecond / m.tokensPerSecond) : undefined,
        localNativeThreadScaling: round(nativeThreadScaling),
        localVsNativeSpeedRatioSingleThread: native ? round(s.nativeTokensPerSecond / s.tokensPerSecond) : undefined,
        localFirstToolCallTokenMs: round(s.firstToolCallTokenMs),
        localFirstToolCallTokenMsMultiThread: round(m.firstToolCallTokenMs),
        localToolCallPromptTokens: s.toolCallPromptTokens,
        localToolCallPromptMs: round(s.toolCallPromptMs),
        localFirstToolCallTokenMsPromptCached: round(s.firstToolCallTokenCachedMs),
        // Stop: from abort() to the stream's end, mid-reply, through the provider.
        localStopMs: round(s.stopMs),
        localStopMsMultiThread: round(m.stopMs),
        // Stop while the runtime cannot look at the signal: reading a long prompt, loading the model.
        localStopDuringPrefillMs: round(s.stopDuringPrefillMs),
        localStopDuringLoadMs: round(s.stopDuringLoadMs),
        // The page while the model loads and writes (its own worker does the work): the longest
        // main-thread task and how many ≥ 50 ms there were, medians of the runs.
        localMainThreadLongestTaskMs: round(Math.max(s.longestTaskMs, m.longestTaskMs)),
        localMainThreadLongTasks: Math.max(s.longTasks, m.longTasks),
      };
    };
    return {
      ...figures('tiny'),
      localBenchModel: figures('bench'),
      // Other work on the machine slows both sides: the load average says how quiet it was.
      localBenchLoadAverage: round(loadavg()[0]),
    };
  } finally {
    await native?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await localModelBench();
  console.log(
    JSON.stringify(
      {
        ...result,
        targets: {
          localVsNativeSpeedRatio: 3,
          localFirstToolCallTokenMs: 300,
          localStopMs: 100,
          localStopDuringPrefillMs: 100,
          localStopDuringLoadMs: 100,
          localMainThreadLongestTaskMs: 100,
        },
      },
      null,
      2,
    ),
  );
}
