/** @import { ChannelsControl } from './types.d.ts' */
/** @import { Channel, Traffic } from '../channels/channel.js' */
import { h, clear, guard, formatTime } from './dom.js';
import { emptyState, panelLayout } from './panel-layout.js';
import { confirmDialog } from './dialogs.js';

/** How many traffic entries a channel shows (newest first). */
const SHOWN_TRAFFIC = 10;

/** @param {Traffic} t */
const trafficText = (t) =>
  `${t.direction === 'in' ? 'In' : 'Out'} · ${t.status}${t.sender ? ` · ${t.sender}` : ''}${t.note ? ` — ${t.note}` : ''}`;

/**
 * The Channels panel: the workspace's agent reachable from outside — a Telegram bot (its token
 * kept sealed; only the listed Telegram user ids are answered), an outgoing webhook (a job's
 * result POSTed to an address) or an incoming webhook (POSTs to the user's own wsh
 * server). Add one (its agent, autonomy and tools), test it, pause or
 * resume it, remove it, and see its status and recent traffic.
 * @param {{channels: ChannelsControl, agents: string[], toolNames: string[], machines: string[], onError: (err: unknown) => void,
 *   onBack: () => void}} props
 *   agents: the named agents a channel can be answered by (besides the workspace's own); toolNames: the workspace's tools; machines: the
 *   Remote panel's machines (an incoming webhook's wsh server)
 */
export function ChannelsPanel(props) {
  const { channels } = props;
  const guarded = guard(props.onError);
  const status = h('p', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const list = h('ul', { class: 'channel-list', 'aria-label': 'Channels' });
  /** Test results by channel id, kept when the list is drawn again. @type {Map<string, string>} */
  const tested = new Map();
  /** Incoming webhooks' addresses the user asked to see, kept when the list is drawn again. @type {Map<string, string>} */
  const shown = new Map();

  const kind = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { id: 'channel-kind', name: 'kind' },
      h('option', { value: 'telegram' }, 'Telegram bot'),
      h('option', { value: 'webhook' }, 'Outgoing webhook'),
      h('option', { value: 'hook' }, 'Incoming webhook'),
    )
  );
  const machine = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { id: 'channel-machine', name: 'machine' },
      ...(props.machines.length ? props.machines.map((m) => h('option', { value: m }, m)) : [h('option', { value: '' }, 'No machine yet')]),
    )
  );
  const machineField = h(
    'div',
    { class: 'field', hidden: true },
    h('label', { for: 'channel-machine' }, 'Machine whose wsh server takes the webhooks (Remote panel)'),
    machine,
  );
  const name = /** @type {HTMLInputElement} */ (
    h('input', { id: 'channel-name', name: 'name', required: true, maxLength: 40, autocomplete: 'off', placeholder: 'phone' })
  );
  const secretLabel = h('label', { for: 'channel-secret' }, 'Bot token (from @BotFather)');
  const secret = /** @type {HTMLInputElement} */ (
    h('input', { id: 'channel-secret', name: 'secret', type: 'password', required: true, autocomplete: 'off', spellcheck: false })
  );
  const senders = /** @type {HTMLInputElement} */ (
    h('input', { id: 'channel-senders', name: 'senders', autocomplete: 'off', placeholder: '123456789, 987654321', inputMode: 'numeric' })
  );
  const sendersField = h(
    'div',
    { class: 'field' },
    h('label', { for: 'channel-senders' }, 'Telegram user ids to answer (everyone else is ignored and logged)'),
    senders,
  );
  const agent = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { id: 'channel-agent', name: 'agent' },
      h('option', { value: '' }, 'The workspace’s agent'),
      ...props.agents.map((a) => h('option', { value: a }, `@${a}`)),
    )
  );
  const autonomy = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { id: 'channel-autonomy', name: 'autonomy' },
      h('option', { value: 'readonly' }, 'Read only'),
      h('option', { value: 'supervised' }, 'Supervised'),
      h('option', { value: 'full' }, 'Full'),
    )
  );
  const perMinute = /** @type {HTMLInputElement} */ (
    h('input', { id: 'channel-per-minute', name: 'perMinute', type: 'number', min: 1, max: 60, value: '5', inputMode: 'numeric' })
  );
  const perHour = /** @type {HTMLInputElement} */ (
    h('input', { id: 'channel-per-hour', name: 'perHour', type: 'number', min: 1, max: 1000, value: '60', inputMode: 'numeric' })
  );
  const tools = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { id: 'channel-tools', name: 'tools', multiple: true, size: 6 },
      ...props.toolNames.map((t) => h('option', { value: t }, t)),
    )
  );
  const secretField = h('div', { class: 'field' }, secretLabel, secret);
  const syncKind = () => {
    const telegram = kind.value === 'telegram';
    const incoming = kind.value === 'hook';
    secretLabel.textContent = telegram ? 'Bot token (from @BotFather)' : 'Webhook address (https://…; kept sealed)';
    secret.type = telegram ? 'password' : 'url';
    secret.required = !incoming;
    secretField.hidden = incoming;
    machineField.hidden = !incoming;
    sendersField.hidden = !telegram;
  };
  kind.addEventListener('change', syncKind);

  const form = h(
    'form',
    {
      class: 'card channel-add',
      'aria-labelledby': 'channel-form-title',
      on: {
        submit: (e) => {
          e.preventDefault();
          void guarded(async () => {
            const incoming = kind.value === 'hook';
            const channel = await channels.add({
              kind: incoming ? 'hook' : kind.value === 'webhook' ? 'webhook' : 'telegram',
              name: name.value,
              secret: incoming ? '' : secret.value,
              ...(incoming ? { machine: machine.value } : {}),
              allowedSenders: senders.value
                .split(/[\s,]+/)
                .map((s) => s.trim())
                .filter(Boolean),
              agent: agent.value,
              autonomy: /** @type {'readonly' | 'supervised' | 'full'} */ (autonomy.value),
              tools: [...tools.selectedOptions].map((o) => o.value),
              rate: { perMinute: Number(perMinute.value), perHour: Number(perHour.value) },
            });
            name.value = '';
            secret.value = '';
            senders.value = '';
            status.textContent =
              channel.kind === 'hook'
                ? `Added “${channel.name}”. Its address (Show address) is what the sender posts to.`
                : `Added “${channel.name}”. Test it to check the ${channel.kind === 'telegram' ? 'token' : 'address'}.`;
          });
        },
      },
    },
    h('h3', { id: 'channel-form-title' }, 'Add a channel'),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'channel-kind' }, 'Kind'),
      kind,
      h('p', { class: 'small muted' }, 'An incoming webhook takes POSTs at one of your machines’ wsh server (Remote panel).'),
    ),
    h('div', { class: 'field' }, h('label', { for: 'channel-name' }, 'Name'), name),
    secretField,
    machineField,
    sendersField,
    h('div', { class: 'field' }, h('label', { for: 'channel-agent' }, 'Answered by'), agent),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'channel-autonomy' }, 'Autonomy'),
      autonomy,
      h('p', { class: 'small muted' }, 'Never more than the workspace’s own; supervised asks you before changes.'),
    ),
    h('div', { class: 'field' }, h('label', { for: 'channel-tools' }, 'Tools it may use (none chosen: it only talks)'), tools),
    h(
      'fieldset',
      { class: 'row' },
      h('legend', null, 'Rate limit (over it, messages are ignored and logged)'),
      h('label', { for: 'channel-per-minute' }, 'A minute'),
      perMinute,
      h('label', { for: 'channel-per-hour' }, 'An hour'),
      perHour,
    ),
    h('div', { class: 'row' }, h('button', { type: 'submit' }, 'Add channel')),
  );

  /** @param {Channel} c */
  const row = (c) => {
    const s = channels.status(c.id);
    const result = h('p', { class: 'small channel-test', role: 'status' }, tested.get(c.id) ?? '');
    const test = () =>
      guarded(async () => {
        result.textContent = 'Testing…';
        try {
          tested.set(c.id, await channels.test(c.id));
        } catch (err) {
          tested.set(c.id, `Not working: ${/** @type {Error} */ (err).message}`);
        }
        // A test may change the channel (its label), so the list may have been drawn anew meanwhile; the focus stays on Test.
        draw();
        [...list.querySelectorAll('button')].find((b) => b.getAttribute('aria-label') === `Test ${c.name}`)?.focus();
      });
    const pause = () => guarded(() => channels.setPaused(c.id, !c.paused));
    const remove = () =>
      guarded(async () => {
        const yes = await confirmDialog({
          title: `Remove “${c.name}”?`,
          message: 'Its sealed token or address, its place in Telegram’s messages and its traffic are deleted from this browser.',
          confirmLabel: 'Remove',
        });
        if (!yes) return;
        await channels.remove(c.id);
        status.textContent = `Removed “${c.name}”.`;
      });
    const traffic = channels.traffic(c.id).slice(-SHOWN_TRAFFIC).reverse();
    const who =
      c.kind === 'telegram'
        ? `Telegram ${c.label || 'bot'} · answers ${c.allowedSenders.join(', ')}`
        : c.kind === 'hook'
          ? `Incoming webhook through the machine “${c.machine}”`
          : `Webhook to ${c.label}`;
    const address = /** @type {HTMLInputElement} */ (
      h('input', {
        readOnly: true,
        id: `channel-address-${c.id}`,
        'aria-label': `Address of ${c.name}`,
        hidden: !shown.has(c.id),
        value: shown.get(c.id) ?? '',
      })
    );
    const showAddress = () =>
      guarded(async () => {
        address.value = await channels.address(c.id);
        shown.set(c.id, address.value);
        address.hidden = false;
        address.focus();
        address.select();
      });
    return h(
      'li',
      { class: 'channel', 'aria-label': c.name },
      h('h3', null, c.name),
      h(
        'p',
        { class: 'small' },
        `${who} · answered by ${c.agent ? `@${c.agent}` : 'the workspace’s agent'}, ${c.autonomy}, ` +
          `${c.tools.length ? `tools: ${c.tools.join(', ')}` : 'no tools'}` +
          (c.kind === 'webhook' ? '' : ` · at most ${c.rate.perMinute} a minute, ${c.rate.perHour} an hour`),
      ),
      c.kind !== 'webhook' || c.paused
        ? h(
            'p',
            {
              class: `small channel-status${s?.state === 'offline' || s?.state === 'stopped' ? ' bad' : ''}`,
              'data-state': s?.state ?? '',
            },
            s ? `Status: ${s.message}` : 'Status: not running in this tab.',
          )
        : '',
      result,
      c.kind === 'hook' ? address : '',
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', 'aria-label': `Test ${c.name}`, on: { click: test } }, 'Test'),
        c.kind === 'hook'
          ? h(
              'button',
              { type: 'button', class: 'secondary', 'aria-label': `Show the address of ${c.name}`, on: { click: showAddress } },
              'Show address',
            )
          : '',
        h(
          'button',
          { type: 'button', class: 'secondary', 'aria-label': `${c.paused ? 'Resume' : 'Pause'} ${c.name}`, on: { click: pause } },
          c.paused ? 'Resume' : 'Pause',
        ),
        h('button', { type: 'button', class: 'danger', 'aria-label': `Remove ${c.name}`, on: { click: remove } }, 'Remove'),
      ),
      h('h4', null, 'Recent traffic'),
      traffic.length
        ? h(
            'ul',
            { class: 'channel-traffic small', 'aria-label': `Recent traffic of ${c.name}` },
            ...traffic.map((t) =>
              h('li', null, h('time', { dateTime: new Date(t.at).toISOString() }, formatTime(t.at)), ' ', trafficText(t)),
            ),
          )
        : emptyState('Nothing yet.', { tag: 'p' }),
    );
  };

  const draw = () => {
    const all = channels.list();
    clear(list).append(
      ...(all.length ? all.map(row) : [emptyState('No channels yet. Add a Telegram bot or a webhook above.', { tag: 'li' })]),
    );
  };
  const stop = channels.onChange(draw);
  draw();

  const root = panelLayout(
    { name: 'channels', title: 'Channels', onBack: props.onBack },
    h(
      'p',
      { class: 'small' },
      'Reach this workspace’s agent from outside Clawser. A Telegram bot you make with @BotFather is polled from this page ',
      '(no server of ours; it works while Clawser is open); only the Telegram user ids you list are answered, and each message ',
      'counts as outside content: the agent asks you before it changes memories, goals, jobs or skills. An outgoing webhook ',
      'receives a scheduled job’s result (choose it in the Schedule panel); an incoming one takes POSTs at your own wsh ',
      'server (Remote panel) and hands each body to the agent as outside content.',
    ),
    form,
    status,
    list,
  );
  return { root, destroy: stop };
}
