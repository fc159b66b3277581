/**
 * Characters that hide or reorder text: zero-width characters, bidirectional controls and
 * Unicode tag characters (which can smuggle invisible ASCII). A module of its own so the tool
 * list and the skills prompt can clean outside text without loading the sanitizer.
 */
export const INVISIBLE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each code point is matched alone (U+034F, a combining mark, is one of them)
  /[\u200B-\u200D\u2060-\u2064\uFEFF\u180E\u00AD\u034F\u115F\u1160\u17B4\u17B5\u3164\uFFA0\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
export const TAGS = /[\u{E0000}-\u{E007F}]/gu;

/** @param {string} text */
export const stripInvisible = (text) => text.replace(INVISIBLE, '').replace(TAGS, '');
