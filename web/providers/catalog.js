/** @import { CatalogEntry, HostDeclaration, ProviderCapabilities, WireDeclaration, WireModule } from './types.d.ts' */

/**
 * The provider registry: every wire format Clawser speaks and every provider (host) it offers.
 *
 * A wire declares itself once: its id (its code is `web/providers/<id>.js`), its capabilities
 * and a lazy factory (`load`, which imports that file only when a provider is made). A provider
 * is a host speaking a wire — its label, default base URL and models, whether it needs a key —
 * and may narrow its wire's capabilities (Perplexity takes tools through code). Nothing outside
 * this file and a wire's own file names a wire or a provider: the rest of the app asks an
 * entry's `capabilities` (tests/unit/provider-registry.test.mjs). This module loads with the
 * first view, so it holds data only; the wires' code loads with the first provider made.
 * Model facts (context, prices, badges) are in model-facts.js.
 *
 * Adding a provider: one file for a new wire (or none, for another host of a wire) and one entry
 * in PROVIDERS below — CONTRIBUTING.md, "A provider".
 */

/** A wire that runs over HTTP: the base URL and key fields apply, it says when it connected. */
const HTTP = /** @type {const} */ ({
  key: 'accepted',
  baseUrl: 'accepted',
  runs: 'http',
  needsModel: true,
  availability: false,
  test: false,
  background: true,
  modelFiles: false,
});

/** Chat Completions, spoken by OpenAI and by every OpenAI-compatible host below. */
/** @type {WireDeclaration} */
const OPENAI = {
  id: 'openai',
  load: () => import('./openai.js'),
  capabilities: {
    ...HTTP,
    tools: 'native',
    images: { maxEdge: 2048, maxBytes: 20 * 1024 * 1024, decidedBy: 'host' },
    reasoning: true,
    tokenFamily: 'default',
    listsModels: true,
    pullsModels: false,
  },
};

const OLLAMA_CORS =
  'Ollama is running but refuses requests from this page. Allow this origin and restart Ollama: set OLLAMA_ORIGINS to include it, ' +
  'e.g. `OLLAMA_ORIGINS="{origin}" ollama serve` (on macOS: `launchctl setenv OLLAMA_ORIGINS "{origin}"`, then restart the app).';
const LMSTUDIO_CORS =
  "LM Studio is running but refuses requests from this page. In LM Studio's Developer tab, open the server settings " +
  'and turn on "Enable CORS", then retry.';
/** "Found, with 2 models: a, b." @param {string[]} models @param {string} [none] what to say when there are none */
const foundModels = (models, none = '') => {
  const n = models.length;
  return `Found, with ${n || 'no'} model${n === 1 ? '' : 's'}${n ? `: ${models.slice(0, 3).join(', ')}` : none}.`;
};
const ECHO_SAYS = 'Repeats what you type. No AI — useful to try the app offline.';

/**
 * Every provider, in the order Settings lists them. Model lists are suggestions: any model id can
 * be typed. Images: `anthropic` takes 5 MB per image, of the base64 text (three quarters of it in
 * bytes), and scales images over 1568 px down; OpenAI (both APIs) 20 MB, fitted within 2048 × 2048;
 * Gemini 20 MB per request inline, keeping up to 3072 px; local vision models work on small inputs
 * (most at 336–1120 px).
 * @type {HostDeclaration[]}
 */
export const PROVIDERS = [
  {
    id: 'echo',
    label: 'Echo',
    note: 'test provider — repeats your message, no AI, works offline',
    needsKey: false,
    local: true,
    defaultModel: 'echo',
    models: ['echo'],
    wire: {
      id: 'echo',
      load: () => import('./echo.js'),
      capabilities: {
        tools: 'codex',
        images: null,
        reasoning: false,
        tokenFamily: 'default',
        key: 'none',
        baseUrl: 'none',
        runs: 'browser',
        needsModel: false,
        listsModels: false,
        pullsModels: false,
        availability: false,
        test: true,
        background: true,
        modelFiles: false,
      },
    },
    setup: {
      title: 'Echo (test provider)',
      action: 'Try Echo',
      checking: ECHO_SAYS,
      found: ECHO_SAYS,
    },
  },
  {
    id: 'chrome-ai',
    label: 'Chrome built-in AI',
    note: 'on-device, no key',
    needsKey: false,
    local: true,
    defaultModel: 'gemini-nano',
    models: ['gemini-nano'],
    wire: {
      id: 'chrome-ai',
      load: () => import('./chrome-ai.js'),
      capabilities: {
        tools: 'codex',
        images: null,
        reasoning: false,
        tokenFamily: 'gemini',
        key: 'none',
        baseUrl: 'none',
        runs: 'browser',
        needsModel: false,
        listsModels: false,
        pullsModels: false,
        availability: true,
        test: false,
        background: true,
        modelFiles: false,
      },
    },
    // Found or not, what the browser says is shown; `missing` is for a browser that could not be asked.
    setup: {
      title: 'Chrome built-in AI',
      checking: 'Checking…',
      action: 'Use Chrome built-in AI',
      missing: 'Not in this browser (needs a recent Chrome with built-in AI enabled).',
    },
  },
  {
    id: 'local',
    label: 'Local model (GGUF)',
    note: 'a GGUF model file you bring, run in this page: no key, works offline',
    needsKey: false,
    local: true,
    defaultModel: '',
    models: [],
    wire: {
      id: 'local',
      load: () => import('./local.js'),
      capabilities: {
        tools: 'native',
        images: null,
        reasoning: false,
        tokenFamily: 'default',
        key: 'none',
        baseUrl: 'none',
        runs: 'browser',
        needsModel: true,
        listsModels: true,
        pullsModels: false,
        availability: false,
        test: false,
        // Every request takes the computer's CPU from the user's turns: titles and summaries are not asked of it.
        background: false,
        // Its models are the GGUF files imported into this browser (the model library's).
        modelFiles: true,
      },
    },
    setup: {
      title: 'A model on this computer',
      checking: 'Looking for models imported into this browser…',
      action: 'Use a model on this computer',
      setUpAction: 'Import a model…',
      found: (models) =>
        `Imported: ${models.length} model${models.length === 1 ? '' : 's'}. Runs in this page, offline, with no key: ` +
        'a few words a second on a Chromebook-class CPU, more on a fast laptop or with WebGPU; slower than a cloud model.',
      missing:
        'Bring a GGUF model file (a 0.5–1.5 B model at Q4 is 0.4–1 GB) and import it in Settings → Models on this computer. ' +
        'It runs in this page with no key and no network: a few words a second on a Chromebook-class CPU, ' +
        'more on a fast laptop or with WebGPU.',
    },
  },
  {
    id: 'openai',
    label: 'OpenAI',
    wire: OPENAI,
    baseUrl: 'https://api.openai.com/v1',
    needsKey: true,
    local: false,
    defaultModel: 'gpt-4.1-mini',
    models: ['gpt-4.1-mini', 'gpt-4.1', 'gpt-4o', 'gpt-4o-mini', 'o4-mini'],
    streamUsage: true,
    tokenLimitField: 'max_completion_tokens',
    vision: true,
    tokenFamily: 'openai',
    keyUrl: 'https://platform.openai.com/api-keys',
    corsMayMeanBadKey: true,
  },
  {
    id: 'anthropic',
    label: 'Anthropic',
    baseUrl: 'https://api.anthropic.com',
    needsKey: true,
    local: false,
    defaultModel: 'claude-sonnet-4-5',
    models: ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-1'],
    vision: true,
    keyUrl: 'https://console.anthropic.com/settings/keys',
    wire: {
      id: 'anthropic',
      load: () => import('./anthropic.js'),
      capabilities: {
        ...HTTP,
        tools: 'native',
        images: { maxEdge: 1568, maxBytes: Math.floor((5 * 1024 * 1024 * 3) / 4), decidedBy: 'host' },
        reasoning: true,
        tokenFamily: 'anthropic',
        listsModels: true,
        pullsModels: false,
      },
    },
  },
  {
    id: 'openai-responses',
    label: 'OpenAI Responses',
    note: 'OpenAI’s Responses API, with reasoning summaries',
    baseUrl: 'https://api.openai.com/v1',
    needsKey: true,
    local: false,
    defaultModel: 'gpt-5-mini',
    models: ['gpt-5-mini', 'gpt-5', 'gpt-4.1-mini', 'o4-mini'],
    vision: true,
    keyUrl: 'https://platform.openai.com/api-keys',
    wire: {
      id: 'openai-responses',
      load: () => import('./openai-responses.js'),
      capabilities: {
        ...HTTP,
        tools: 'native',
        images: { maxEdge: 2048, maxBytes: 20 * 1024 * 1024, decidedBy: 'host' },
        reasoning: true,
        tokenFamily: 'openai',
        listsModels: true,
        pullsModels: false,
      },
    },
  },
  {
    id: 'gemini',
    label: 'Google Gemini',
    baseUrl: 'https://generativelanguage.googleapis.com',
    needsKey: true,
    local: false,
    defaultModel: 'gemini-2.5-flash',
    models: ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-2.5-flash-lite', 'gemini-2.0-flash'],
    vision: true,
    keyUrl: 'https://aistudio.google.com/apikey',
    wire: {
      id: 'gemini',
      load: () => import('./gemini.js'),
      capabilities: {
        ...HTTP,
        tools: 'native',
        images: { maxEdge: 3072, maxBytes: 15 * 1024 * 1024, decidedBy: 'host' },
        reasoning: true,
        tokenFamily: 'gemini',
        listsModels: true,
        pullsModels: false,
      },
    },
  },
  {
    id: 'openai-compatible',
    label: 'OpenAI-compatible',
    note: 'any server speaking OpenAI’s API, at the base URL you give',
    wire: OPENAI,
    baseUrl: '',
    baseUrlExample: 'http://localhost:11434/v1',
    needsKey: false,
    local: false,
    defaultModel: '',
    models: [],
  },
  {
    id: 'ollama',
    label: 'Ollama (local)',
    baseUrl: 'http://localhost:11434',
    needsKey: false,
    local: true,
    defaultModel: 'llama3.2',
    models: ['llama3.2', 'qwen2.5', 'mistral', 'gemma3'],
    vision: true,
    corsHelp: OLLAMA_CORS,
    wire: {
      id: 'ollama',
      load: () => import('./ollama.js'),
      capabilities: {
        // Most local models are text only: whether one takes images is decided per model.
        ...HTTP,
        tools: 'native',
        images: { maxEdge: 1120, maxBytes: 10 * 1024 * 1024, decidedBy: 'model' },
        reasoning: true,
        tokenFamily: 'default',
        listsModels: true,
        pullsModels: true,
      },
      // The preset spoke the OpenAI-compatible API under /v1 before; its native API is at the root.
      migrateBaseUrl: (url) => {
        if (!/\/v1\/?$/.test(url)) return url;
        const root = url.replace(/\/v1\/?$/, '');
        return root === 'http://localhost:11434' ? '' : root;
      },
    },
    setup: {
      title: 'Ollama on this computer',
      checking: 'Looking on localhost:11434…',
      action: 'Use Ollama',
      found: (models) => foundModels(models, ' — run `ollama pull llama3.2`'),
      missing: 'Not found on localhost:11434. Install it from ollama.com to run models locally.',
    },
  },
  {
    id: 'lmstudio',
    label: 'LM Studio (local)',
    wire: OPENAI,
    baseUrl: 'http://localhost:1234/v1',
    needsKey: false,
    local: true,
    defaultModel: 'local-model',
    models: [],
    streamUsage: true,
    corsHelp: LMSTUDIO_CORS,
    setup: {
      title: 'LM Studio on this computer',
      checking: 'Looking on localhost:1234…',
      action: 'Use LM Studio',
      found: (models) => `Found${models.length ? `: ${models.slice(0, 3).join(', ')}` : ''}.`,
      missing: 'Not found on localhost:1234 (start its local server to use it).',
    },
  },
  {
    id: 'groq',
    label: 'Groq',
    wire: OPENAI,
    baseUrl: 'https://api.groq.com/openai/v1',
    needsKey: true,
    local: false,
    defaultModel: 'llama-3.3-70b-versatile',
    models: ['llama-3.3-70b-versatile', 'llama-3.1-8b-instant'],
    streamUsage: true,
    keyUrl: 'https://console.groq.com/keys',
  },
  {
    id: 'openrouter',
    label: 'OpenRouter',
    wire: OPENAI,
    baseUrl: 'https://openrouter.ai/api/v1',
    needsKey: true,
    local: false,
    defaultModel: 'openai/gpt-4.1-mini',
    models: ['openai/gpt-4.1-mini', 'anthropic/claude-sonnet-4.5', 'meta-llama/llama-3.3-70b-instruct'],
    streamUsage: true,
    vision: true,
    keyUrl: 'https://openrouter.ai/keys',
  },
  {
    id: 'together',
    label: 'Together AI',
    wire: OPENAI,
    baseUrl: 'https://api.together.xyz/v1',
    needsKey: true,
    local: false,
    defaultModel: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    models: ['meta-llama/Llama-3.3-70B-Instruct-Turbo'],
    streamUsage: true,
    keyUrl: 'https://api.together.ai/settings/api-keys',
  },
  {
    id: 'fireworks',
    label: 'Fireworks AI',
    wire: OPENAI,
    baseUrl: 'https://api.fireworks.ai/inference/v1',
    needsKey: true,
    local: false,
    defaultModel: 'accounts/fireworks/models/llama-v3p3-70b-instruct',
    models: ['accounts/fireworks/models/llama-v3p3-70b-instruct'],
    streamUsage: false,
    keyUrl: 'https://fireworks.ai/account/api-keys',
  },
  {
    id: 'mistral',
    label: 'Mistral',
    wire: OPENAI,
    baseUrl: 'https://api.mistral.ai/v1',
    needsKey: true,
    local: false,
    defaultModel: 'mistral-small-latest',
    models: ['mistral-small-latest', 'mistral-large-latest'],
    streamUsage: false,
    keyUrl: 'https://console.mistral.ai/api-keys',
  },
  {
    id: 'deepseek',
    label: 'DeepSeek',
    wire: OPENAI,
    baseUrl: 'https://api.deepseek.com/v1',
    needsKey: true,
    local: false,
    defaultModel: 'deepseek-chat',
    models: ['deepseek-chat', 'deepseek-reasoner'],
    streamUsage: true,
    keyUrl: 'https://platform.deepseek.com/api_keys',
  },
  {
    id: 'xai',
    label: 'xAI',
    wire: OPENAI,
    baseUrl: 'https://api.x.ai/v1',
    needsKey: true,
    local: false,
    defaultModel: 'grok-3-mini',
    models: ['grok-3-mini', 'grok-4'],
    streamUsage: true,
    keyUrl: 'https://console.x.ai/',
  },
  {
    id: 'perplexity',
    label: 'Perplexity',
    wire: OPENAI,
    baseUrl: 'https://api.perplexity.ai',
    needsKey: true,
    local: false,
    defaultModel: 'sonar',
    models: ['sonar', 'sonar-pro'],
    streamUsage: false,
    nativeTools: false,
    keyUrl: 'https://www.perplexity.ai/settings/api',
  },
];

/** Every wire format, once each, in the order their first provider is listed. @type {WireDeclaration[]} */
export const WIRES = [...new Set(PROVIDERS.map((p) => p.wire))];

/**
 * What a provider can do and needs: its wire's capabilities, as the host narrows them.
 * @param {HostDeclaration} host @returns {ProviderCapabilities}
 */
function capabilitiesOf(host) {
  const w = host.wire.capabilities;
  return {
    ...w,
    tools: host.nativeTools === false ? 'codex' : w.tools,
    tokenFamily: host.tokenFamily ?? w.tokenFamily,
    key: w.key === 'none' ? 'none' : host.needsKey ? 'required' : 'optional',
    baseUrl: w.baseUrl === 'none' ? 'none' : host.baseUrl ? 'optional' : 'required',
    local: host.local,
  };
}

/**
 * Every provider as the rest of the app sees it: its wire by id, its capabilities resolved.
 * @type {CatalogEntry[]}
 */
export const CATALOG = PROVIDERS.map(({ wire, ...host }) => ({ ...host, wire: wire.id, capabilities: capabilitiesOf({ ...host, wire }) }));

/**
 * Whether a provider is there without looking: it runs in the page, has no availability to ask
 * and no models to list (Echo). The first-run card and discovery both ask this.
 * @param {CatalogEntry} entry
 */
export function alwaysThere(entry) {
  const caps = entry.capabilities;
  return caps.runs === 'browser' && !caps.availability && !caps.listsModels;
}

/** @param {string} id @returns {CatalogEntry | undefined} */
export function catalogEntry(id) {
  return CATALOG.find((e) => e.id === id);
}

/** @param {string} id a wire's id @returns {WireDeclaration | undefined} */
export function wireDeclaration(id) {
  return WIRES.find((w) => w.id === id);
}

/**
 * The code of a wire, loaded on first use (its lazy factory).
 * @param {string} id a wire's id @returns {Promise<WireModule>}
 */
export function loadWire(id) {
  const wire = wireDeclaration(id);
  if (!wire) return Promise.reject(new Error(`No wire format "${id}" is registered.`));
  return wire.load();
}
