/** @import { BuiltToolsControl, BuiltToolRow } from './types.d.ts' */
import { h } from './dom.js';
import { icon } from './icon.js';
import { emptyState } from './panel-layout.js';
import { confirmDialog } from './dialogs.js';

/** A row's state in words. @type {Record<BuiltToolRow['state'], string>} */
const STATE_WORDS = {
  registered: 'Registered',
  pending: 'Waiting for your approval',
  problem: 'Not registered',
  off: 'Off (its skill is turned off)',
};

/**
 * The Tools panel's built tools: each one the agent or the user defined, with what it may
 * reach, its versions (an earlier one can be made current again), Approve for a definition that
 * waits for it (imported, or changed on disk), and Remove (with its skill and every version);
 * then a form to define one.
 * @param {{builder: BuiltToolsControl, onChanged: () => void}} props onChanged: after a change (the panel is drawn anew)
 */
export function BuiltToolsSection(props) {
  const status = h('p', { role: 'status', class: 'small' });
  /** @param {() => Promise<unknown>} fn @param {string} done */
  const act = async (fn, done) => {
    try {
      await fn();
      status.textContent = done;
      props.onChanged();
    } catch (err) {
      status.textContent = /** @type {Error} */ (err).message;
    }
  };
  const rows = props.builder.rows();
  const list = h(
    'ul',
    { class: 'rule-list built-tools', 'aria-label': 'Built tools' },
    rows.length
      ? rows.map((row) => BuiltToolItem(row, props.builder, act))
      : [emptyState('No built tools yet. Define one below, or ask the agent to (tool_define).', { tag: 'li' })],
  );
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'built-tools-title' },
    h('h3', { id: 'built-tools-title' }, icon('wrench'), ' Built tools'),
    h(
      'p',
      { class: 'small muted' },
      'Tools defined here or by the agent. Each runs its JavaScript in a sandbox that reaches only what it declares, is kept as a ' +
        'workspace skill with every version, and is registered only once you approve that exact definition. It can never take a ' +
        "built-in or an MCP server's tool's name.",
    ),
    list,
    status,
    DefineForm(props.builder, act),
  );
}

/**
 * @param {BuiltToolRow} row @param {BuiltToolsControl} builder
 * @param {(fn: () => Promise<unknown>, done: string) => Promise<void>} act
 */
function BuiltToolItem(row, builder, act) {
  const earlier = row.versions.filter((v) => v.version !== row.version);
  const versionPick = h(
    'select',
    { 'aria-label': `Earlier version of ${row.name}` },
    earlier.map((v) =>
      h(
        'option',
        { value: String(v.version) },
        `v${v.version} (${new Date(v.createdAt).toLocaleString()}, by ${v.by === 'agent' ? 'the agent' : 'you'})`,
      ),
    ),
  );
  return h(
    'li',
    { class: 'built-tool', 'data-tool': row.name },
    h(
      'div',
      { class: 'row spread' },
      h('span', null, h('code', null, row.name), row.version ? ` v${row.version}` : '', ` — ${STATE_WORDS[row.state]}`),
      h(
        'span',
        { class: 'row' },
        row.state === 'pending'
          ? h(
              'button',
              {
                type: 'button',
                'aria-label': `Approve ${row.name}`,
                on: { click: () => act(() => builder.approve(row.name), `${row.name} approved.`) },
              },
              'Approve',
            )
          : null,
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            'aria-label': `Remove ${row.name}`,
            on: {
              click: async () => {
                const yes = await confirmDialog({
                  title: `Remove the tool ${row.name}?`,
                  message: 'It is unregistered, and its skill is deleted with every version and every choice made for it.',
                  confirmLabel: 'Remove',
                });
                if (yes) await act(() => builder.remove(row.name), `${row.name} removed.`);
              },
            },
          },
          'Remove',
        ),
      ),
    ),
    row.description ? h('p', { class: 'small' }, row.description) : null,
    row.reaches ? h('p', { class: 'small muted' }, `May reach: ${row.reaches}. Permission: ${row.permission}.`) : null,
    row.problem ? h('p', { class: 'small field-error', role: 'note' }, row.problem) : null,
    row.code ? h('details', null, h('summary', null, 'Code'), h('pre', { class: 'approval-args' }, row.code)) : null,
    earlier.length
      ? h(
          'div',
          { class: 'row wrap' },
          versionPick,
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              'aria-label': `Use this version of ${row.name}`,
              on: {
                click: () => {
                  const v = Number(/** @type {HTMLSelectElement} */ (versionPick).value);
                  return act(() => builder.restore(row.name, v), `${row.name}: version ${v} is current again.`);
                },
              },
            },
            'Use this version',
          ),
        )
      : null,
  );
}

/**
 * The form that defines a tool (the user's own: saving it is the approval).
 * @param {BuiltToolsControl} builder @param {(fn: () => Promise<unknown>, done: string) => Promise<void>} act
 */
function DefineForm(builder, act) {
  /** @param {string} id @param {string} label @param {Node} control */
  const field = (id, label, control) => h('div', { class: 'field' }, h('label', { for: id }, label), control);
  const name = h('input', { id: 'built-name', type: 'text', required: true, placeholder: 'word_count', autocomplete: 'off' });
  const description = h('textarea', { id: 'built-description', rows: 2, required: true, placeholder: 'Counts the words of a text.' });
  const parameters = h('textarea', { id: 'built-parameters', rows: 4, class: 'mono' });
  /** @type {HTMLTextAreaElement} */ (parameters).value =
    '{"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}';
  const hosts = h('input', { id: 'built-fetch', type: 'text', placeholder: 'api.example.com, example.org', autocomplete: 'off' });
  const read = h('input', { id: 'built-read', type: 'checkbox' });
  const write = h('input', { id: 'built-write', type: 'checkbox' });
  const code = h('textarea', { id: 'built-code', rows: 6, class: 'mono', required: true });
  /** @type {HTMLTextAreaElement} */ (code).value = 'return args.text.split(/\\s+/).filter(Boolean).length;';
  const timeout = h('input', { id: 'built-timeout', type: 'number', min: 1, max: 300, value: 30 });
  const error = h('p', { class: 'field-error', role: 'alert' });
  const form = h(
    'form',
    { class: 'built-tool-form' },
    h(
      'fieldset',
      null,
      h('legend', null, 'Define a tool'),
      field('built-name', 'Name (lowercase words joined by _)', name),
      field('built-description', 'What it does (the model reads this)', description),
      field('built-parameters', 'Parameters (JSON Schema of an object)', parameters),
      field('built-fetch', 'Hosts it may fetch from (empty: no network)', hosts),
      h('div', { class: 'row' }, read, h('label', { for: 'built-read' }, "It may read the workspace's files")),
      h(
        'div',
        { class: 'row' },
        write,
        h('label', { for: 'built-write' }, "It may write the workspace's files (each write asks as fs_write does)"),
      ),
      field('built-code', 'JavaScript (args holds the arguments; return the result)', code),
      field('built-timeout', 'Longest run (seconds)', timeout),
      error,
      h('div', { class: 'row' }, h('button', { type: 'submit' }, icon('wrench'), ' Save and register')),
    ),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    error.textContent = '';
    /** @type {unknown} */
    let params;
    try {
      params = JSON.parse(/** @type {HTMLTextAreaElement} */ (parameters).value || '{"type": "object", "properties": {}}');
    } catch (err) {
      error.textContent = `The parameters are not JSON: ${/** @type {Error} */ (err).message}`;
      return;
    }
    const input = {
      name: /** @type {HTMLInputElement} */ (name).value.trim(),
      description: /** @type {HTMLTextAreaElement} */ (description).value.trim(),
      parameters: params,
      capabilities: {
        fetch: /** @type {HTMLInputElement} */ (hosts).value
          .split(/[\s,]+/)
          .map((x) => x.trim())
          .filter(Boolean),
        readFiles: /** @type {HTMLInputElement} */ (read).checked,
        writeFiles: /** @type {HTMLInputElement} */ (write).checked,
      },
      code: /** @type {HTMLTextAreaElement} */ (code).value,
      timeoutSeconds: Number(/** @type {HTMLInputElement} */ (timeout).value) || 30,
    };
    builder.define(input).then(
      (r) => act(async () => {}, `${r.name} v${r.version} is registered.`),
      (err) => {
        error.textContent = /** @type {Error} */ (err).message;
      },
    );
  });
  return form;
}
