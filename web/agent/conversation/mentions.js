/**
 * "@name" in the composer: which named agent a message addresses, and what "@" completes to.
 * Kept apart from the definitions (and their YAML and zod schemas) because the chat needs it on
 * the start-up path.
 */

export const AGENT_NAME_RE = /^[a-z][a-z0-9_-]{0,31}$/;
/** The workspace's own agent: plain messages go to it; it cannot be renamed or deleted. */
export const DEFAULT_AGENT_NAME = 'clawser';

/**
 * "@name rest of the message": the agent addressed and the message for it, or null.
 * @param {string} text
 */
export function parseMention(text) {
  const m = /^@([a-z][a-z0-9_-]{0,31})(?:\s+([\s\S]*))?$/.exec(text.trim());
  return m ? { name: m[1], message: (m[2] ?? '').trim() } : null;
}

/**
 * The agents an "@" prefix at the start of the composer completes to.
 * @template {{name: string}} A
 * @param {string} text the composer's text @param {A[]} agents
 * @returns {A[]}
 */
export function mentionCompletions(text, agents) {
  const m = /^@([a-z0-9_-]*)$/i.exec(text);
  if (!m) return [];
  const prefix = m[1].toLowerCase();
  return agents.filter((a) => a.name.startsWith(prefix)).slice(0, 10);
}
