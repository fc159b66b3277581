/** @import { Conversation } from '../../agent/conversation/conversation.js' */
/** @import { RouteHint } from '../../agent/types.d.ts' */
/** @import { ChatMeter } from '../../ui/types.d.ts' */
/** @import { SettingsStore } from '../settings.js' */
/** @import { ChatDeps, RouteTarget } from './types.d.ts' */
import { estimateTextTokens, tokenFamily } from '../../providers/tokens.js';
import { catalogEntry } from '../../providers/catalog.js';

/**
 * The chat's cost and token meter: this conversation's spend, the workspace's today and this
 * month, a cost limit near, providers paused; and the model menu (the routing hints, the one the
 * conversation is pinned to). Drawn on every transcript update.
 * @param {Conversation} conv
 * @param {{settings: SettingsStore, workspaceId: string, spendStatus?: ChatDeps['spendStatus'],
 *   routes: () => Partial<Record<RouteHint, RouteTarget>>}} deps
 * @returns {ChatMeter}
 */
export function chatMeter(conv, { settings, workspaceId, spendStatus, routes }) {
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
  const pinned = conv.meta.route ?? null;
  const routed = pinned ? hints[pinned] : undefined;
  return {
    spend: conv.spend,
    family: tokenFamily(routed?.provider ?? s?.provider ?? '', routed?.model ?? s?.model ?? ''),
    routes: menu,
    route: pinned,
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
