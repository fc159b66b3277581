/** @import { McpExposureControl } from './types.d.ts' */
import { h, clear, guard, formatTime } from './dom.js';
import { emptyState } from './panel-layout.js';

/**
 * The Remote panel's "Expose this workspace over MCP": which machine's wsh server serves it,
 * which tools outside MCP clients see (checkboxes), tokens (made here and shown once; revoke),
 * and start / stop. Calls from outside ask in this tab as the agent's do.
 * @param {{exposure: McpExposureControl, machines: () => string[], onError: (err: unknown) => void}} props
 */
export function McpExposeSection(props) {
  const { exposure } = props;
  const guarded = guard(props.onError);
  const machineSelect = /** @type {HTMLSelectElement} */ (
    h('select', {
      id: 'expose-machine',
      on: { change: () => exposure.setMachine(machineSelect.value || null) },
    })
  );
  const toolBoxes = h('div', { class: 'expose-tools' });
  const tokenList = h('ul', { class: 'expose-tokens', 'aria-label': 'MCP tokens' });
  const labelInput = /** @type {HTMLInputElement} */ (
    h('input', { id: 'expose-token-label', maxLength: 64, placeholder: 'my coding agent', autocomplete: 'off' })
  );
  const shown = /** @type {HTMLInputElement} */ (
    h('input', { readOnly: true, id: 'expose-new-token', class: 'remote-key', 'aria-label': 'New MCP token (shown once)', value: '' })
  );
  const shownBox = h(
    'div',
    { class: 'expose-new', hidden: true },
    h(
      'p',
      { class: 'small' },
      'Copy it now: it is not shown again (only its hash is kept). Outside clients send it as ',
      h('code', null, 'Authorization: Bearer TOKEN'),
      '.',
    ),
    h(
      'div',
      { class: 'row' },
      shown,
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          on: { click: () => guarded(() => navigator.clipboard.writeText(shown.value)) },
        },
        'Copy token',
      ),
    ),
  );
  const status = h('p', { class: 'small expose-status', role: 'status', 'aria-live': 'polite' });
  const startButton = h('button', { type: 'button', on: { click: () => guarded(() => exposure.start()) } }, 'Start exposing');
  const stopButton = h('button', { type: 'button', class: 'danger', on: { click: () => guarded(() => exposure.stop()) } }, 'Stop exposing');

  const draw = () => {
    const s = exposure.settings();
    const names = props.machines();
    clear(machineSelect).append(
      h('option', { value: '' }, names.length ? '— choose a machine —' : 'No machines: add one above'),
      ...names.map((n) => h('option', { value: n, selected: n === s.machine }, n)),
    );
    const chosen = new Set(s.tools);
    clear(toolBoxes).append(
      ...exposure.availableTools().map((t) => {
        const box = /** @type {HTMLInputElement} */ (
          h('input', {
            type: 'checkbox',
            id: `expose-tool-${t.name}`,
            checked: chosen.has(t.name),
            on: {
              change: () => {
                const now = new Set(exposure.settings().tools);
                if (box.checked) now.add(t.name);
                else now.delete(t.name);
                exposure.setTools([...now]);
              },
            },
          })
        );
        return h(
          'label',
          { class: 'expose-tool', for: box.id, title: t.description },
          box,
          ` ${t.name} `,
          h('span', { class: 'small' }, `(${t.permission})`),
        );
      }),
    );
    clear(tokenList).append(
      ...(s.tokens.length
        ? s.tokens.map((t) =>
            h(
              'li',
              { 'aria-label': `Token ${t.label}` },
              `${t.label} · made ${formatTime(t.createdAt)} `,
              h(
                'button',
                {
                  type: 'button',
                  class: 'secondary',
                  'aria-label': `Revoke token ${t.label}`,
                  on: { click: () => guarded(() => exposure.revokeToken(t.id)) },
                },
                'Revoke',
              ),
            ),
          )
        : [emptyState('No tokens yet. Create one below; an outside client sends it to reach this workspace.', { tag: 'li' })]),
    );
    const st = exposure.status();
    status.textContent = st.message;
    const on = st.state === 'on' || st.state === 'starting';
    startButton.hidden = on;
    stopButton.hidden = !on;
  };
  const stop = exposure.onChange(draw);
  draw();

  const root = h(
    'section',
    { class: 'expose-mcp', 'aria-labelledby': 'expose-title' },
    h('h3', { id: 'expose-title' }, 'Expose this workspace over MCP'),
    h(
      'p',
      { class: 'small' },
      'Outside MCP clients (a coding agent in a terminal) can use the tools you tick, through the wsh server of the machine you ',
      'choose (its /mcp address), with a token made here. Each call goes through this workspace’s policies, autonomy and ',
      'approvals — asked in this tab — and its arguments count as untrusted. It lasts while this tab keeps it on.',
    ),
    h('label', { for: 'expose-machine' }, 'Machine whose wsh server serves MCP'),
    machineSelect,
    h('fieldset', null, h('legend', null, 'Tools outside clients may use'), toolBoxes),
    h('h4', null, 'Tokens'),
    tokenList,
    h(
      'form',
      {
        class: 'row',
        'aria-label': 'Create a token',
        on: {
          submit: (e) => {
            e.preventDefault();
            void guarded(async () => {
              shown.value = await exposure.createToken(labelInput.value);
              labelInput.value = '';
              shownBox.hidden = false;
            });
          },
        },
      },
      h('label', { for: 'expose-token-label' }, 'Token label'),
      labelInput,
      h('button', { type: 'submit' }, 'Create token'),
    ),
    shownBox,
    status,
    h('div', { class: 'row' }, startButton, stopButton),
  );
  return { root, destroy: stop, redraw: draw };
}
