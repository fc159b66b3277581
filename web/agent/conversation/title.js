/**
 * A conversation's provisional title: the first message as plain text (Markdown stripped),
 * shortened. Pure logic.
 */

const MAX = 60;

/**
 * @param {string} markdown
 * @returns {string} '' when nothing readable is left
 */
export function plainTitle(markdown) {
  const text = String(markdown ?? '')
    .replace(/^\s*(?:```|~~~)[^\n]*$/gm, ' ') // code fence lines (their contents stay)
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images: their alt text
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1') // links: their text
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1') // reference links
    .replace(/<\/?[a-z][^>]*>/gi, ' ') // HTML tags
    .replace(/^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)/gm, '') // headings, quotes, list markers
    .replace(/(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1/g, '$2') // bold, strike
    .replace(/(^|[^\w*])[*_](?=\S)([^*_\n]*?\S)[*_](?![\w*])/g, '$1$2') // italics
    .replace(/`+([^`]*)`+/g, '$1') // inline code
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > MAX ? `${text.slice(0, MAX - 3).trimEnd()}…` : text;
}

/** The instruction of the title request (the scripted test server recognises it by its start). */
export const TITLE_PROMPT =
  'Title this conversation. Reply with a short title of at most six words, in the ' +
  'language of the conversation, plain text, no quotes, nothing else.';

/**
 * The request that asks the model for a title after the first exchange.
 * @param {string} userText @param {string} replyText
 * @returns {import('../../providers/types.d.ts').ChatRequest}
 */
export function titleRequest(userText, replyText) {
  const clip = (/** @type {string} */ s) => (s.length > 1500 ? `${s.slice(0, 1500)}…` : s);
  return {
    system: TITLE_PROMPT,
    messages: [
      { role: 'user', content: `The user wrote:\n${clip(userText)}\n\nThe assistant answered:\n${clip(replyText)}\n\nThe title:` },
    ],
    // Room for a reasoning model's thinking (counted in the cap) before its few words of title.
    maxTokens: 1024,
  };
}

/**
 * What a model answered, as a title: its first line, without "Title:", quotes or Markdown;
 * '' when nothing usable is left (the provisional title stays).
 * @param {string} answer
 */
export function cleanModelTitle(answer) {
  const line =
    String(answer ?? '')
      .trim()
      .split('\n')
      .find((l) => l.trim()) ?? '';
  const t = plainTitle(line.replace(/^\s*(?:title|titre|título|titel)\s*:\s*/i, ''))
    .replace(/^["'“”‘’«»]+|["'“”‘’«».]+$/g, '')
    .trim();
  return t.length > MAX ? `${t.slice(0, MAX - 3).trimEnd()}…` : t;
}
