/**
 * Fuzzy matching for the command palette: the query's characters in order, anywhere in the
 * text, ranked so that what people type first wins — a prefix of the text, then a word's prefix,
 * then letters starting words ("ns" → "New Schedule"), then each typed word starting a word ("con
 * hist" → "Export conversation history"), then the letters inside a word, then letters close together.
 * Pure logic.
 */

/**
 * A score for `text` against `query` (higher is better), or null when it does not match.
 * @param {string} query @param {string} text
 */
export function fuzzyScore(query, text) {
  const q = query.toLowerCase().replace(/\s+/g, ' ').trim();
  if (!q) return 0;
  const t = text.toLowerCase();
  const boundary = (/** @type {number} */ i) => i === 0 || /[\s\-_/.:·]/.test(t[i - 1]);
  const at = t.indexOf(q);
  if (at === 0) return 3000 - t.length / 100;
  // A contiguous match at a word start ("sched" in "Open Schedule").
  for (let i = at; i !== -1; i = t.indexOf(q, i + 1)) if (boundary(i)) return 2000 - i - t.length / 100;
  // Every letter starting a word, in order ("nc": "New conversation").
  const letters = q.replace(/ /g, '');
  let wi = 0;
  for (let i = 0; i < t.length && wi < letters.length; i++) if (boundary(i) && t[i] === letters[wi]) wi++;
  if (wi === letters.length) return 1500 - t.length / 100;
  // Each word typed starts a word of the text, in order ("con hist": "Export conversation history").
  if (q.includes(' ') && wordPrefixes(q.split(' '), t, boundary)) return 1400 - t.length / 100;
  if (at !== -1) return 1000 - at - t.length / 100;
  let score = 0;
  let ti = 0;
  let last = -1;
  for (const ch of q.replace(/ /g, '')) {
    const found = t.indexOf(ch, ti);
    if (found === -1) return null;
    score += boundary(found) ? 10 : 1;
    if (last !== -1 && found === last + 1) score += 5;
    else if (last !== -1) score -= Math.min(5, found - last - 1) / 2;
    last = found;
    ti = found + 1;
  }
  return Math.min(900, score) - t.length / 100;
}

/**
 * Whether each of `words` begins a word of `t` (lower case), in order, each after the last.
 * @param {string[]} words @param {string} t @param {(i: number) => boolean} boundary
 */
function wordPrefixes(words, t, boundary) {
  let from = 0;
  for (const w of words) {
    let i = t.indexOf(w, from);
    while (i !== -1 && !boundary(i)) i = t.indexOf(w, i + 1);
    if (i === -1) return false;
    from = i + w.length;
  }
  return true;
}

/**
 * The items matching `query`, best first (ties keep their order). `text` gives what is
 * searched (the label, plus words the item is also known by).
 * @template T
 * @param {string} query @param {readonly T[]} items @param {(item: T) => string} text
 * @param {number} [limit]
 * @returns {T[]}
 */
export function fuzzyRank(query, items, text, limit = 50) {
  const scored = [];
  for (let i = 0; i < items.length; i++) {
    const s = fuzzyScore(query, text(items[i]));
    if (s !== null) scored.push({ item: items[i], s, i });
  }
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  return scored.slice(0, limit).map((x) => x.item);
}
