/** @import { ClawserEvent, ConversationMeta } from '../agent/types.d.ts' */
import { h, clear, formatTime, guard } from './dom.js';
import { emptyState, panelLayout } from './panel-layout.js';
import { icon } from './icon.js';

/** Event types by what they are about, for the filters. */
export const EVENT_GROUPS = /** @type {const} */ ([
  ['Messages', ['user_message', 'agent_message']],
  ['Tools', ['tool_call', 'tool_result', 'tool_result_truncated', 'cache_hit']],
  [
    'Safety and autonomy',
    ['safety_input_flag', 'safety_tool_blocked', 'safety_output_blocked', 'safety_output_redacted', 'autonomy_blocked', 'self_repair'],
  ],
  [
    'Memory, goals, jobs',
    [
      'memory_stored',
      'memory_forgotten',
      'memory_recalled',
      'goal_added',
      'goal_updated',
      'scheduler_added',
      'scheduler_fired',
      'scheduler_removed',
      'channel_message',
      'channel_ignored',
    ],
  ],
  ['Skills and agents', ['skill_activated', 'skill_installed', 'agent_delegated']],
  ['Provider', ['provider_attempt', 'error', 'provider_error', 'stream_error']],
  ['History', ['context_compacted', 'branch', 'turn_undone', 'turn_redone']],
]);

/** A one-line summary of an event. @param {ClawserEvent} e */
export function summarize(e) {
  // Destructured together, so each case narrows `d` to its type's data.
  const { type, data: d } = e;
  const clip = (/** @type {unknown} */ s) =>
    String(s ?? '')
      .replace(/\s+/g, ' ')
      .slice(0, 140);
  switch (type) {
    case 'user_message':
      return clip(d.text);
    case 'agent_message':
      return d.text ? clip(d.text) : `calls ${(d.toolCalls ?? []).map((/** @type {{name: string}} */ c) => c.name).join(', ')}`;
    case 'tool_call':
      return `${clip(d.name)} ${clip(JSON.stringify(d.arguments ?? {}))}`;
    case 'tool_result':
      return `${d.ok ? '✓' : '✗'} ${clip(d.name)} ${clip(d.result)}`;
    case 'provider_error':
    case 'stream_error':
    case 'error':
      return clip(d.message);
    case 'provider_attempt':
      return (
        `${clip(d.provider)} ${clip(d.model)}: ${clip(d.outcome)}${d.attempt > 1 ? ` (try ${d.attempt})` : ''}, ` +
        `${Math.round(Number(d.latencyMs ?? 0))} ms${d.message ? ` — ${clip(d.message)}` : ''}`
      );
    case 'branch':
      return d.head ? `continues after event ${String(d.head).slice(0, 8)}` : 'starts the conversation anew';
    case 'memory_stored':
    case 'memory_forgotten':
      return clip(d.key);
    case 'skill_activated':
      return `${clip(d.name)}${d.by === 'user' ? ' (by the user)' : ''}`;
    case 'skill_installed':
      return `${clip(d.name)}${d.url ? ` from ${clip(d.url)}` : ''}`;
    case 'goal_added':
      return clip(d.description);
    case 'goal_updated':
      return `${clip(d.id)} → ${clip(d.status)}`;
    case 'scheduler_added':
    case 'scheduler_removed':
    case 'scheduler_fired':
      return clip(d.name);
    case 'channel_message':
      return `${clip(d.channel)}: from ${clip(d.sender.name)} (${clip(d.sender.id)})`;
    case 'channel_ignored':
      return `${clip(d.channel)}: ignored ${d.sender ? `${clip(d.sender.name)} (${clip(d.sender.id)})` : 'a message'}: ${clip(d.reason)}`;
    case 'agent_delegated':
      return `@${clip(d.agent)} ${clip(d.status)}: ${clip(d.title)}`;
    case 'turn_undone':
      return `undid a turn: ${clip(d.summary)}`;
    case 'turn_redone':
      return `redid a turn: ${clip(d.summary)}`;
    case 'self_repair':
      return `${d.action === 'stopped' ? 'stopped the run' : 'warned the model'} (${clip(d.reason)}): ${clip(d.message)}`;
    default:
      return clip(JSON.stringify(d));
  }
}

/**
 * The Events panel: a conversation's event log as a timeline — type filters, text search, each
 * event's data (secrets redacted again on screen), fork at an event, a step-by-step replay,
 * export and import.
 * @param {{conversations: ConversationMeta[], conversationId: string | null, load: (conversationId: string) => Promise<ClawserEvent[]>,
 *   redact: (text: string) => string, onFork: (conversationId: string, eventId: string) => Promise<void>, onExport: (conversationId:
 *   string) => void, onImport: () => void,
 *   onOpenConversation: (conversationId: string) => void, onError: (err: unknown) => void, onBack: () => void}} props
 */
export function EventsPanel(props) {
  const guarded = guard(props.onError);
  const status = h('p', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const picker = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { id: 'events-conversation', 'aria-label': 'Conversation' },
      ...props.conversations.map((c) => h('option', { value: c.id, selected: c.id === props.conversationId }, c.title)),
    )
  );
  const query = /** @type {HTMLInputElement} */ (
    h('input', { type: 'search', 'aria-label': 'Search events', placeholder: 'Search the events…', autocomplete: 'off' })
  );
  /** @type {Map<string, HTMLInputElement>} */
  const groupBoxes = new Map();
  const filters = h(
    'fieldset',
    { class: 'event-filters row' },
    h('legend', null, 'Show'),
    ...EVENT_GROUPS.map(([label], i) => {
      const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', id: `ev-group-${i}`, checked: true }));
      groupBoxes.set(label, box);
      box.addEventListener('change', draw);
      return h('span', { class: 'row' }, box, h('label', { for: `ev-group-${i}` }, label));
    }),
  );
  const list = h('ol', { class: 'event-list', 'aria-label': 'Events' });
  // Replay: the log as it grew, one event at a time.
  const position = /** @type {HTMLInputElement} */ (
    h('input', { type: 'range', min: '1', max: '1', value: '1', 'aria-label': 'Replay position' })
  );
  const positionText = h('span', { class: 'small', 'aria-live': 'polite' });
  const step = (/** @type {number} */ d) => {
    replayAt = Math.max(1, Math.min(events.length, replayAt + d));
    draw();
  };
  const replayBar = h(
    'div',
    { class: 'row replay-bar', hidden: true, role: 'group', 'aria-label': 'Replay' },
    h(
      'button',
      { type: 'button', class: 'secondary', on: { click: () => step(-Infinity) } },
      icon('skip-back'),
      h('span', { class: 'sr-only' }, 'First event'),
    ),
    h(
      'button',
      { type: 'button', class: 'secondary', on: { click: () => step(-1) } },
      icon('chevron-left'),
      h('span', { class: 'sr-only' }, 'Previous event'),
    ),
    h(
      'button',
      { type: 'button', class: 'secondary', on: { click: () => step(1) } },
      icon('chevron-right'),
      h('span', { class: 'sr-only' }, 'Next event'),
    ),
    h(
      'button',
      { type: 'button', class: 'secondary', on: { click: () => step(Infinity) } },
      icon('skip-forward'),
      h('span', { class: 'sr-only' }, 'Last event'),
    ),
    position,
    positionText,
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        on: {
          click: () => {
            replayAt = 0;
            replayBar.hidden = true;
            replayButton.hidden = false;
            draw();
          },
        },
      },
      'End replay',
    ),
  );
  const replayButton = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      on: {
        click: () => {
          replayAt = 1;
          replayBar.hidden = false;
          replayButton.hidden = true;
          draw();
        },
      },
    },
    'Replay step by step',
  );
  position.addEventListener('input', () => {
    replayAt = Number(position.value);
    draw();
  });

  /** @type {ClawserEvent[]} */
  let events = [];
  /** 0: not replaying; otherwise how many events are shown. */
  let replayAt = 0;

  /** Each event's lower-cased text, made once (long logs are searched on every keystroke). @type {WeakMap<ClawserEvent, string>} */
  const searchText = new WeakMap();
  /** @param {ClawserEvent} e */
  const textOf = (e) => {
    let t = searchText.get(e);
    if (t === undefined) searchText.set(e, (t = `${e.type} ${JSON.stringify(e.data)}`.toLowerCase()));
    return t;
  };

  function draw() {
    const shownTypes = new Set(EVENT_GROUPS.filter(([label]) => groupBoxes.get(label)?.checked).flatMap(([, types]) => types));
    const grouped = new Set(EVENT_GROUPS.flatMap(([, types]) => types));
    const q = query.value.trim().toLowerCase();
    const upTo = replayAt ? events.slice(0, replayAt) : events;
    const shown = upTo.filter((e) => (shownTypes.has(e.type) || !grouped.has(e.type)) && (!q || textOf(e).includes(q)));
    clear(list);
    for (const e of shown) {
      const current = replayAt > 0 && e === events[replayAt - 1];
      // The data (pretty-printed, redacted) is made when the event is opened, not for every row.
      const data = h('pre', { class: 'tool-output' });
      const fill = () => {
        if (!data.textContent) data.textContent = props.redact(JSON.stringify(e.data, null, 2));
      };
      if (current) fill();
      const details = h(
        'details',
        { open: current },
        h(
          'summary',
          null,
          h('time', { class: 'small muted', dateTime: new Date(e.timestamp).toISOString() }, formatTime(e.timestamp)),
          h('span', { class: `ev-type ev-${e.type}` }, e.type),
          h('span', { class: 'small muted' }, e.source),
          h('span', { class: 'ev-summary' }, props.redact(summarize(e))),
        ),
        data,
        e.type === 'branch'
          ? null
          : h(
              'div',
              { class: 'row' },
              h(
                'button',
                {
                  type: 'button',
                  class: 'secondary small-btn',
                  'aria-label': `Fork here: a new conversation at this ${e.type.replace('_', ' ')} event`,
                  on: { click: () => guarded(() => props.onFork(picker.value, e.id)) },
                },
                'Fork here',
              ),
            ),
      );
      // On the summary's click (mouse or keyboard), before the details open: the data is there when it shows.
      details.querySelector('summary')?.addEventListener('click', fill);
      const row = h(
        'li',
        { class: `event-row${current ? ' current' : ''}`, 'data-event-id': e.id, 'aria-current': current ? 'step' : undefined },
        details,
      );
      list.append(row);
      if (current) requestAnimationFrame(() => row.scrollIntoView({ block: 'nearest' }));
    }
    // From the first event to the last: "Event 1 of 2" sits at the start, not half-way.
    position.max = String(Math.max(1, events.length));
    position.value = String(Math.max(1, replayAt));
    position.setAttribute('aria-valuetext', replayAt ? `Event ${replayAt} of ${events.length}` : '');
    positionText.textContent = replayAt ? `Event ${replayAt} of ${events.length}` : '';
    status.textContent = `${shown.length} of ${events.length} events${q ? ` matching “${query.value.trim()}”` : ''}.`;
  }

  const load = () =>
    guarded(async () => {
      if (!picker.value) {
        events = [];
        status.textContent = '';
        clear(list).append(emptyState('No conversation yet. Each turn of a conversation is listed here, step by step.', { tag: 'li' }));
        return;
      }
      events = await props.load(picker.value);
      replayAt = replayAt ? 1 : 0;
      draw();
    });
  picker.addEventListener('change', load);
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let typing;
  query.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(draw, 150);
  });
  load();

  const root = panelLayout(
    { name: 'events', title: 'Events', onBack: props.onBack, actions: [picker] },
    h(
      'div',
      { class: 'row' },
      query,
      replayButton,
      h(
        'button',
        { type: 'button', class: 'secondary', on: { click: () => picker.value && props.onOpenConversation(picker.value) } },
        'Open in chat',
      ),
      h('button', { type: 'button', class: 'secondary', on: { click: () => picker.value && props.onExport(picker.value) } }, 'Export…'),
      h('button', { type: 'button', class: 'secondary', on: { click: props.onImport } }, 'Import…'),
    ),
    filters,
    replayBar,
    status,
    list,
  );
  return { root };
}
