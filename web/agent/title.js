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
