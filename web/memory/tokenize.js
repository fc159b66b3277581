/**
 * The tokenizer of the memory search: text → index terms (lowercase, accents folded on Latin and
 * Greek letters, stop words dropped, English words lightly stemmed, CJK as character bigrams).
 * Documents and queries go through the same function. Pure: no DOM, no storage.
 */

/** English stop words, apostrophes removed (the tokenizer drops them before the lookup). */
const STOP_WORDS = new Set(
  `a about above after again against all am an and any are aren arent as at be because been
before being below between both but by can cannot cant could couldnt did didnt do does doesnt doing dont down during
each few for from further had hadnt has hasnt have havent having he hed hes her here heres hers herself him himself his
how hows i if im in into is isnt it its itself ive just let lets me more most my myself no nor not of off on once only
or other ought our ours ourselves out over own same shant she shes should shouldnt so some such than that thats the
their theirs them themselves then there theres these they theyd theyll theyre theyve this those through to too under
until up very was wasnt we wed well were werent weve what whats when whens where wheres which while who whom whos why
whys will with wont would wouldnt you youd youll youre youve your yours yourself yourselves`.split(/\s+/),
);

const WORD = /[\p{L}\p{N}\p{M}]+(?:['’][\p{L}\p{N}\p{M}]+)*/gu;
const ASCII_WORDS = /[a-z0-9]+(?:'[a-z0-9]+)*/g; // same split for ASCII text, much faster
// Scripts written without spaces: indexed as overlapping character bigrams.
const CJK = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]/u;
const CJK_RUNS = /([\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]+)/u;
const NON_ASCII = /[^\x00-\x7f]/;
const ACCENTS = /(?<=[\p{sc=Latin}\p{sc=Greek}])\p{Mn}+/gu; // é→e, ά→α; other scripts' marks carry meaning
const NUMBER = /^\p{N}+$/u;
const ASCII_WORD = /^[a-z]+$/;

/**
 * Splits text into index terms: lowercase, accents folded on Latin and Greek letters, stop words
 * dropped, English words lightly stemmed, tokens under 2 characters dropped unless numeric.
 * Documents and queries go through the same function, so stems need only be consistent.
 * @param {string} text
 * @returns {string[]}
 */
export function tokenize(text) {
  let s = String(text ?? '').toLowerCase();
  const wide = NON_ASCII.test(s);
  if (wide) s = s.normalize('NFD').replace(ACCENTS, '').normalize('NFC');
  /** @type {string[]} */
  const out = [];
  for (const w of s.match(wide ? WORD : ASCII_WORDS) ?? []) {
    if (wide && CJK.test(w)) {
      const parts = w.split(CJK_RUNS);
      for (let i = 0; i < parts.length; i++) {
        const p = parts[i];
        if (i % 2 === 0) {
          if (p) addWord(out, p);
          continue;
        }
        if (p.length === 1) {
          out.push(p);
          continue;
        }
        for (let j = 0; j + 1 < p.length; j++) out.push(p.slice(j, j + 2));
      }
      continue;
    }
    addWord(out, w);
  }
  return out;
}

// Words repeat a lot (Zipf), so their terms are memoized rather than stemmed again.
/** @type {Map<string, string>} */
const termOfWord = new Map();
const TERM_CACHE_SIZE = 50_000;

/** @param {string[]} out @param {string} w */
function addWord(out, w) {
  let term = termOfWord.get(w);
  if (term === undefined) {
    term = wordToTerm(w);
    if (termOfWord.size >= TERM_CACHE_SIZE) termOfWord.clear();
    termOfWord.set(w, term);
  }
  if (term) out.push(term);
}

/** @param {string} w @returns {string} the index term, '' for none */
function wordToTerm(w) {
  if (w.includes("'") || w.includes('’')) w = w.replace(/['’]s$/, '').replace(/['’]/g, '');
  if (w.length < 2 && !NUMBER.test(w)) return '';
  if (STOP_WORDS.has(w)) return '';
  return w.length > 2 && ASCII_WORD.test(w) ? stem(w) : w;
}

/** Porter's y is a vowel after a consonant. @param {string} w @param {number} i @returns {boolean} */
function isConsonant(w, i) {
  const c = w.charCodeAt(i);
  if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) return false;
  if (c === 121) return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** Porter's m: the number of vowel→consonant transitions. @param {string} w */
function measure(w) {
  let m = 0;
  for (let i = 1; i < w.length; i++) if (isConsonant(w, i) && !isConsonant(w, i - 1)) m++;
  return m;
}

/** @param {string} w */
function hasVowel(w) {
  for (let i = 0; i < w.length; i++) if (!isConsonant(w, i)) return true;
  return false;
}

/** consonant-vowel-consonant ending, last not w/x/y ("hop", not "box"). @param {string} w */
function endsCVC(w) {
  const n = w.length;
  if (n < 3 || !isConsonant(w, n - 1) || isConsonant(w, n - 2) || !isConsonant(w, n - 3)) return false;
  const c = w[n - 1];
  return c !== 'w' && c !== 'x' && c !== 'y';
}

/**
 * Light English stemmer: Porter's steps 1a (plurals), 1b (-ed/-ing) and 5a (final e), plus
 * -ies/-ied → y and -ly. 'running'→'run', 'notes'/'noted'→'note', 'studies'→'study'.
 * @param {string} w lowercase ASCII letters
 */
function stem(w) {
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies') || w.endsWith('ied')) w = w.length > 4 ? w.slice(0, -3) + 'y' : w.slice(0, -1);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);

  if (w.length >= 6 && w.endsWith('ly') && !/[ipb]ly$/.test(w)) w = w.slice(0, -2);

  if (w.endsWith('eed')) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else {
    const cut = w.endsWith('ed') ? 2 : w.endsWith('ing') ? 3 : 0;
    if (cut && hasVowel(w.slice(0, -cut))) {
      w = w.slice(0, -cut);
      const n = w.length;
      if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
      else if (n > 1 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1) && !'lsz'.includes(w[n - 1])) w = w.slice(0, -1);
      else if (measure(w) === 1 && endsCVC(w)) w += 'e';
    }
  }

  if (w.length > 2 && w.endsWith('e')) {
    const base = w.slice(0, -1);
    const m = measure(base);
    if (m > 1 || (m === 1 && !endsCVC(base))) w = base;
  }
  return w;
}
