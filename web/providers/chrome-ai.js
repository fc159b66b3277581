/** @import { ChatRequest, CallOptions, StreamPart, Provider, Message, WireOptions, Availability } from './types.d.ts' */
import { ProviderError } from './errors.js';
import { collectStream, ignoredSettings } from './http.js';

/** @typedef {'unsupported' | 'unavailable' | 'downloadable' | 'downloading' | 'available'} ChromeAIAvailability */

/**
 * The two shapes of Chrome's Prompt API: the current global `LanguageModel` and the older
 * `ai.languageModel` (whose `capabilities().available` said 'readily' / 'after-download' / 'no').
 * Returns null when the browser has neither.
 * @param {any} scope the global object (injectable for tests) — untyped because the Prompt API is not in TypeScript's DOM lib
 */
export function findPromptApi(scope = globalThis) {
  if (scope.LanguageModel && typeof scope.LanguageModel.create === 'function') {
    return { kind: /** @type {const} */ ('current'), api: scope.LanguageModel };
  }
  if (scope.ai?.languageModel && typeof scope.ai.languageModel.create === 'function') {
    return { kind: /** @type {const} */ ('legacy'), api: scope.ai.languageModel };
  }
  return null;
}

/**
 * What the browser says about the on-device model, without starting a download.
 *
 * Chromium (seen in 150) crashes the tab when the page reloads or navigates while this question
 * is unanswered and the answer is "unavailable": the reply logs a console warning to the document
 * that is gone. A page cannot cancel the call, so what asks on its own as a view opens asks
 * through tabChromeAIAvailability, which asks once per tab.
 * @param {any} [scope] see findPromptApi
 * @returns {Promise<ChromeAIAvailability>}
 */
export async function chromeAIAvailability(scope = globalThis) {
  const found = findPromptApi(scope);
  if (!found) return 'unsupported';
  try {
    if (found.kind === 'current') {
      const a = await found.api.availability(LANGUAGE_OPTIONS);
      if (a === 'readily') return 'available';
      if (a === 'after-download') return 'downloadable';
      if (a === 'no') return 'unavailable';
      return ['unavailable', 'downloadable', 'downloading', 'available'].includes(a) ? a : 'unavailable';
    }
    const caps = await found.api.capabilities();
    return caps.available === 'readily' ? 'available' : caps.available === 'after-download' ? 'downloadable' : 'unavailable';
  } catch {
    return 'unavailable';
  }
}

/** sessionStorage: Chrome answered "unavailable" in this tab. */
export const UNAVAILABLE_KEY = 'clawser_chrome_ai_unavailable';

/**
 * chromeAIAvailability for what asks on its own (the setup card, the settings dialog): an
 * "unavailable" answer is kept for the tab's session, so reloads do not ask again — that is
 * the answer whose reply crashes a tab reloaded before it comes. The other answers are not kept
 * (a download moves on); a connection test or a turn asks afresh.
 * @param {any} [scope] see findPromptApi; its sessionStorage keeps the answer
 * @returns {Promise<ChromeAIAvailability>}
 */
export async function tabChromeAIAvailability(scope = globalThis) {
  /** @type {Storage | null} */
  let storage = null;
  try {
    storage = scope.sessionStorage ?? null;
    if (storage?.getItem(UNAVAILABLE_KEY)) return 'unavailable';
  } catch {
    // No session storage here (an opaque origin): asked each time.
  }
  const state = await chromeAIAvailability(scope);
  try {
    if (state === 'unavailable') storage?.setItem(UNAVAILABLE_KEY, '1');
  } catch {
    // Full or refused: asked again next time.
  }
  return state;
}

/** The Prompt API asks callers to declare languages up front. */
const LANGUAGE_OPTIONS = { expectedInputs: [{ type: 'text', languages: ['en'] }], expectedOutputs: [{ type: 'text', languages: ['en'] }] };

/** Human wording for each availability state. */
export const CHROME_AI_STATES = {
  unsupported: 'Not in this browser (needs a recent Chrome with built-in AI enabled).',
  unavailable: "This device cannot run Chrome's on-device model (hardware or settings).",
  downloadable: 'Available — the on-device model (several GB) downloads on first use.',
  downloading: 'The on-device model is downloading…',
  available: 'Ready — runs on this device, no key, nothing leaves the browser.',
};

/**
 * Whether the on-device model can run here, in words (the registry's `availability`): usable
 * when it is ready or can be downloaded.
 * @param {{perTab?: boolean, scope?: any}} [options]
 *   perTab: through tabChromeAIAvailability (what asks on its own); scope: see findPromptApi
 * @returns {Promise<Availability>}
 */
export async function availability(options = {}) {
  const state = await (options.perTab ? tabChromeAIAvailability(options.scope) : chromeAIAvailability(options.scope));
  return { usable: state === 'available' || state === 'downloadable' || state === 'downloading', state, text: CHROME_AI_STATES[state] };
}

/** The wire's factory (the registry's lazy `load` imports this module). @param {WireOptions} options */
export function create({ model }) {
  return new ChromeAIProvider({ model });
}

/**
 * Chrome built-in AI (Gemini Nano through the Prompt API). No native tool calling: tools
 * reach it through the Codex.
 * @implements {Provider}
 */
export class ChromeAIProvider {
  /** @param {{model?: string, scope?: any}} [options] scope: global object holding the Prompt API (tests inject one) */
  constructor(options = {}) {
    this.id = 'chrome-ai';
    this.model = options.model || 'gemini-nano';
    this.supportsNativeTools = false;
    this.scope = options.scope ?? globalThis;
  }

  /** @param {ChatRequest} request @param {CallOptions} [options] */
  chat(request, options) {
    return collectStream(this.chatStream(request, options), this.model);
  }

  /** @param {ChatRequest} request @param {CallOptions} [options] @returns {AsyncGenerator<StreamPart>} */
  async *chatStream(request, options = {}) {
    const signal = options.signal;
    const found = findPromptApi(this.scope);
    if (!found) {
      yield {
        type: 'error',
        error: new ProviderError(
          'client',
          `Chrome built-in AI is not available in this browser. ${CHROME_AI_STATES.unsupported} Pick another provider in Settings.`,
          { retryable: false },
        ).toJSON(),
      };
      return;
    }
    const state = await chromeAIAvailability(this.scope);
    if (state === 'unavailable') {
      yield {
        type: 'error',
        error: new ProviderError('client', `${CHROME_AI_STATES.unavailable} Pick another provider in Settings.`, {
          retryable: false,
        }).toJSON(),
      };
      return;
    }
    // The Prompt API takes text, and no limit on the reply's length; sampling is left at Chrome's.
    yield* ignoredSettings(request, 'Chrome built-in AI', {
      maxTokens: "takes no limit on the reply's length",
      temperature: 'is used at its own temperature',
      images: 'reads text only',
      tools: 'takes tools through code only',
      toolChoice: 'takes tools through code only, so no tool choice',
    });
    const { initialPrompts, prompt } = splitConversation(request);
    const status = (/** @type {string} */ text) => options.onStatus?.({ type: 'progress', text });
    /** @type {any} */ // the Prompt API session object is not typed in TypeScript's DOM lib
    let session;
    try {
      if (state === 'downloadable' || state === 'downloading') status('Downloading the on-device model… this happens once.');
      session = await found.api.create({
        ...(found.kind === 'current' ? LANGUAGE_OPTIONS : {}),
        initialPrompts: found.kind === 'current' ? initialPrompts : initialPrompts.filter((p) => p.role !== 'system'),
        systemPrompt: found.kind === 'legacy' ? request.system : undefined,
        signal,
        monitor(/** @type {EventTarget} */ m) {
          m.addEventListener('downloadprogress', (/** @type {any} */ e) => {
            const pct = e.total ? Math.round((e.loaded / e.total) * 100) : Math.round((e.loaded ?? 0) * 100);
            status(`Downloading the on-device model… ${pct}%`);
          });
        },
      });
      const stream = session.promptStreaming(prompt, { signal });
      let seen = '';
      for await (const chunk of stream) {
        const text = String(chunk);
        // Older Chrome versions streamed the whole text so far instead of deltas.
        const delta = seen && text.startsWith(seen) ? text.slice(seen.length) : text;
        seen = seen && text.startsWith(seen) ? text : seen + delta;
        if (delta) yield { type: 'text', text: delta };
      }
      // The Prompt API reports no token counts: the finish part has none.
      yield { type: 'finish', stopReason: 'end_turn' };
    } catch (err) {
      const e = /** @type {Error} */ (err);
      if (signal?.aborted || e.name === 'AbortError') {
        yield { type: 'error', error: { code: 'aborted', retryable: false, message: 'Stopped.' } };
      } else if (e.name === 'QuotaExceededError') {
        yield {
          type: 'error',
          error: new ProviderError('client', "The conversation is too long for Chrome's on-device model. Start a new conversation.", {
            retryable: false,
          }).toJSON(),
        };
      } else {
        yield {
          type: 'error',
          error: new ProviderError('unknown', `Chrome built-in AI failed: ${e.message || e.name}`, { retryable: true }).toJSON(),
        };
      }
    } finally {
      session?.destroy?.();
    }
  }
}

/**
 * The Prompt API takes history as initialPrompts plus one prompt string.
 * @param {ChatRequest} request
 */
export function splitConversation(request) {
  /** @type {{role: 'system' | 'user' | 'assistant', content: string}[]} */
  const initialPrompts = [];
  if (request.system) initialPrompts.push({ role: 'system', content: request.system });
  const msgs = request.messages;
  let lastUser = -1;
  for (let i = msgs.length - 1; i >= 0; i--)
    if (msgs[i].role === 'user') {
      lastUser = i;
      break;
    }
  msgs.forEach((/** @type {Message} */ m, i) => {
    if (i === lastUser) return;
    if (m.role === 'tool') initialPrompts.push({ role: 'user', content: `Tool result:\n${m.content}` });
    else initialPrompts.push({ role: m.role, content: m.content });
  });
  return { initialPrompts, prompt: lastUser >= 0 ? msgs[lastUser].content : '' };
}
