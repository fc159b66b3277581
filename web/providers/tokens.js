/** @import { Message } from './types.d.ts' */
import { catalogEntry } from './catalog.js';
import { TOKEN_FAMILIES } from './model-facts.js';

/** @typedef {import('./types.d.ts').TokenFamily} TokenFamily */

/**
 * Token estimates without a tokenizer (none of the providers' tokenizers ships for the browser
 * at a reasonable size): characters per token by provider family, measured on English prose
 * and code; CJK characters and emoji count about one token each in every family. Used by
 * compaction's threshold and by the composer's pre-send estimate — an estimate, never a bill.
 */

/** Characters per token of ordinary text. @type {Record<TokenFamily, number>} */
export const CHARS_PER_TOKEN = { openai: 4, anthropic: 3.5, gemini: 4, llama: 3.8, default: 4 };
/** Per message: role and framing tokens every format adds. */
const MESSAGE_OVERHEAD = 4;
/** An image as the providers bill it, roughly (a ~1000×1000 picture). */
const IMAGE_TOKENS = 1_300;

// One token each: CJK ideographs, kana, hangul, and emoji.
const DENSE = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|\p{Extended_Pictographic}/gu;

/**
 * The tokenizer family of a provider and model: the model's name where it says (a host serving
 * many, like Ollama or OpenRouter), the provider's own family otherwise, in the order of
 * TOKEN_FAMILIES (a Claude model counts as Claude on any host).
 * @param {string} provider catalog id @param {string} [model]
 * @returns {TokenFamily}
 */
export function tokenFamily(provider, model = '') {
  const m = model.toLowerCase();
  const own = catalogEntry(provider)?.capabilities.tokenFamily;
  const families = /** @type {[Exclude<TokenFamily, 'default'>, RegExp][]} */ (Object.entries(TOKEN_FAMILIES));
  return families.find(([family, name]) => name.test(m) || own === family)?.[0] ?? 'default';
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
