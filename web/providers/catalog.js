/** @import { CatalogEntry } from './types.d.ts' */

const OLLAMA_CORS =
  'Ollama is running but refuses requests from this page. Allow this origin and restart Ollama: set OLLAMA_ORIGINS to include it, e.g. `OLLAMA_ORIGINS="{origin}" ollama serve` (on macOS: `launchctl setenv OLLAMA_ORIGINS "{origin}"`, then restart the app).';
const LMSTUDIO_CORS = 'LM Studio is running but refuses requests from this page. In LM Studio\'s Developer tab, open the server settings and turn on "Enable CORS", then retry.';

/**
 * Every provider Clawser knows. OpenAI-compatible hosts share the 'openai' wire format
 * and differ only here. Model lists are suggestions: any model id can be typed.
 * @type {CatalogEntry[]}
 */
export const CATALOG = [
  { id: 'echo', label: 'Echo', note: 'test provider — repeats your message, no AI, works offline', wire: 'echo', needsKey: false, local: true, defaultModel: 'echo', models: ['echo'] },
  { id: 'chrome-ai', label: 'Chrome built-in AI', note: 'on-device, no key', wire: 'chrome-ai', needsKey: false, local: true, defaultModel: 'gemini-nano', models: ['gemini-nano'] },
  { id: 'openai', label: 'OpenAI', wire: 'openai', baseUrl: 'https://api.openai.com/v1', needsKey: true, local: false, defaultModel: 'gpt-4.1-mini', models: ['gpt-4.1-mini', 'gpt-4.1', 'gpt-4o', 'gpt-4o-mini', 'o4-mini'], streamUsage: true, vision: true, keyUrl: 'https://platform.openai.com/api-keys' },
  { id: 'anthropic', label: 'Anthropic', wire: 'anthropic', baseUrl: 'https://api.anthropic.com', needsKey: true, local: false, defaultModel: 'claude-sonnet-4-5', models: ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-1'], vision: true, keyUrl: 'https://console.anthropic.com/settings/keys' },
  { id: 'openai-responses', label: 'OpenAI Responses', note: 'OpenAI’s Responses API, with reasoning summaries', wire: 'openai-responses', baseUrl: 'https://api.openai.com/v1', needsKey: true, local: false, defaultModel: 'gpt-5-mini', models: ['gpt-5-mini', 'gpt-5', 'gpt-4.1-mini', 'o4-mini'], vision: true, keyUrl: 'https://platform.openai.com/api-keys' },
  { id: 'gemini', label: 'Google Gemini', wire: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com', needsKey: true, local: false, defaultModel: 'gemini-2.5-flash', models: ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-2.5-flash-lite', 'gemini-2.0-flash'], vision: true, keyUrl: 'https://aistudio.google.com/apikey' },
  { id: 'openai-compatible', label: 'OpenAI-compatible', note: 'any server speaking OpenAI’s API, at the base URL you give', wire: 'openai', baseUrl: '', needsKey: false, local: false, defaultModel: '', models: [] },
  { id: 'ollama', label: 'Ollama (local)', wire: 'ollama', baseUrl: 'http://localhost:11434', needsKey: false, local: true, defaultModel: 'llama3.2', models: ['llama3.2', 'qwen2.5', 'mistral', 'gemma3'], vision: true, corsHelp: OLLAMA_CORS },
  { id: 'lmstudio', label: 'LM Studio (local)', wire: 'openai', baseUrl: 'http://localhost:1234/v1', needsKey: false, local: true, defaultModel: 'local-model', models: [], streamUsage: true, corsHelp: LMSTUDIO_CORS },
  { id: 'groq', label: 'Groq', wire: 'openai', baseUrl: 'https://api.groq.com/openai/v1', needsKey: true, local: false, defaultModel: 'llama-3.3-70b-versatile', models: ['llama-3.3-70b-versatile', 'llama-3.1-8b-instant'], streamUsage: true, keyUrl: 'https://console.groq.com/keys' },
  { id: 'openrouter', label: 'OpenRouter', wire: 'openai', baseUrl: 'https://openrouter.ai/api/v1', needsKey: true, local: false, defaultModel: 'openai/gpt-4.1-mini', models: ['openai/gpt-4.1-mini', 'anthropic/claude-sonnet-4.5', 'meta-llama/llama-3.3-70b-instruct'], streamUsage: true, vision: true, keyUrl: 'https://openrouter.ai/keys' },
  { id: 'together', label: 'Together AI', wire: 'openai', baseUrl: 'https://api.together.xyz/v1', needsKey: true, local: false, defaultModel: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', models: ['meta-llama/Llama-3.3-70B-Instruct-Turbo'], streamUsage: true, keyUrl: 'https://api.together.ai/settings/api-keys' },
  { id: 'fireworks', label: 'Fireworks AI', wire: 'openai', baseUrl: 'https://api.fireworks.ai/inference/v1', needsKey: true, local: false, defaultModel: 'accounts/fireworks/models/llama-v3p3-70b-instruct', models: ['accounts/fireworks/models/llama-v3p3-70b-instruct'], streamUsage: false, keyUrl: 'https://fireworks.ai/account/api-keys' },
  { id: 'mistral', label: 'Mistral', wire: 'openai', baseUrl: 'https://api.mistral.ai/v1', needsKey: true, local: false, defaultModel: 'mistral-small-latest', models: ['mistral-small-latest', 'mistral-large-latest'], streamUsage: false, keyUrl: 'https://console.mistral.ai/api-keys' },
  { id: 'deepseek', label: 'DeepSeek', wire: 'openai', baseUrl: 'https://api.deepseek.com/v1', needsKey: true, local: false, defaultModel: 'deepseek-chat', models: ['deepseek-chat', 'deepseek-reasoner'], streamUsage: true, keyUrl: 'https://platform.deepseek.com/api_keys' },
  { id: 'xai', label: 'xAI', wire: 'openai', baseUrl: 'https://api.x.ai/v1', needsKey: true, local: false, defaultModel: 'grok-3-mini', models: ['grok-3-mini', 'grok-4'], streamUsage: true, keyUrl: 'https://console.x.ai/' },
  { id: 'perplexity', label: 'Perplexity', wire: 'openai', baseUrl: 'https://api.perplexity.ai', needsKey: true, local: false, defaultModel: 'sonar', models: ['sonar', 'sonar-pro'], streamUsage: false, nativeTools: false, keyUrl: 'https://www.perplexity.ai/settings/api' },
];

/** @param {string} id @returns {CatalogEntry | undefined} */
export function catalogEntry(id) {
  return CATALOG.find((e) => e.id === id);
}
