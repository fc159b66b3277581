/**
 * A service made the first time it is asked for (its module loaded then), one per key: the same
 * promise to every caller, and one that failed (a module that did not load) is made again next
 * time. `peek(key)` gives it only if it was made (stopping what never started loads nothing).
 * @template T
 * @param {(key: string) => Promise<T>} make
 * @returns {((key: string) => Promise<T>) & {peek: (key: string) => Promise<T> | undefined}}
 */
export function madeOnFirstUse(make) {
  /** @type {Map<string, Promise<T>>} */
  const made = new Map();
  /** @param {string} key */
  const get = (key) => {
    let promise = made.get(key);
    if (!promise) {
      const p = make(key);
      made.set(key, p);
      p.catch(() => {
        if (made.get(key) === p) made.delete(key);
      });
      promise = p;
    }
    return promise;
  };
  return Object.assign(get, { peek: (/** @type {string} */ key) => made.get(key) });
}
