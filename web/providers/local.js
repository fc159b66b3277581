/** @import { ChatRequest, CallOptions, StreamPart, Provider, WireOptions, ModelInfo, ToolSpec, ProviderErrorShape } from './types.d.ts' */
/** @import { LocalModel } from './local-models.js' */
/** @import { LoadedModel } from './local-engine.js' */
// The `local` wire (issue 34 §1): a GGUF model the user brought, run in the page by llama.cpp
// compiled to WebAssembly (local-engine.js). No key, no network: nothing leaves the browser.
//
// Tools reach the model two ways. A model whose chat template renders tools gets them through
// its own template, and llama.cpp reads its tool calls back (the runtime's Chat Completions
// API). Where the model must call a tool (`toolChoice` 'required' or a named tool), or its
// template has no tools, the page writes a grammar of the call object from the tools' schemas
// (local-grammar.js) and the model samples under it, so the call always parses and matches its
// schema: llama.cpp's own converter throws inside the WebAssembly build.
import { collectStream, ignoredSettings, parseToolArguments } from './http.js';
import { assembleOpenAIStream, toWireMessage } from './openai.js';
import { GrammarError, jsonSchemaGrammar, toolCallGrammar } from './local-grammar.js';
import { LocalEngineError, localContextTokens, localReply, loadLocalModel, supportsLocalModels, unloadLocalModel } from './local-engine.js';
import { LocalModelError, sharedLocalModelStore } from './local-models.js';

const LABEL = 'The local model';
/** Tokens a reply may take when the request sets no limit (the context bounds it too). */
const DEFAULT_MAX_TOKENS = 2048;

/** @typedef {'plain' | 'native' | 'grammar'} ToolMode */

/**
 * How a request reaches the model: plain (no tools), native (through its chat template), or
 * grammar (the call object sampled under a grammar). Pure.
 * @param {ChatRequest} request @param {{callsTools: boolean}} model
 * @returns {ToolMode}
 */
export function toolModeOf(request, model) {
  const choice = request.toolChoice ?? 'auto';
  if (!request.tools?.length || choice === 'none') return 'plain';
  return choice === 'auto' && model.callsTools ? 'native' : 'grammar';
}

/**
 * The tools a grammar can hold (a schema the converter refuses is left out, with why) and the
 * grammar: one call of them, or (auto) a call or words.
 * @param {ToolSpec[]} tools @param {ChatRequest['toolChoice']} choice
 * @returns {{grammar: string, tools: ToolSpec[], left: string[]}}
 */
export function grammarFor(tools, choice) {
  const named = typeof choice === 'object' ? choice.name : null;
  const wanted = named ? tools.filter((t) => t.name === named) : tools;
  if (named && !wanted.length) throw new GrammarError(`The request names the tool “${named}”, which is not among its tools.`);
  /** @type {string[]} */
  const left = [];
  const fit = wanted.filter((t) => {
    try {
      jsonSchemaGrammar(t.parameters);
      return true;
    } catch (err) {
      left.push(`${t.name} (${/** @type {Error} */ (err).message})`);
      return false;
    }
  });
  if (!fit.length) throw new GrammarError(`No tool of this request can be called by the local model: ${left.join('; ')}.`);
  return { grammar: toolCallGrammar(fit, { orText: choice === 'auto' || choice === undefined }), tools: fit, left };
}

/**
 * What the model reads of the tools when it calls them through the grammar (its template does not
 * show them, or the call is forced): their names, descriptions and schemas, and the call's shape.
 * @param {ToolSpec[]} tools @param {boolean} forced
 */
export function grammarToolsPrompt(tools, forced) {
  const list = tools.map((t) => JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters })).join('\n');
  return (
    `You can call these tools:\n${list}\n` +
    (forced
      ? 'Reply with one tool call only, as a JSON object: {"name": <tool name>, "arguments": <its arguments>}.'
      : 'To call one, reply with only a JSON object: {"name": <tool name>, "arguments": <its arguments>}. ' + 'Otherwise reply in words.')
  );
}

/**
 * The runtime's "the request exceeds the available context size" (llama.cpp's words, whose advice
 * to increase the context is not the user's to follow), as what the user can do.
 * @param {unknown} err @param {{name: string}} model @param {number} contextTokens
 * @returns {LocalEngineError | null} null: another error
 */
export function contextError(err, model, contextTokens) {
  const text = String(/** @type {Error} */ (err)?.message ?? err);
  if (!/context size|context length|exceeds? the (available )?context|kv cache|kv_cache|n_ctx/i.test(text)) return null;
  return new LocalEngineError(
    'context',
    `This conversation is longer than the ${contextTokens.toLocaleString('en-US')} tokens of context “${model.name}” is loaded with. ` +
      'Start a new conversation, or compact this one, or turn off tools this workspace does not need ' +
      '(their descriptions take context too).',
    { cause: err },
  );
}

/** @param {unknown} err @returns {ProviderErrorShape} */
function errorShape(err) {
  const e = /** @type {Error & {code?: string}} */ (err);
  if (e?.name === 'AbortError' || e?.name === 'WllamaAbortError') return { code: 'aborted', retryable: false, message: 'Stopped.' };
  if (err instanceof LocalModelError || err instanceof LocalEngineError || err instanceof GrammarError) {
    return { code: 'client', retryable: false, message: e.message };
  }
  return { code: 'server', retryable: false, message: `${LABEL} failed: ${String(e?.message ?? err)}` };
}

/**
 * Runtime chunks as the Chat Completions stream assembler reads them: token counts from the
 * runtime's timings, and every tool call an id of its own (the runtime leaves them empty).
 * @param {AsyncIterable<any>} chunks the runtime's chat.completion.chunk objects
 * @returns {AsyncGenerator<{data: string}>}
 */
async function* asMessages(chunks) {
  /** @type {Map<number, string>} */
  const ids = new Map();
  for await (const chunk of chunks) {
    for (const choice of chunk.choices ?? []) {
      for (const tc of choice.delta?.tool_calls ?? []) {
        if (!tc.id) tc.id = ids.get(tc.index) ?? `call_${crypto.randomUUID().slice(0, 12)}`;
        ids.set(tc.index, tc.id);
      }
    }
    if (chunk.timings && !chunk.usage) {
      const t = chunk.timings;
      chunk.usage = { prompt_tokens: (t.prompt_n ?? 0) + (t.cache_n ?? 0), completion_tokens: t.predicted_n ?? 0 };
    }
    yield { data: JSON.stringify(chunk) };
  }
  yield { data: '[DONE]' };
}

/**
 * A model on this computer, by its id in the local models' store.
 * @implements {Provider}
 */
export class LocalProvider {
  /**
   * @param {{model: string, store?: {get(id: string): Promise<LocalModel>, open(id: string): Promise<{parts: Blob[]}>}}} options
   *   store: where the models are (default: the browser storage's clawser_models/)
   */
  constructor(options) {
    this.id = 'local';
    this.model = options.model;
    this.supportsNativeTools = true;
    this.supportsVision = false;
    this.#store = options.store ?? null;
  }

  /** @type {{get(id: string): Promise<LocalModel>, open(id: string): Promise<{parts: Blob[]}>} | null} */
  #store;

  /** Where the models are: made on first use (a provider is made before storage is needed). */
  get store() {
    this.#store ??= sharedLocalModelStore();
    return this.#store;
  }

  /** @param {ChatRequest} request @param {CallOptions} [options] */
  chat(request, options) {
    return collectStream(this.chatStream(request, options), this.model);
  }

  /**
   * The model, loaded (the first call loads it).
   * @param {CallOptions} [options] @returns {Promise<{model: LocalModel, loaded: LoadedModel}>}
   */
  async load(options = {}) {
    if (!this.model) throw new LocalModelError('not_found', 'Choose a model on this computer in Settings (import a GGUF file first).');
    const model = await this.store.get(this.model);
    const loaded = await loadLocalModel(model, async () => (await this.store.open(model.id)).parts, {
      onProgress: (text) => options.onStatus?.({ type: 'progress', text }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { model, loaded };
  }

  /** @param {ChatRequest} request @param {CallOptions} [options] @returns {AsyncGenerator<StreamPart>} */
  async *chatStream(request, options = {}) {
    const signal = options.signal;
    yield* ignoredSettings(request, LABEL, { images: 'reads text only' });
    /** @type {{model: LocalModel, loaded: LoadedModel}} */
    let ready;
    try {
      ready = await this.load(options);
    } catch (err) {
      yield { type: 'error', error: errorShape(err) };
      return;
    }
    if (signal?.aborted) {
      yield { type: 'error', error: errorShape(new DOMException('Stopped', 'AbortError')) };
      return;
    }
    const { model, loaded } = ready;
    const mode = toolModeOf(request, model);
    /** @type {Record<string, unknown>[]} */
    const messages = [];
    let system = request.system ?? '';
    /** @type {string | undefined} */
    let grammar;
    if (mode === 'grammar') {
      /** @type {ReturnType<typeof grammarFor>} */
      let g;
      try {
        g = grammarFor(request.tools ?? [], request.toolChoice);
      } catch (err) {
        yield { type: 'error', error: errorShape(err) };
        return;
      }
      grammar = g.grammar;
      if (g.left.length) {
        yield { type: 'warning', setting: 'tools', message: `${LABEL} cannot call some tools (their schemas): ${g.left.join('; ')}.` };
      }
      const forced = request.toolChoice === 'required' || typeof request.toolChoice === 'object';
      system = [system, grammarToolsPrompt(g.tools, forced)].filter(Boolean).join('\n\n');
    }
    if (system) messages.push({ role: 'system', content: system });
    for (const m of request.messages) {
      if (mode === 'native') messages.push(toWireMessage(m));
      // Without the template's tool turns, calls and results are told as text.
      else if (m.role === 'tool') messages.push({ role: 'user', content: `Result of the tool call ${m.toolCallId ?? ''}:\n${m.content}` });
      else if (m.role === 'assistant' && m.toolCalls?.length) {
        const calls = m.toolCalls.map((c) => JSON.stringify({ name: c.name, arguments: c.arguments })).join('\n');
        messages.push({ role: 'assistant', content: [m.content, calls].filter(Boolean).join('\n') });
      } else messages.push({ role: m.role, content: m.content });
    }
    /** @type {Record<string, unknown>} */
    const params = {
      messages,
      max_tokens: Math.min(request.maxTokens ?? DEFAULT_MAX_TOKENS, loaded.contextTokens),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    };
    if (mode === 'native') {
      params.tools = (request.tools ?? []).map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }));
      params.tool_choice = 'auto';
    }
    if (grammar) params.grammar = grammar;
    try {
      const parts = assembleOpenAIStream(asMessages(localReply(loaded, params, signal)), LABEL);
      if (mode !== 'grammar') {
        yield* parts;
        return;
      }
      yield* readGrammarReply(parts);
    } catch (err) {
      const stopped = signal?.aborted ? new DOMException('Stopped', 'AbortError') : null;
      yield { type: 'error', error: errorShape(stopped ?? contextError(err, model, loaded.contextTokens) ?? err) };
    }
  }

  /** The context the model is loaded with: the file's, within what its memory may take. @returns {Promise<number | null>} */
  async contextWindow() {
    if (!this.model) return null;
    const model = await this.store.get(this.model).catch(() => null);
    return model ? localContextTokens(model) : null;
  }

  /** The ids of this computer's models. @returns {Promise<string[]>} */
  async listModels() {
    return (await this.listModelInfo()).map((m) => m.id);
  }

  /** This computer's models, with what their files say (the model list in Settings). @returns {Promise<ModelInfo[]>} */
  async listModelInfo() {
    // any: an injected store may not list
    const models = /** @type {LocalModel[]} */ (await /** @type {any} */ (this.store).list?.()) ?? [];
    return models.map((m) => ({
      id: m.id,
      label: m.name,
      tools: m.callsTools,
      vision: false,
      sizeBytes: m.bytes,
      // What is loaded: the file's context, within what its memory may take.
      contextTokens: localContextTokens(m),
    }));
  }
}

/**
 * A reply sampled under the call-or-words grammar: a reply that opens with `{` is the call
 * (parsed once whole), words stream as they come.
 * @param {AsyncIterable<StreamPart>} parts @returns {AsyncGenerator<StreamPart>}
 */
async function* readGrammarReply(parts) {
  let head = '';
  /** @type {'undecided' | 'call' | 'words'} */
  let kind = 'undecided';
  for await (const part of parts) {
    if (part.type === 'text') {
      if (kind === 'words') {
        yield part;
        continue;
      }
      head += part.text;
      if (kind === 'undecided' && head.trim()) kind = head.trimStart().startsWith('{') ? 'call' : 'words';
      if (kind === 'words') {
        yield { type: 'text', text: head.trimStart() };
        head = '';
      }
      continue;
    }
    if (part.type === 'finish' && kind === 'call') {
      const call = parseToolArguments(head);
      if (typeof call.name !== 'string' || '_raw' in call) {
        const cut = part.stopReason === 'max_tokens' ? ' (it reached the token limit)' : '';
        yield { type: 'error', error: { code: 'server', retryable: true, message: `${LABEL} wrote an incomplete tool call${cut}.` } };
        return;
      }
      const args = call.arguments && typeof call.arguments === 'object' && !Array.isArray(call.arguments) ? call.arguments : {};
      yield {
        type: 'tool_call',
        id: `call_${crypto.randomUUID().slice(0, 12)}`,
        name: call.name,
        arguments: /** @type {Record<string, unknown>} */ (args),
      };
      yield { ...part, stopReason: 'tool_use' };
      continue;
    }
    yield part;
  }
}

/** The wire's factory (the registry's lazy `load` imports this module). @param {WireOptions} options */
export function create({ model }) {
  return new LocalProvider({ model });
}

/**
 * The first-run card's question: does this browser run models, and which are imported.
 * @returns {Promise<{found: boolean, models: string[]}>}
 */
export async function discover() {
  if (!supportsLocalModels()) return { found: false, models: [] };
  const models = await sharedLocalModelStore()
    .list()
    .catch(() => []);
  return { found: models.length > 0, models: models.map((m) => m.id) };
}

/**
 * Imports a GGUF model into this browser's storage (the public API's way in; Settings has its own
 * list). `file`: the model, or a split model's parts in order.
 * @param {Blob | Blob[]} file
 * @param {{name?: string, signal?: AbortSignal, onProgress?: (written: number, total: number) => void}} [options]
 * @returns {Promise<LocalModel>}
 */
export function importLocalModel(file, options = {}) {
  const parts = Array.isArray(file) ? file : [file];
  const name = options.name ?? (parts[0] instanceof File ? parts[0].name : undefined);
  return sharedLocalModelStore().import(parts, { ...options, ...(name ? { name } : {}) });
}

/** The models imported into this browser, newest first. @returns {Promise<LocalModel[]>} */
export function listLocalModels() {
  return sharedLocalModelStore().list();
}

/** Deletes an imported model (unloading it first if it is loaded). @param {string} id */
export async function deleteLocalModel(id) {
  await unloadLocalModel(id);
  await sharedLocalModelStore().delete(id);
}
