/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
import { z } from 'zod';
import { CATEGORIES } from '../memory/categories.js';

const Category = z.enum(CATEGORIES);

/** @param {ToolContext} ctx */
function memoryOf(ctx) {
  if (!ctx.memory) throw new Error('Memory is not available in this workspace.');
  return ctx.memory;
}

/** @type {ToolDefinition} */
export const memoryStore = {
  name: 'memory_store',
  description:
    'Remember something for later conversations. A memory with the same key is replaced (newer wins). Categories: core (facts ' +
    'about the user or project that always matter), user (preferences), learned (things found out), context (current situation).',
  permission: 'internal',
  standing: true,
  schema: z.object({
    key: z.string().min(1).max(200).describe('Short unique name, e.g. "preferred language"'),
    content: z.string().min(1).max(20_000),
    category: Category.optional(),
  }),
  async run({ key, content, category }, /** @type {ToolContext} */ ctx) {
    const entry = await memoryOf(ctx).store({ key, content, category, source: 'agent' });
    return {
      ok: true,
      output: `Remembered "${entry.key}" (${entry.category}).`,
      events: [{ type: 'memory_stored', data: { id: entry.id, key: entry.key, category: entry.category } }],
    };
  },
  preview({ key, content, category }) {
    return (
      `Remember “${key}”${category ? ` (${category})` : ''} for later conversations: ` +
      `${content.length > 600 ? `${content.slice(0, 600)}…` : content}`
    );
  },
};

/** @type {ToolDefinition} */
export const memoryRecall = {
  name: 'memory_recall',
  description: 'Search long-term memory (keywords, and meaning when semantic search is on). Returns the best matches with their keys.',
  permission: 'read',
  readOnly: true,
  schema: z.object({
    query: z.string().min(1).max(2000),
    limit: z.number().int().min(1).max(50).optional(),
    category: Category.optional(),
  }),
  async run({ query, limit = 8, category }, /** @type {ToolContext} */ ctx) {
    const hits = await memoryOf(ctx).recall(query, { limit, categories: category ? [category] : undefined });
    if (!hits.length) return { ok: true, output: 'No matching memories.' };
    return { ok: true, output: hits.map((h) => `- [${h.category}] ${h.key}: ${h.content}`).join('\n') };
  },
};

/** @type {ToolDefinition} */
export const memoryForget = {
  name: 'memory_forget',
  description: 'Forget a memory, by its key (or id).',
  permission: 'write',
  schema: z.object({ key: z.string().min(1).max(200) }),
  async run({ key }, /** @type {ToolContext} */ ctx) {
    const done = await memoryOf(ctx).forget(key);
    return done
      ? { ok: true, output: `Forgot "${key}".`, events: [{ type: 'memory_forgotten', data: { key } }] }
      : { ok: false, output: `No memory with the key "${key}".` };
  },
};

export const MEMORY_TOOLS = [memoryStore, memoryRecall, memoryForget];

/**
 * `clawser memory recall|add|forget` call these tools; `memory list`, `pin`, `unpin` and `export`
 * are the command's own (web/shell/commands/clawser.js).
 * @type {ToolFamily}
 */
export const family = {
  id: 'memory',
  tools: MEMORY_TOOLS,
  cli: [
    { verb: 'memory recall', tool: 'memory_recall', args: ['query...'], usage: '<query>' },
    {
      verb: 'memory add',
      tool: 'memory_store',
      args: ['key', 'content...'],
      options: { category: ['--category', '-c'] },
      usage: `<key> <text> [--category ${CATEGORIES.join('|')}]`,
      usageError: '<key> <text>',
    },
    { verb: 'memory forget', tool: 'memory_forget', args: ['key'], usage: '<key>' },
  ],
};
