/** @import { ToolDefinition, ToolPolicy } from '../tools/types.d.ts' */
/** @import { ToolSettingsView, BuiltToolsControl, CompanionControl, DevicesControl } from './types.d.ts' */
/** @import { ApprovalRule } from '../tools/approval-rules.js' */
import { h } from './dom.js';
import { panelLayout } from './panel-layout.js';
import { BuiltToolsSection } from './built-tools-section.js';
import { CompanionSection } from './companion-section.js';
import { DevicesSection } from './devices-section.js';
import { RulesSection } from './rules-section.js';

/**
 * The Tools panel: every tool with its description, permission level and this workspace's
 * policy — the default (what the autonomy level does with it, in words) or the user's own
 * choice ("Always allow" from a dialog lands here) — plus the tool settings (fetch allowlist,
 * web search service) and the companion extension's (whether it is there, the sites the tab tools may use).
 * @param {{tools: ToolDefinition[], userPolicyOf: (name: string) => ToolPolicy | null, defaultOf: (name: string) => string, onPolicy:
 *   (name: string, policy: ToolPolicy | null) => void,
 *   rules: () => ApprovalRule[], toolLabel: (key: string) => string, describeRule: (rule: ApprovalRule) => string, onRemoveRule: (rule:
 *   ApprovalRule) => void, onAddRule: (rule: ApprovalRule) => void,
 *   storedChoices?: () => {key: string, label: string, policy: ToolPolicy}[], onForget?: (key: string) => void,
 *   settings: ToolSettingsView, hasSearchKey: boolean, onSaveSettings: (s: {fetchAllowlist: string[], searchEndpoint: string,
 *   searchApiKey?: string | null}) => Promise<void>, onBack: () => void, builder?: BuiltToolsControl, onBuilderChanged?: () => void,
 *   companion?: CompanionControl, devices?: DevicesControl}} props
 *   devices: the devices picked for the hardware tools, with Revoke (absent: not shown);
 *   builder: the built tools and the form that defines one (absent: not shown); onBuilderChanged: after one changed;
 *   companion: the companion extension's status and site lists (absent: not shown);
 *   storedChoices: the user's choices for tools not in the table (an MCP server's while it is not connected), in words; onForget removes
 *   one
 */
export function ToolsPanel(props) {
  const rows = props.tools.map((t) => {
    const id = `policy-${t.name}`;
    const select = h(
      'select',
      { id, 'aria-label': `Policy for ${t.name}`, 'aria-describedby': `${id}-d` },
      // Short options (a select cannot wrap on a phone); the note under it says what they mean here.
      h('option', { value: '' }, 'Default'),
      h('option', { value: 'auto' }, 'Always allow'),
      h('option', { value: 'approve' }, 'Ask each time'),
      h('option', { value: 'denied' }, 'Off (never run)'),
    );
    const note = h('div', { id: `${id}-d`, class: 'small muted' });
    const show = () => {
      const user = props.userPolicyOf(t.name);
      select.value = user ?? '';
      note.textContent = user
        ? `Your choice for this workspace. Default: ${props.defaultOf(t.name)}.`
        : `Default here: ${props.defaultOf(t.name)}.`;
      if (t.standing)
        note.textContent +=
          `${note.textContent ? ' ' : ''}Changes what later turns see or do: asks whenever the conversation has read ` +
          `untrusted content.`;
      if (t.permissionFor)
        note.textContent +=
          ' A line of read-only commands (ls, cat, grep, git status…) counts as a read: it runs ' +
          'without asking, even at read-only autonomy, and can change nothing.';
    };
    show();
    select.addEventListener('change', () => {
      props.onPolicy(t.name, select.value ? /** @type {ToolPolicy} */ (select.value) : null);
      show();
    });
    return h(
      'tr',
      null,
      h('td', null, h('code', null, t.name)),
      h('td', null, t.description),
      h('td', null, h('span', { class: 'perm' }, t.standing ? `${t.permission}, standing` : t.permission)),
      h('td', null, select, note),
    );
  });
  const allow = h('input', {
    id: 'tool-allowlist',
    type: 'text',
    value: props.settings.tools.fetchAllowlist.join(', '),
    placeholder: 'e.g. wikipedia.org, docs.python.org',
  });
  const endpoint = h('input', {
    id: 'tool-search',
    type: 'url',
    value: props.settings.tools.searchEndpoint,
    placeholder: 'https://searx.example.org or https://api.search.brave.com/res/v1/web/search',
  });
  const key = h('input', {
    id: 'tool-search-key',
    type: 'password',
    autocomplete: 'off',
    placeholder: props.hasSearchKey ? 'Saved (encrypted) — leave empty to keep' : 'Only for Brave Search',
  });
  const status = h('p', { role: 'status', class: 'small' });
  const form = h(
    'form',
    { class: 'card' },
    h(
      'fieldset',
      null,
      h('legend', null, 'Tool settings'),
      h('div', { class: 'field' }, h('label', { for: 'tool-allowlist' }, 'web_fetch domain allowlist (empty: any public site)'), allow),
      h('div', { class: 'field' }, h('label', { for: 'tool-search' }, 'Web search service URL'), endpoint),
      h('div', { class: 'field' }, h('label', { for: 'tool-search-key' }, 'Web search API key'), key),
      h('div', { class: 'row' }, h('button', { type: 'submit' }, 'Save tool settings')),
      status,
    ),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await props.onSaveSettings({
        fetchAllowlist: allow.value
          .split(/[\s,]+/)
          .map((d) => d.trim())
          .filter(Boolean),
        searchEndpoint: endpoint.value.trim(),
        searchApiKey: key.value.trim() ? key.value.trim() : undefined,
      });
      status.textContent = 'Saved.';
    } catch (err) {
      status.textContent = `Could not save: ${/** @type {Error} */ (err).message}`;
    }
  });
  const rulesSection = RulesSection(props);
  return panelLayout(
    { name: 'tools', title: 'Tools', onBack: props.onBack },
    h(
      'p',
      { class: 'muted' },
      'What the agent may do in this workspace. Read tools run on their own; tools that change files, ' +
        'memory, goals or jobs, use the network or the browser ask first unless you choose “Always allow” ' +
        '(here or in the approval dialog). Read-only autonomy refuses every change.',
    ),
    h(
      'table',
      { class: 'tools-table' },
      h(
        'thead',
        null,
        h('tr', null, h('th', null, 'Tool'), h('th', null, 'What it does'), h('th', null, 'Level'), h('th', null, 'Policy')),
      ),
      h('tbody', null, rows),
    ),
    StoredChoices(props),
    props.builder ? BuiltToolsSection({ builder: props.builder, onChanged: props.onBuilderChanged ?? (() => {}) }) : null,
    rulesSection,
    form,
    props.companion ? CompanionSection(props.companion) : null,
    props.devices ? DevicesSection(props.devices) : null,
  );
}

/** A policy in the table's words. @type {Record<ToolPolicy, string>} */
const POLICY_WORDS = { auto: 'Always allow', approve: 'Ask each time', denied: 'Off (never run)' };

/**
 * The user's choices for tools the table does not show — an MCP server's tools while it is not
 * connected — each named by its server (name, address) and tool, and forgettable: a choice kept
 * for a server is seen and can be taken back whether or not the server is there.
 * @param {{storedChoices?: () => {key: string, label: string, policy: ToolPolicy}[], onForget?: (key: string) => void}} props
 */
function StoredChoices(props) {
  const list = h('ul', { class: 'rule-list', 'aria-label': 'Choices for tools not connected' });
  const section = h(
    'section',
    { class: 'card', 'aria-labelledby': 'stored-choices-title' },
    h('h3', { id: 'stored-choices-title' }, 'Choices for tools not connected'),
    h(
      'p',
      { class: 'small muted' },
      'What you chose for tools of MCP servers that are not connected now. They apply again when the server ' +
        'connects (the same server at the same address); forget one to start from the default.',
    ),
    list,
  );
  const draw = () => {
    const choices = props.storedChoices?.() ?? [];
    section.hidden = !choices.length;
    list.replaceChildren(
      ...choices.map((c) =>
        h(
          'li',
          { class: 'row spread' },
          h('span', null, h('code', null, c.label), `: ${POLICY_WORDS[c.policy]}`),
          props.onForget
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'secondary',
                  'aria-label': `Forget the choice for ${c.label}`,
                  on: {
                    click: () => {
                      /** @type {NonNullable<typeof props.onForget>} */ (props.onForget)(c.key);
                      draw();
                    },
                  },
                },
                'Forget',
              )
            : '',
        ),
      ),
    );
  };
  draw();
  return section;
}
