/**
 * Ways text hides an instruction from a reader that is not looking for it — reversed, Caesar
 * shifted, mirrored alphabet, leetspeak, base64, hex, binary, percent-escapes, Morse, letters
 * spaced apart, look-alike letters from other scripts, symbols with a legend — and how to read
 * each back. The InputSanitizer runs its detectors again on every reading. Each pass is linear
 * and runs only where the text shows its sign. Pure logic.
 */

/**
 * @typedef {{text: string, via: string, matched?: boolean}} Reading `matched`: the reading is itself a match (letters run together, which
 *   no sentence rule can read)
 */

/** Cipher keywords: finding one of them shifted (or mirrored) tells how the text was written. */
const CIPHER_WORDS = [
  'ignore',
  'disregard',
  'instructions',
  'previous',
  'forget',
  'system',
  'prompt',
  'reveal',
  'password',
  'assistant',
  'respond',
];

/** @param {string} s @param {number} n */
export function shift(s, n) {
  return s.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + n + 26) % 26) + base);
  });
}

/** One pass finds any shifted keyword: its shift is how far the text must be shifted back. */
const CIPHER = new RegExp(
  `\\b(${Array.from({ length: 25 }, (_, i) => CIPHER_WORDS.map((w) => shift(w, i + 1)))
    .flat()
    .join('|')})\\b`,
  'i',
);
const PLAIN_WORD = new RegExp(`\\b(?:${CIPHER_WORDS.join('|')})\\b`, 'i');

const INSTRUCTION_WORD = new RegExp(
  String.raw`\b(?:ignore|disregard|forget|instructions?|prompt|previous|system|reply|respond|say|print|` +
    String.raw`output|reveal|assistant|rules|task|password|key|send|tell|secret)\b`,
  'i',
);
const INSTRUCTION_WORDS = new RegExp(INSTRUCTION_WORD.source, 'gi');

/** a↔z, b↔y, … @param {string} s */
const atbash = (s) =>
  s.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(base + 25 - (c.charCodeAt(0) - base));
  });

/** Leetspeak digits inside words, as letters. @param {string} s */
const unleet = (s) =>
  s.replace(/[a-z]*[013457@$][a-z0-9@$]*/gi, (w) =>
    /[a-z]/i.test(w)
      ? w.replace(/[013457@$]/g, (d) => ({ 0: 'o', 1: 'i', 3: 'e', 4: 'a', 5: 's', 7: 't', '@': 'a', $: 's' })[/** @type {'0'} */ (d)] ?? d)
      : w,
  );

/** Bytes as text, when they are mostly letters and spaces (a sentence, not data or a key). @param {Uint8Array} bytes */
function sentenceOf(bytes) {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    const letters = text.match(/[\p{L}\s.,!?'"-]/gu)?.length ?? 0;
    return text.length >= 12 && letters / text.length > 0.85 && /\s/.test(text) ? text : null;
  } catch {
    return null;
  }
}

/** Base64 runs long enough to hide a sentence. */
const BASE64_RUN = /[A-Za-z0-9+/]{20,}={0,2}/g;
/** @param {string} run */
function base64Text(run) {
  try {
    const bin = atob(run.length % 4 ? run + '='.repeat(4 - (run.length % 4)) : run);
    return sentenceOf(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

const HEX_RUN = /(?:\\x[0-9a-f]{2}){8,}|(?:\b[0-9a-f]{2}[\s:,-]){8,}[0-9a-f]{2}\b|\b(?:[0-9a-f]{2}){12,}\b/gi;
const BINARY_RUN = /(?:\b[01]{8}\s?){8,}/g;
const PERCENT_ESCAPE = /%[0-9a-f]{2}/gi;
const UNICODE_ESCAPE = /(?:\\u[0-9a-f]{4}){6,}/i;
const MORSE_RUN = /(?:[.\-·−–]{1,6}(?:\s+\/\s+|\s{1,3})){8,}[.\-·−–]{1,6}/g;
const MORSE = /** @type {Record<string, string>} */ ({
  '.-': 'a',
  '-...': 'b',
  '-.-.': 'c',
  '-..': 'd',
  '.': 'e',
  '..-.': 'f',
  '--.': 'g',
  '....': 'h',
  '..': 'i',
  '.---': 'j',
  '-.-': 'k',
  '.-..': 'l',
  '--': 'm',
  '-.': 'n',
  '---': 'o',
  '.--.': 'p',
  '--.-': 'q',
  '.-.': 'r',
  '...': 's',
  '-': 't',
  '..-': 'u',
  '...-': 'v',
  '.--': 'w',
  '-..-': 'x',
  '-.--': 'y',
  '--..': 'z',
});
/** Single letters kept apart by spaces or punctuation: "I g n o r e", "i.g.n.o.r.e". */
const SPACED_RUN = /(?<![\p{L}\p{N}])(?:\p{L}[ .\-_*|/,·•]{1,3}){5,}\p{L}(?![\p{L}\p{N}])/gu;
/** A legend that maps symbols to words: "🤫 = ignore", "📜 means instructions". */
const LEGEND = new RegExp(
  String.raw`((?:\p{Extended_Pictographic}|\p{So})[\uFE0F\u20E3]?(?:(?:\p{Extended_Pictographic}|` +
    String.raw`\p{So})[\uFE0F\u20E3]?){0,2})\s*(?:=|→|->|means|stands for)\s*["'“]?(\p{L}+)`,
  'gu',
);

/** Latin look-alikes from Cyrillic and Greek. */
const CONFUSABLES = /** @type {Record<string, string>} */ ({
  ᴀ: 'a',
  ʙ: 'b',
  ᴄ: 'c',
  ᴅ: 'd',
  ᴇ: 'e',
  ꜰ: 'f',
  ɢ: 'g',
  ʜ: 'h',
  ɪ: 'i',
  ᴊ: 'j',
  ᴋ: 'k',
  ʟ: 'l',
  ᴍ: 'm',
  ɴ: 'n',
  ᴏ: 'o',
  ᴘ: 'p',
  ǫ: 'q',
  ʀ: 'r',
  ꜱ: 's',
  ᴛ: 't',
  ᴜ: 'u',
  ᴠ: 'v',
  ᴡ: 'w',
  ʏ: 'y',
  ᴢ: 'z',
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  у: 'y',
  х: 'x',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  һ: 'h',
  ӏ: 'l',
  ԛ: 'q',
  ԝ: 'w',
  ɡ: 'g',
  ո: 'n',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  α: 'a',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
});
/** Small capitals (ᴀ ʙ ᴄ …) are Latin letters NFKC leaves alone. */
const SMALL_CAPS = /[ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘǫʀꜱᴛᴜᴠᴡʏᴢ]{3,}/u;
const LOOKALIKE = /[\p{Script=Cyrillic}\p{Script=Greek}ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘǫʀꜱᴛᴜᴠᴡʏᴢ]/gu;
const MIXED_SCRIPT = /(?=[\p{L}]*\p{Script=Latin})(?=[\p{L}]*[\p{Script=Cyrillic}\p{Script=Greek}])\p{L}{3,}/u;

/** Spaced-out instructions read with their letters run together (word breaks are lost). */
const COMPACT = new RegExp(
  String.raw`(?:ignor|disregard|forget|overrid|bypass)\w{0,30}?(?:instructions?|prompts?|rules|` +
    String.raw`directions|guidelines|directives|commands)|(?:reveal|print|show|output|repeat|` +
    String.raw`display)\w{0,12}?(?:system|initial|hidden|secret)(?:prompt|instructions|message)`,
);

/**
 * Every other reading of `text` that its signs call for.
 * @param {string} text
 * @returns {Reading[]}
 */
export function readDisguises(text) {
  /** @type {Reading[]} */
  const out = [];
  // Reversed text is read when it says something an instruction would (most text reversed is noise).
  const reversed = [...text].reverse().join('');
  if (INSTRUCTION_WORD.test(reversed)) out.push({ text: reversed, via: 'reversed' });
  // Only lines where leetspeak hid an instruction word are read again ("v2", "h264" are everywhere).
  const leet = text
    .split('\n')
    .flatMap((line) => {
      const l = unleet(line);
      return l !== line &&
        INSTRUCTION_WORD.test(l) &&
        (l.match(INSTRUCTION_WORDS)?.length ?? 0) > (line.match(INSTRUCTION_WORDS)?.length ?? 0)
        ? [l]
        : [];
    })
    .join('\n');
  if (leet) out.push({ text: leet, via: 'leetspeak' });
  const cipher = CIPHER.exec(text);
  if (cipher) {
    const word = cipher[1].toLowerCase();
    for (const w of CIPHER_WORDS) {
      for (let n = 1; n < 26; n++) if (shift(w, n) === word) out.push({ text: shift(text, 26 - n), via: `caesar shift ${n}` });
    }
  }
  const mirrored = atbash(text);
  if (PLAIN_WORD.test(mirrored)) out.push({ text: mirrored, via: 'atbash' });
  const wordsReversed = text.replace(/\p{L}+/gu, (w) => [...w].reverse().join(''));
  if (PLAIN_WORD.test(wordsReversed) && !PLAIN_WORD.test(text)) out.push({ text: wordsReversed, via: 'reversed words' });
  for (const run of text.match(BASE64_RUN) ?? []) {
    const decoded = base64Text(run);
    if (decoded) out.push({ text: decoded.normalize('NFKC'), via: 'base64' });
  }
  for (const run of text.match(HEX_RUN) ?? []) {
    const hex = run.replace(/\\x|[^0-9a-f]/gi, '');
    const decoded = sentenceOf(Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16)));
    if (decoded) out.push({ text: decoded, via: 'hex' });
  }
  for (const run of text.match(BINARY_RUN) ?? []) {
    const decoded = sentenceOf(Uint8Array.from(run.match(/[01]{8}/g) ?? [], (b) => parseInt(b, 2)));
    if (decoded) out.push({ text: decoded, via: 'binary' });
  }
  const escapedLines = text.split('\n').filter((line) => (line.match(PERCENT_ESCAPE)?.length ?? 0) >= 4 || UNICODE_ESCAPE.test(line));
  if (escapedLines.length) {
    const escaped = escapedLines.join('\n');
    let decoded = escaped.replace(/\\u([0-9a-f]{4})/gi, (_, h) => String.fromCharCode(parseInt(h, 16)));
    try {
      decoded = decodeURIComponent(decoded.replace(/%(?![0-9a-f]{2})/gi, '%25').replace(/\+/g, ' '));
    } catch {
      /* a broken escape: keep what the \u pass gave */
    }
    if (decoded !== escaped) out.push({ text: decoded, via: 'escaped' });
  }
  for (const run of text.match(MORSE_RUN) ?? []) {
    const decoded = run
      .replace(/[·]/g, '.')
      .replace(/[−–]/g, '-')
      .split(/\s+\/\s+|\s{2,}/)
      .map((word) =>
        word
          .trim()
          .split(/\s+/)
          .map((c) => MORSE[c] ?? '')
          .join(''),
      )
      .join(' ');
    if (/[a-z]{3,}/.test(decoded)) out.push({ text: decoded, via: 'morse' });
  }
  const spaced = text.match(SPACED_RUN);
  if (spaced) {
    // Word breaks inside a spaced run are usually a wider gap or a slash: keep them when present.
    const readable = spaced
      .map((run) =>
        run
          .replace(/\s{2,}|\s*\/\s*/g, '\u0000')
          .replace(/[^\p{L}\u0000]/gu, '')
          .replaceAll('\u0000', ' '),
      )
      .join(' ');
    out.push({ text: readable, via: 'spaced letters' });
    const compact = spaced
      .map((run) => run.replace(/[^\p{L}]/gu, ''))
      .join('')
      .toLowerCase();
    const m = COMPACT.exec(compact);
    if (m) out.push({ text: m[0], via: 'spaced letters', matched: true });
  }
  if (MIXED_SCRIPT.test(text) || SMALL_CAPS.test(text))
    out.push({ text: text.replace(LOOKALIKE, (c) => CONFUSABLES[c] ?? c), via: 'look-alike letters' });
  /** @type {Map<string, string>} */
  const legend = new Map();
  for (const m of text.matchAll(LEGEND)) legend.set(m[1], m[2]);
  if (legend.size >= 2) {
    // The lines that use a symbol of the legend, read with its words.
    const symbols = [...legend.keys()];
    let decoded = text
      .split('\n')
      .filter((line) => symbols.some((symbol) => line.includes(symbol)))
      .join('\n');
    for (const [symbol, word] of legend) decoded = decoded.split(symbol).join(` ${word} `);
    out.push({ text: decoded.replace(/\s+/g, ' '), via: 'substitution' });
  }
  return out;
}
