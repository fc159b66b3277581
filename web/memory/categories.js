// The categories of a memory entry: one list for the store and the memory tools. A module of its
// own so the tools (loaded at start-up) do not load the store and its index with it.
export const CATEGORIES = /** @type {const} */ (['core', 'learned', 'user', 'context']);
