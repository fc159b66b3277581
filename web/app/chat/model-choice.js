/**
 * Which model answers a turn: the workspace's, the routing hint its conversation is pinned to,
 * the named agent a message "@name …" addresses (its own model or hint), and for a message with
 * images on a model without them, the Vision hint. Also what the composer takes as images and
 * which agents "@…" completes to, by the same choice, and the chat header's model menu.
 */
/** @import { RouteHint } from '../../agent/types.d.ts' */
/** @import { ScopedAgent } from '../../agent/runtime/agent-definitions.js' */
/** @import { ProviderConfig } from '../../providers/types.d.ts' */
/** @import { ImageLimits } from '../../ui/types.d.ts' */
/** @import { SettingsStore, WorkspaceSettings } from '../settings.js' */
/** @import { ModelMenuChoice } from '../../ui/types.d.ts' */
/** @import { AgentDirectory, RouteTarget } from './types.d.ts' */
import { providerLabel } from '../settings.js';
import { catalogEntry } from '../../providers/catalog.js';
import { imageLimitsFor } from '../../providers/images.js';
import { modelFacts } from '../../providers/model-facts.js';
import { tokenFamily } from '../../providers/tokens.js';
import { parseMention, mentionCompletions, DEFAULT_AGENT_NAME } from '../../agent/conversation/mentions.js';
import { ProviderError } from '../../providers/errors.js';
import { ChatError } from './errors.js';

/**
 * What the choice reads: the workspace's settings and keys, its routing hints, its named agents.
 * @typedef {{settings: SettingsStore, workspaceId: string, routes: () => Partial<Record<RouteHint, RouteTarget>>,
 *   agents?: () => Promise<AgentDirectory>}} ModelSources
 */

/**
 * The provider configuration of a routing hint, with its saved key; null when the hint is not set.
 * @param {RouteHint} hint @param {ModelSources} sources
 * @returns {Promise<ProviderConfig | null>}
 */
export async function routeConfig(hint, { settings, workspaceId, routes }) {
  const r = routes()[hint];
  if (!r || !catalogEntry(r.provider)) return null;
  return {
    provider: r.provider,
    model: r.model || undefined,
    baseUrl: r.baseUrl || undefined,
    apiKey: await settings.apiKey(workspaceId, r.provider).catch(() => undefined),
    ...(r.relay ? { relay: r.relay } : {}),
  };
}

/**
 * The model of a turn, and the named agent answering it (null: the workspace's agent).
 * leftOut: what the named agent's list of tools names that it does not reach now, in words
 * (shown as the turn starts). Throws a ChatError for an "@name" no agent has, a ProviderError
 * when no provider is chosen.
 * @param {ModelSources} sources
 * @param {{message: string, pinned: () => RouteHint | null | undefined, agent?: string, needsVision?: boolean}} turn
 *   pinned: the routing hint of the conversation the turn runs in (read once the settings are);
 *   agent: who answers when the message names none
 * @returns {Promise<{config: ProviderConfig, profile: ScopedAgent | null, leftOut: string[]}>}
 */
export async function chooseModel(sources, { message, pinned, agent, needsVision }) {
  const { settings, workspaceId } = sources;
  /** @type {ScopedAgent | null} */
  let profile = null;
  /** @type {string[]} */
  let leftOut = [];
  let config = await settings.providerConfig(workspaceId);
  // A conversation pinned to a routing hint uses that hint's model.
  const hint = pinned();
  if (hint) config = (await routeConfig(hint, sources)) ?? config;
  // A named agent's own model or hint wins over the conversation's pin: it is who was asked.
  const mention = parseMention(message);
  const named = mention?.name ?? agent;
  if (named && named !== DEFAULT_AGENT_NAME && sources.agents) {
    const store = await sources.agents();
    profile = await store.get(named);
    // Continuing a reply of an agent that no longer exists (or of a sub-agent copy): the workspace's agent goes on.
    if (!profile && !mention) profile = null;
    else if (!profile)
      throw new ChatError(
        'client',
        `There is no agent named @${named}. Create it in the Agents panel, or remove the @ to ask the workspace's agent.`,
      );
    // Its MCP tools are the ones its list was saved for: another server's of the same name is left out, and the user told.
    if (profile && store.forUse) {
      ({ agent: profile, leftOut } = await store.forUse(profile));
      if (leftOut.length) leftOut = [...leftOut, `Edit @${profile.name} in the Agents panel to choose its tools again.`];
    }
    const own = profile?.model;
    // Its base URL is the one saved for that provider (a definition carries none: an imported
    // one could otherwise send the saved key elsewhere).
    if (own)
      config = {
        provider: own.provider,
        model: own.model || undefined,
        baseUrl: config?.provider === own.provider ? config.baseUrl : undefined,
        apiKey: await settings.apiKey(workspaceId, own.provider).catch(() => undefined),
        // The same server as the workspace's, reached the same way.
        ...(config?.provider === own.provider && config.relay ? { relay: config.relay } : {}),
      };
    else if (profile?.route) config = (await routeConfig(profile.route, sources)) ?? config;
  }
  if (needsVision && config && !imageLimitsFor(catalogEntry(config.provider), config.model).accepts)
    config = (await routeConfig('vision', sources)) ?? config;
  if (!config) throw new ProviderError('client', 'Choose a provider in Settings first.');
  return { config, profile, leftOut };
}

/**
 * What the model of a conversation pinned to `pinned` (or the workspace's) takes as images:
 * whether it accepts them at all, the longest edge and the size an image is fitted to.
 * @param {Pick<ModelSources, 'settings' | 'workspaceId' | 'routes'>} sources @param {RouteHint | null | undefined} pinned
 * @returns {ImageLimits}
 */
export function imageLimits({ settings, workspaceId, routes }, pinned) {
  const s = settings.load?.(workspaceId) ?? null;
  // One read of the settings (a parse of stored JSON) for the whole decision.
  const hints = routes();
  const routed = pinned ? hints[pinned] : undefined;
  const own = routed
    ? imageLimitsFor(catalogEntry(routed.provider), routed.model)
    : imageLimitsFor(s ? catalogEntry(s.provider) : undefined, s?.model ?? '');
  // A model without images hands a message with images to the Vision hint, when one is set.
  const vision = hints.vision;
  if (!own.accepts && vision) {
    const v = imageLimitsFor(catalogEntry(vision.provider), vision.model);
    if (v.accepts) return v;
  }
  return own;
}

/** What an attached document may take of a model whose context is not known, in tokens (2/3 of the default compaction point). */
export const UNKNOWN_CONTEXT_DOCUMENT_TOKENS = 8_000;

/**
 * How much of the model's context one attached document's text may take, in tokens, and the
 * tokenizer family it is counted in: a quarter of the model's context where its facts say
 * (at most 100,000), else UNKNOWN_CONTEXT_DOCUMENT_TOKENS.
 * @param {Pick<ModelSources, 'settings' | 'workspaceId' | 'routes'>} sources @param {RouteHint | null | undefined} pinned
 */
export function documentBudget({ settings, workspaceId, routes }, pinned) {
  const s = settings.load?.(workspaceId) ?? null;
  const routed = pinned ? routes()[pinned] : undefined;
  const provider = routed?.provider ?? s?.provider ?? '';
  const model = routed?.model ?? s?.model ?? '';
  const context = model ? modelFacts(model)?.context : undefined;
  return {
    tokens: context ? Math.min(100_000, Math.floor(context / 4)) : UNKNOWN_CONTEXT_DOCUMENT_TOKENS,
    family: tokenFamily(provider, model),
  };
}

/**
 * The chat header's model menu: the workspace provider's models (the one chosen, those of the
 * provider that answered in the conversation — a model typed in Settings stays to go back to —,
 * the catalog's), then its fallbacks; `current` is the workspace's. Each choice's id is what
 * `switchModel` takes. Null without a provider.
 * @param {WorkspaceSettings | null} s @param {RouteTarget[]} fallbacks
 * @param {{provider: string, model: string}[]} [answered] who answered the conversation's replies
 * @returns {{choices: ModelMenuChoice[], current: string, label: string} | null} label: the workspace's provider and model, in words
 */
export function modelMenu(s, fallbacks, answered = []) {
  const entry = s ? catalogEntry(s.provider) : undefined;
  if (!s || !entry) return null;
  const used = answered.filter((a) => a.provider === s.provider).map((a) => a.model);
  /** @type {ModelMenuChoice[]} */
  const choices = [...new Set([s.model, ...used, ...entry.models].filter(Boolean))].map((m) => ({
    id: `model:${m}`,
    label: m,
    group: entry.label,
  }));
  if (!s.model) choices.unshift({ id: 'model:', label: `${entry.label}'s default model`, group: entry.label });
  fallbacks.forEach((f, i) => {
    const e = catalogEntry(f.provider);
    if (e) choices.push({ id: `fallback:${i}`, label: `${e.label} · ${f.model || 'its default model'}`, group: 'Fallbacks' });
  });
  return { choices, current: `model:${s.model}`, label: providerLabel(s) };
}

/**
 * Makes a choice of the model menu the workspace's model, through the workspace's settings (as
 * the Settings dialog saves them; its key stays). A fallback chosen swaps places with the model
 * it replaces, so the chain loses nothing and choosing that one swaps back.
 * @param {string} id @param {{settings: SettingsStore, workspaceId: string, fallbacks: () => RouteTarget[],
 *   saveFallbacks: (fallbacks: RouteTarget[]) => void}} deps
 */
export async function switchModel(id, { settings, workspaceId, fallbacks, saveFallbacks }) {
  const s = settings.load(workspaceId);
  if (!s) throw new ChatError('client', 'Choose a provider in Settings first.');
  const own = /^model:(.*)$/s.exec(id);
  if (own) return settings.save(workspaceId, { ...s, model: own[1] });
  const i = Number(/^fallback:(\d+)$/.exec(id)?.[1] ?? -1);
  const chain = fallbacks();
  const chosen = chain[i];
  if (!chosen || !catalogEntry(chosen.provider)) throw new ChatError('not_found', 'That model is no longer among the fallbacks.');
  saveFallbacks(chain.map((f, j) => (j === i ? { provider: s.provider, model: s.model, baseUrl: s.baseUrl } : f)));
  await settings.save(workspaceId, { provider: chosen.provider, model: chosen.model, baseUrl: chosen.baseUrl });
}

/**
 * The agents the composer's "@…" completes to (its whole text is "@" and a name's start).
 * @param {string} text @param {(() => Promise<AgentDirectory>) | undefined} agents
 * @returns {Promise<{name: string, description: string}[]>}
 */
export async function agentCompletions(text, agents) {
  if (!agents || !/^@[a-z0-9_-]*$/i.test(text)) return [];
  const all = await (await agents()).list();
  return mentionCompletions(
    text,
    all.map((a) => ({ name: a.name, description: a.description })),
  );
}
