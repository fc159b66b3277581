/**
 * A small typed event emitter: the one way app state tells the UI something changed.
 * @template {Record<string, unknown>} Events
 */
export class EventBus {
  /** @type {Map<keyof Events, Set<(payload: any) => void>>} */ // payload type is tied to the key by on()/emit()
  #handlers = new Map();

  /**
   * @template {keyof Events} K
   * @param {K} type
   * @param {(payload: Events[K]) => void} fn
   * @returns {() => void} unsubscribe
   */
  on(type, fn) {
    let set = this.#handlers.get(type);
    if (!set) this.#handlers.set(type, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  /**
   * @template {keyof Events} K
   * @param {K} type
   * @param {Events[K]} payload
   */
  emit(type, payload) {
    for (const fn of this.#handlers.get(type) ?? []) {
      try {
        fn(payload);
      } catch (err) {
        console.error(`Event handler for "${String(type)}" failed:`, err);
      }
    }
  }
}
