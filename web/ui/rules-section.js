/** @import { ToolDefinition } from '../tools/types.d.ts' */
/** @import { ApprovalRule } from '../tools/approval-rules.js' */
/** @import { DevicesControl } from './types.d.ts' */
import { h } from './dom.js';
import { emptyState } from './panel-layout.js';

/** The kinds of rule, in the form's words. */
const KINDS = /** @type {const} */ ([
  ['command', 'Command prefix (shell)'],
  ['domain', 'Domain (URL)'],
  ['path', 'Path glob (file)'],
  ['device', 'Device (hardware)'],
]);

/**
 * The Tools panel's "Always allow" narrowed to a command prefix, a domain, a path glob or one
 * device the user picked: listed, each editable and removable, and addable by hand (the approval
 * dialog adds them too). A device rule's "Allow" offers the ids of the devices picked now.
 * @param {{tools: ToolDefinition[], rules: () => ApprovalRule[], toolLabel: (key: string) => string, describeRule: (rule: ApprovalRule) =>
 *   string, onRemoveRule: (rule: ApprovalRule) => void, onAddRule: (rule: ApprovalRule) => void, devices?: DevicesControl}} props
 *   toolLabel: a rule's tool in words (an MCP server's tool is kept under its server's identity)
 */
export function RulesSection(props) {
  const list = h('ul', { class: 'rule-list', 'aria-label': 'Approval rules' });
  /** The rule the form edits (null: the form adds one). @type {ApprovalRule | null} */
  let editing = null;
  const tool = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { id: 'rule-tool' },
      props.tools.map((t) => h('option', { value: t.name }, t.name)),
    )
  );
  const kind = /** @type {HTMLSelectElement} */ (
    h('select', { id: 'rule-kind' }, ...KINDS.map(([v, words]) => h('option', { value: v }, words)))
  );
  const devices = h('datalist', { id: 'rule-devices' });
  const pattern = /** @type {HTMLInputElement} */ (
    h('input', {
      id: 'rule-pattern',
      type: 'text',
      required: true,
      list: 'rule-devices',
      placeholder: 'git status · docs.python.org · notes/**',
    })
  );
  const submit = h('button', { type: 'submit' }, 'Add rule');
  const cancel = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Cancel editing');
  const status = h('p', { role: 'status', class: 'small' });
  // A rule starts on the tool that runs shell lines (a command prefix is the common rule).
  const startTool = () => props.tools.find((t) => t.runsCode === 'bash')?.name ?? props.tools[0]?.name ?? '';
  tool.value = startTool();
  /** The picked devices, offered as a device rule's pattern. */
  const offerDevices = async () => {
    const rows = props.devices ? await props.devices.list().catch(() => []) : [];
    devices.replaceChildren(...rows.map((d) => h('option', { value: d.id }, d.label)));
  };
  kind.addEventListener('change', () => {
    if (kind.value === 'device') void offerDevices();
  });
  /** @param {ApprovalRule | null} rule */
  const edit = (rule) => {
    editing = rule;
    submit.textContent = rule ? 'Save rule' : 'Add rule';
    cancel.hidden = !rule;
    if (!rule) return;
    const shown = props.toolLabel(rule.tool);
    if (props.tools.some((t) => t.name === shown)) tool.value = shown;
    kind.value = rule.kind;
    pattern.value = rule.pattern;
    if (rule.kind === 'device') void offerDevices();
    pattern.focus();
  };
  cancel.addEventListener('click', () => {
    pattern.value = '';
    edit(null);
  });
  const draw = () => {
    const rules = props.rules();
    list.replaceChildren(
      ...(rules.length
        ? rules.map((rule) => {
            const named = `${props.toolLabel(rule.tool)} for ${props.describeRule(rule)}`;
            return h(
              'li',
              { class: 'row spread' },
              h('span', null, h('code', null, props.toolLabel(rule.tool)), ` may run without asking for ${props.describeRule(rule)}`),
              h(
                'span',
                { class: 'row' },
                h(
                  'button',
                  { type: 'button', class: 'secondary', 'aria-label': `Edit the rule: ${named}`, on: { click: () => edit(rule) } },
                  'Edit',
                ),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'secondary',
                    'aria-label': `Remove the rule: ${named}`,
                    on: {
                      click: () => {
                        props.onRemoveRule(rule);
                        if (editing === rule) edit(null);
                        draw();
                      },
                    },
                  },
                  'Remove',
                ),
              ),
            );
          })
        : [emptyState('No rules yet. Choose “Always allow …” in an approval dialog, or add one here.', { tag: 'li' })]),
    );
  };
  draw();
  const form = h(
    'form',
    { class: 'row wrap' },
    h('div', { class: 'field' }, h('label', { for: 'rule-tool' }, 'Tool'), tool),
    h('div', { class: 'field' }, h('label', { for: 'rule-kind' }, 'Kind'), kind),
    h('div', { class: 'field' }, h('label', { for: 'rule-pattern' }, 'Allow'), pattern, devices),
    submit,
    cancel,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const value = pattern.value.trim();
    if (!value) return;
    // Editing replaces the rule: the old one goes, the new one is added.
    if (editing) props.onRemoveRule(editing);
    props.onAddRule({ tool: tool.value, kind: /** @type {ApprovalRule['kind']} */ (kind.value), pattern: value });
    status.textContent = editing ? 'Rule saved.' : 'Rule added.';
    pattern.value = '';
    edit(null);
    draw();
  });
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'rules-title' },
    h('h3', { id: 'rules-title' }, 'Narrowed “Always allow” rules'),
    h(
      'p',
      { class: 'small muted' },
      'A rule lets one tool run without asking, but only for a command prefix (the shell: every command of the line must match), a ' +
        'URL’s domain, a path glob, or one device you picked (its id, as the Devices section lists it; kept across reloads when the ' +
        'browser finds it again as the only one of its kind). Untrusted content still makes memory, goal, job and skill changes, ' +
        'and sends through a channel, ask.',
    ),
    list,
    form,
    status,
  );
}
