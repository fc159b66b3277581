/** @import { Message } from './types.d.ts' */

/**
 * Token estimates without a tokenizer (none of the providers' tokenizers ships for the browser
 * at a reasonable size): characters per token by provider family, measured on English prose
 * and code; CJK characters and emoji count about one token each in every family. Used by
 * compaction's threshold and by the composer's pre-send estimate — an estimate, never a bill.
 */

/** @typedef {'openai' | 'anthropic' | 'gemini' | 'llama' | 'default'} TokenFamily */

/** Characters per token of ordinary text. @type {Record<TokenFamily, number>} */
export const CHARS_PER_TOKEN = { openai: 4, anthropic: 3.5, gemini: 4, llama: 3.8, default: 4 };
/** Per message: role and framing tokens every format adds. */
const MESSAGE_OVERHEAD = 4;
/** An image as the providers bill it, roughly (a ~1000×1000 picture). */
const IMAGE_TOKENS = 1_300;

// One token each: CJK ideographs, kana, hangul, and emoji.
const DENSE = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|\p{Extended_Pictographic}/gu;

/**
 * The tokenizer family of a provider and model: the model decides where a host serves many (Ollama, OpenRouter).
 * @param {string} provider @param {string} [model]
 * @returns {TokenFamily}
 */
export function tokenFamily(provider, model = '') {
  const m = model.toLowerCase();
  if (/claude/.test(m) || provider === 'anthropic') return 'anthropic';
  if (/gemini|gemma/.test(m) || provider === 'gemini' || provider === 'chrome-ai') return 'gemini';
  if (/llama|mistral|mixtral|qwen|deepseek/.test(m)) return 'llama';
  if (/gpt|^o\d|openai/.test(m) || provider === 'openai' || provider === 'openai-responses') return 'openai';
  return 'default';
}

/** @param {string} text @param {TokenFamily} [family] */
export function estimateTextTokens(text, family = 'default') {
  if (!text) return 0;
  let dense = 0;
  const rest = text.replace(DENSE, () => {
    dense++;
    return '';
  });
  return dense + Math.ceil(rest.length / CHARS_PER_TOKEN[family]);
}

/** @param {Message[]} messages @param {TokenFamily} [family] */
export function estimateMessagesTokens(messages, family = 'default') {
  let n = 0;
  for (const m of messages) {
    n += MESSAGE_OVERHEAD + estimateTextTokens(m.content, family);
    if (m.toolCalls?.length) n += estimateTextTokens(JSON.stringify(m.toolCalls), family);
    n += ((m.images?.length ?? 0) + (m.imageRefs?.length ?? 0)) * IMAGE_TOKENS;
  }
  return n;
}
