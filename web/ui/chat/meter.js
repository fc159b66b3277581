/** @import { RouteHint } from '../../agent/types.d.ts' */
/** @import { ChatMeter, ChatViewController } from '../types.d.ts' */
import { h } from '../dom.js';

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
/** "1 token", "12 tokens", "1.2K tokens". @param {number} n */
const tokensText = (n) => `${compact.format(n)} token${n === 1 ? '' : 's'}`;

/** "$0.0042", "$1.23". @param {number} cents */
const usd = (cents) =>
  cents === 0
    ? '$0'
    : cents < 0.01
      ? '< $0.0001'
      : cents < 1
        ? `$${(cents / 100).toFixed(4)}`
        : cents < 100
          ? `$${(cents / 100).toFixed(3)}`
          : `$${(cents / 100).toFixed(2)}`;

/**
 * The chat's bar and the notices under it: the workspace's model (a menu of its provider's models
 * and its fallbacks, saved in its settings), the cost and token meter (the context size with the
 * draft, this conversation, the workspace today and this month), the conversation's model (the
 * workspace's, or one of its routing hints: shown when any is set), a cost limit near, and the
 * providers the circuit breaker skips for now.
 * @param {{controller: Pick<ChatViewController, 'estimateTokens' | 'pinRoute' | 'setModel'>, draft: () => string}} props
 *   draft: the composer's text
 */
export function MeterBar({ controller, draft }) {
  const meter = h('p', { class: 'chat-meter small muted', role: 'group', 'aria-label': 'Cost and tokens' });
  const routeSelect = /** @type {HTMLSelectElement} */ (h('select', { id: 'chat-route' }));
  const routeModel = h('span', { id: 'chat-route-model', class: 'muted' });
  routeSelect.setAttribute('aria-describedby', routeModel.id);
  const routeRow = h(
    'div',
    { class: 'chat-route row small', hidden: true },
    h('label', { for: routeSelect.id }, 'Model for this conversation'),
    routeSelect,
    routeModel,
  );
  // The workspace's model, among its provider's models and its fallbacks (saved in its settings).
  const modelSelect = /** @type {HTMLSelectElement} */ (
    h('select', { id: 'chat-model', title: "The workspace's model (saved in Settings)" })
  );
  const modelNote = h('span', { class: 'small bad', role: 'status' });
  const modelRow = h(
    'div',
    { class: 'chat-model row small', hidden: true },
    h('label', { for: modelSelect.id }, 'Model'),
    modelSelect,
    modelNote,
  );
  /** The menu drawn now (its choices' ids and labels), to draw again only when it changed. */
  let modelMenu = '';
  modelSelect.addEventListener('change', () => {
    const id = modelSelect.value;
    modelNote.textContent = '';
    controller.setModel(id).catch((/** @type {Error} */ err) => {
      modelNote.textContent = `Not changed: ${err.message}`;
      modelMenu = ''; // drawn again with the model still saved
      draw();
    });
  });
  routeSelect.addEventListener('change', () => {
    controller.pinRoute(/** @type {RouteHint | null} */ (routeSelect.value || null)).catch(() => {});
  });
  const costWarning = h('p', { class: 'notice warn chat-cost-warning', role: 'status', hidden: true });
  // Providers the circuit breaker skips for now (after repeated failures).
  const pausedNotice = h('p', { class: 'notice warn chat-paused', role: 'status', hidden: true });
  let pausedTimer = 0;
  /** The meter of the conversation on screen. @type {ChatMeter | null | undefined} */
  let current;

  const draw = () => {
    const m = current;
    if (!m) {
      meter.hidden = true;
      modelRow.hidden = true;
      return;
    }
    const models = m.models;
    modelRow.hidden = !models;
    if (models) {
      const key = JSON.stringify(models.choices);
      if (key !== modelMenu) {
        modelMenu = key;
        /** @type {Map<string, HTMLElement>} */
        const groups = new Map();
        for (const c of models.choices) {
          let group = groups.get(c.group);
          if (!group) groups.set(c.group, (group = h('optgroup', { label: c.group })));
          group.append(h('option', { value: c.id }, c.label));
        }
        modelSelect.replaceChildren(...groups.values());
      }
      modelSelect.value = models.current;
    }
    const tokens = controller.estimateTokens(draft());
    const context = m.spend.contextTokens + tokens;
    const parts = [];
    if (context > 0) parts.push(`≈ ${tokensText(context)} in context${tokens ? ' with your message' : ''}`);
    if (m.spend.calls > 0) {
      const known =
        m.spend.unpricedCalls === m.spend.calls
          ? 'cost unknown'
          : `${m.spend.partial ? 'at least ' : ''}${usd(m.spend.costCents)}${m.spend.unpricedCalls ? ' + unknown' : ''}`;
      parts.push(`this conversation ${known} (${tokensText(m.spend.inputTokens + m.spend.outputTokens)})`);
    }
    if (m.todayCents) parts.push(`today ${usd(m.todayCents)}`);
    if (m.monthCents && m.monthCents !== m.todayCents) parts.push(`this month ${usd(m.monthCents)}`);
    meter.textContent = parts.join(' · ');
    meter.hidden = parts.length === 0;
    costWarning.textContent = m.warning ? `${m.warning} Limits are in Settings.` : '';
    costWarning.hidden = !m.warning;
    const paused = (m.paused ?? []).filter((p) => p.retryAt > Date.now());
    pausedNotice.textContent = paused
      .map(
        (p) =>
          `${p.provider} is paused after ${p.failures} failed requests in a row; it is tried again ` +
          `at ${new Date(p.retryAt).toLocaleTimeString()} (the next provider of your fallback chain answers meanwhile).`,
      )
      .join(' ');
    pausedNotice.hidden = paused.length === 0;
    // The notice goes when the pause ends, even if nothing else redraws the chat.
    clearTimeout(pausedTimer);
    // timer id (number in browsers)
    if (paused.length) pausedTimer = /** @type {any} */ (setTimeout(draw, Math.min(...paused.map((p) => p.retryAt)) - Date.now() + 100));
    const routes = m.routes ?? [];
    routeRow.hidden = routes.length === 0;
    const wanted = [['', 'Workspace default'], ...routes.map((r) => [r.hint, r.label])];
    if (
      routeSelect.options.length !== wanted.length ||
      wanted.some(([v, l], i) => routeSelect.options[i].value !== v || routeSelect.options[i].text !== l)
    ) {
      routeSelect.replaceChildren(...wanted.map(([v, l]) => h('option', { value: v }, l)));
    }
    routeSelect.value = m.route && routes.some((r) => r.hint === m.route) ? m.route : '';
    routeModel.textContent = routes.find((r) => r.hint === routeSelect.value)?.model ?? '';
  };

  return {
    /** The bar above the transcript: the model menu and the meter. */
    bar: h('div', { class: 'chat-bar' }, modelRow, routeRow, meter),
    /** Under the bar: a cost limit near, providers paused. */
    notices: [costWarning, pausedNotice],
    /** Shows the meter of the conversation on screen. @param {ChatMeter | null | undefined} m */
    show(m) {
      current = m;
      draw();
    },
    /** Draws again with the draft as it is now. */
    draftChanged: draw,
    destroy: () => clearTimeout(pausedTimer),
  };
}
