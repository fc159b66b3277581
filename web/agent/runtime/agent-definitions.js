import { z } from 'zod';
import { parseDocument, isMap } from 'yaml';
import { IdentitySourceSchema, parseIdentity } from './identity.js';
import { splitFrontmatter } from '../../skills/format.js';
import { AGENT_NAME_RE, DEFAULT_AGENT_NAME } from '../conversation/mentions.js';
import { catalogEntry } from '../../providers/catalog.js';

/**
 * Named agents: a definition says who the agent is (system prompt or identity), which model
 * answers (a provider and model, or a routing hint), which tools it may use (a subset), its
 * autonomy and its step limit. Definitions live per workspace or globally (web/agent/runtime/agent-store.js);
 * a message "@name …" goes to that agent. Pure: schemas, the Markdown form, and what a
 * definition makes of a workspace's settings — never more than the workspace allows.
 */

export { AGENT_NAME_RE, DEFAULT_AGENT_NAME, parseMention, mentionCompletions } from '../conversation/mentions.js';
export const AUTONOMY_LEVELS = /** @type {const} */ (['readonly', 'supervised', 'full']);
const ROUTES = /** @type {const} */ (['fast', 'smart', 'code', 'vision']);

export const AgentDefinitionSchema = z
  .strictObject({
    name: z.string().regex(AGENT_NAME_RE, {
      error: 'a name of 1–32 lower-case letters, digits, - or _, starting with a letter (it is what you type after @)',
    }),
    description: z.string().trim().max(500, { error: 'at most 500 characters' }).default(''),
    /** Replaces the default system prompt when set (an identity adds to it). */
    systemPrompt: z.string().max(20_000, { error: 'at most 20,000 characters' }).default(''),
    identity: IdentitySourceSchema.optional(),
    /**
     * A provider and model of its own, or a routing hint of the workspace. Never an address: the
     * provider's key and base URL are the ones saved in Settings (an imported definition must not
     * send a saved key elsewhere).
     */
    model: z
      .strictObject({
        provider: z
          .string()
          .min(1)
          .max(64)
          .refine((id) => !!catalogEntry(id) && !catalogEntry(id)?.capabilities.test, {
            error: 'a provider this version knows (see Settings)',
          }),
        model: z.string().max(300).default(''),
      })
      .optional(),
    route: z.enum(ROUTES).optional(),
    /** The tools it may use (names); absent: all the workspace's. */
    tools: z
      .array(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, { error: 'a tool name' }))
      .max(200)
      .optional(),
    /** At most the workspace's level; absent: the workspace's. */
    autonomy: z.enum(AUTONOMY_LEVELS).optional(),
    maxIterations: z.number().int().min(1).max(100).optional(),
  })
  .superRefine((d, ctx) => {
    if (d.model && d.route) ctx.addIssue({ code: 'custom', path: ['route'], message: 'choose a model or a routing hint, not both' });
    if (d.identity) {
      const id = parseIdentity(d.identity);
      if (!id.ok) for (const e of id.errors) ctx.addIssue({ code: 'custom', path: ['identity'], message: e });
    }
  });
/** @typedef {z.infer<typeof AgentDefinitionSchema>} AgentDefinition */
/** @typedef {AgentDefinition & {scope: 'workspace' | 'global' | 'builtin'}} ScopedAgent */

/**
 * Validates a definition, with one message per problem naming its field.
 * @param {unknown} value
 * @returns {{ok: true, agent: AgentDefinition} | {ok: false, errors: string[]}}
 */
export function validateAgent(value) {
  const r = AgentDefinitionSchema.safeParse(value);
  return r.success
    ? { ok: true, agent: r.data }
    : { ok: false, errors: r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'agent'}: ${i.message}`) };
}

/**
 * The default agent as the Agents panel lists it (its identity is the workspace's).
 * @param {import('./identity.js').IdentitySource} [identity]
 * @returns {ScopedAgent}
 */
export function defaultAgent(identity) {
  return {
    name: DEFAULT_AGENT_NAME,
    description: "The workspace's agent: answers every message not addressed to another agent, with the workspace's settings.",
    systemPrompt: '',
    scope: 'builtin',
    ...(identity ? { identity } : {}),
  };
}

/** A definition as JSON text (for export). @param {AgentDefinition} a */
export function agentToJson(a) {
  const { scope: _scope, ...rest } = /** @type {ScopedAgent} */ (a);
  return JSON.stringify({ clawserAgent: 1, ...rest }, null, 2);
}

/** A definition as Markdown: YAML frontmatter, the system prompt as the body. @param {AgentDefinition} a */
export function agentToMarkdown(a) {
  const { scope: _scope, systemPrompt, ...rest } = /** @type {ScopedAgent} */ (a);
  const yaml = Object.entries(rest)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join('\n');
  return `---\n${yaml}\n---\n${systemPrompt ? `${systemPrompt}\n` : ''}`;
}

/**
 * Reads an exported definition: JSON, or Markdown with frontmatter (the body is the system prompt).
 * @param {string} text
 * @returns {{ok: true, agent: AgentDefinition} | {ok: false, errors: string[]}}
 */
export function parseAgentFile(text) {
  const t = text.replace(/^\uFEFF/, '');
  if (/^\s*\{/.test(t)) {
    /** @type {unknown} */
    let json;
    try {
      json = JSON.parse(t);
    } catch (err) {
      return { ok: false, errors: [`Not valid JSON: ${/** @type {Error} */ (err).message}`] };
    }
    if (!json || typeof json !== 'object') return { ok: false, errors: ['Not an agent definition.'] };
    const { clawserAgent: _v, ...rest } = /** @type {Record<string, unknown>} */ (json);
    return validateAgent(rest);
  }
  const split = splitFrontmatter(t);
  if ('error' in split) return { ok: false, errors: [split.error.replace('SKILL.md', 'The file')] };
  const doc = parseDocument(split.yaml, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) return { ok: false, errors: [`The frontmatter is not valid YAML: ${doc.errors[0].message.split('\n')[0]}`] };
  if (!isMap(doc.contents)) return { ok: false, errors: ['The frontmatter must be a list of fields (name: …).'] };
  const fields = /** @type {Record<string, unknown>} */ (doc.toJS());
  const body = split.body.trim();
  return validateAgent({ ...fields, ...(body ? { systemPrompt: body } : {}) });
}

/** @param {typeof AUTONOMY_LEVELS[number]} a @param {typeof AUTONOMY_LEVELS[number] | undefined} b the lower of two levels */
export function lowerAutonomy(a, b) {
  if (!b) return a;
  return AUTONOMY_LEVELS.indexOf(b) < AUTONOMY_LEVELS.indexOf(a) ? b : a;
}

/**
 * The tools an agent may use among those offered: the intersection (an agent never gains a tool).
 * @param {string[]} offered @param {string[] | undefined} wanted
 */
export function allowedTools(offered, wanted) {
  if (!wanted) return [...offered];
  const set = new Set(wanted);
  return offered.filter((t) => set.has(t));
}

/**
 * The system prompt an agent runs with: its own prompt (or the default) followed by its identity.
 * @param {{systemPrompt?: string, identity?: import('./identity.js').IdentitySource}} a @param {string} fallback the default prompt
 */
export function agentSystemPrompt(a, fallback) {
  const base = a.systemPrompt?.trim() || fallback;
  const id = a.identity ? parseIdentity(a.identity) : null;
  return id?.ok ? `${base}\n\n# Your identity\n${id.prompt}` : base;
}
