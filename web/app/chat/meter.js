/** @import { Conversation } from '../../agent/conversation/conversation.js' */
/** @import { RouteHint } from '../../agent/types.d.ts' */
/** @import { ChatMeter } from '../../ui/types.d.ts' */
/** @import { SettingsStore } from '../settings.js' */
/** @import { ChatDeps, RouteTarget } from './types.d.ts' */
import { estimateTextTokens, tokenFamily } from '../../providers/tokens.js';
import { catalogEntry } from '../../providers/catalog.js';
import { modelMenu } from './model-choice.js';

/**
 * The chat's cost and token meter: this conversation's spend, the workspace's today and this
 * month, a cost limit near, providers paused; the model menus (the workspace's model among its
 * provider's and its fallbacks; the routing hints, the one the conversation is pinned to). Drawn on every transcript update.
 * @param {Conversation} conv
 * @param {{settings: SettingsStore, workspaceId: string, spendStatus?: ChatDeps['spendStatus'],
 *   routes: () => Partial<Record<RouteHint, RouteTarget>>, fallbacks?: () => RouteTarget[]}} deps
 * @returns {ChatMeter}
 */
export function chatMeter(conv, { settings, workspaceId, spendStatus, routes, fallbacks }) {
  const s = settings.load?.(workspaceId) ?? null;
  let status = null;
  try {
    status = spendStatus?.() ?? null;
  } catch {
    status = null; // the meter never breaks the chat
  }
  // Drawn on every transcript update: the settings are read once here.
  const hints = routes();
  const menu = Object.entries(hints)
    .filter(([, r]) => r && catalogEntry(r.provider))
    .map(([hint, r]) => ({
      hint: /** @type {RouteHint} */ (hint),
      label: `${hint[0].toUpperCase()}${hint.slice(1)}`,
      model: `${catalogEntry(r?.provider ?? '')?.label ?? r?.provider}${r?.model ? ` · ${r.model}` : ''}`,
    }));
  // The models that answered here (newest first): one the user typed in Settings stays in the menu after switching away.
  /** @type {{provider: string, model: string}[]} */
  const answered = [];
  for (let i = conv.events.length - 1; i >= 0 && answered.length < 20; i--) {
    const e = conv.events[i];
    if (e.type === 'agent_message' && typeof e.data.provider === 'string' && typeof e.data.model === 'string')
      answered.push({ provider: e.data.provider, model: e.data.model });
  }
  const models = modelMenu(s, fallbacks?.() ?? [], answered);
  const pinned = conv.meta.route ?? null;
  const routed = pinned ? hints[pinned] : undefined;
  return {
    spend: conv.spend,
    family: tokenFamily(routed?.provider ?? s?.provider ?? '', routed?.model ?? s?.model ?? ''),
    routes: menu,
    route: pinned,
    models,
    ...(status ?? {}),
  };
}

/**
 * The composer's pre-send estimate: a draft's size in tokens for the meter's tokenizer family.
 * @param {string} text @param {ChatMeter | null | undefined} meter
 */
export function draftTokens(text, meter) {
  return estimateTextTokens(text, meter?.family ?? 'default');
}
