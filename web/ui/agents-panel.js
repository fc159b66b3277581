/** @import { ScopedAgent, AgentDefinition } from '../agent/runtime/agent-definitions.js' */
/** @import { IdentitySource } from '../agent/runtime/identity.js' */
import { h, clear, downloadBlob, guard } from './dom.js';
import { emptyState, panelLayout } from './panel-layout.js';
import { confirmDialog } from './dialogs.js';

/**
 * The Agents panel: the default agent (shaped by the workspace's identity), this workspace's
 * named agents and the global ones — create, edit, duplicate, export (JSON or Markdown),
 * import, delete — and an editor with a live preview of the system prompt the agent runs with.
 * Everything it shows and does comes through `props` (the app wires the store and formats).
 * @param {{
 *   agents: {list: () => Promise<ScopedAgent[]>, save: (value: unknown, scope: 'workspace' | 'global', previousName?: string) =>
 *   Promise<AgentDefinition>,
 *     remove: (name: string, scope: 'workspace' | 'global') => Promise<void>, duplicate: (name: string) => Promise<AgentDefinition>,
 *     setIdentity: (source: IdentitySource | null) => Promise<void>, subscribe: (fn: () => void) => () => void, quarantined?: string |
 *     null,
 *     problems?: {scope: 'workspace' | 'global', message: string}[], setAsideDamaged?: (scope: 'workspace' | 'global') => Promise<string>,
 *     forUse?: (a: ScopedAgent) => Promise<{leftOut: string[]}>, lastSaveProblems?: {tool: string, reason: string}[]},
 *   format: {toJson: (a: AgentDefinition) => string, toMarkdown: (a: AgentDefinition) => string, parseFile: (text: string) => {ok: true,
 *   agent: AgentDefinition} | {ok: false, errors: string[]},
 *     validate: (value: unknown) => {ok: true, agent: AgentDefinition} | {ok: false, errors: string[]}, checkIdentity: (source:
 *     IdentitySource) => {ok: true, prompt: string} | {ok: false, errors: string[]},
 *     preview: (a: {systemPrompt?: string, identity?: IdentitySource}) => string, identityTemplate: string},
 *   heartbeat: {load: () => Promise<{enabled: boolean, when: string, checklist: string, next: string | null}>, save: (h: {enabled: boolean,
 *   when: string, checklist: string}) => Promise<string>},
 *   toolNames: string[], routes: string[], defaultName: string, providerExample?: string, modelExample?: string,
 *   onError: (err: unknown) => void, onBack: () => void}} props
 */
export function AgentsPanel(props) {
  const guarded = guard(props.onError);
  const status = h('p', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const list = h('div', { class: 'agent-list' });
  const editorHost = h('div', { class: 'agent-editor-host' });
  const importPicker = /** @type {HTMLInputElement} */ (
    h('input', { type: 'file', accept: '.json,.md,application/json,text/markdown', hidden: true, 'aria-label': 'Agent file to import' })
  );

  const slug = (/** @type {string} */ s) => s.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '') || 'agent';

  /**
   * The editor: a new agent (`agent` null), a named one, or the default agent (identity only).
   * @param {ScopedAgent | null} agent
   */
  const edit = (agent) => {
    const builtin = agent?.scope === 'builtin';
    const id = (/** @type {string} */ k) => `agent-edit-${k}`;
    const field = (/** @type {string} */ label, /** @type {HTMLElement} */ control, /** @type {string} */ hint = '') =>
      h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hint ? h('p', { class: 'small muted' }, hint) : '');
    const name = /** @type {HTMLInputElement} */ (
      h('input', {
        id: id('name'),
        value: agent?.name ?? '',
        required: true,
        autocomplete: 'off',
        readOnly: builtin,
        pattern: '[a-z][a-z0-9_-]{0,31}',
        placeholder: 'writer',
      })
    );
    const description = /** @type {HTMLInputElement} */ (
      h('input', { id: id('description'), value: agent?.description ?? '', autocomplete: 'off', disabled: builtin })
    );
    const scope = /** @type {HTMLSelectElement} */ (
      h(
        'select',
        { id: id('scope'), disabled: !!agent },
        h('option', { value: 'workspace', selected: agent?.scope !== 'global' }, 'This workspace'),
        h('option', { value: 'global', selected: agent?.scope === 'global' }, 'Every workspace'),
      )
    );
    const prompt = /** @type {HTMLTextAreaElement} */ (
      h('textarea', {
        id: id('prompt'),
        rows: 5,
        value: agent?.systemPrompt ?? '',
        disabled: builtin,
        placeholder: 'Empty: the default system prompt',
      })
    );
    const modelKind = /** @type {HTMLSelectElement} */ (
      h(
        'select',
        { id: id('model-kind'), disabled: builtin },
        h('option', { value: '' }, "The workspace's model"),
        ...props.routes.map((r) => h('option', { value: `route:${r}`, selected: agent?.route === r }, `Routing hint: ${r}`)),
        h('option', { value: 'own', selected: !!agent?.model }, 'A model of its own'),
      )
    );
    const provider = /** @type {HTMLInputElement} */ (
      h('input', { id: id('provider'), value: agent?.model?.provider ?? '', autocomplete: 'off', placeholder: props.providerExample ?? '' })
    );
    const model = /** @type {HTMLInputElement} */ (
      h('input', { id: id('model'), value: agent?.model?.model ?? '', autocomplete: 'off', placeholder: props.modelExample ?? '' })
    );
    const ownModel = h(
      'div',
      { class: 'row', hidden: !agent?.model },
      field('Provider', provider, 'Its key and address are the ones saved for that provider in Settings.'),
      field('Model', model),
    );
    modelKind.addEventListener('change', () => {
      ownModel.hidden = modelKind.value !== 'own';
    });
    const allTools = /** @type {HTMLInputElement} */ (
      h('input', { type: 'checkbox', id: id('all-tools'), checked: !agent?.tools, disabled: builtin })
    );
    // Names the agent has that no tool has now (an MCP server not connected) stay in its list, and say so.
    const absent = (agent?.tools ?? []).filter((t) => !props.toolNames.includes(t));
    const toolBoxes = [...props.toolNames, ...absent].map(
      (t) =>
        /** @type {HTMLInputElement} */ (
          h('input', {
            type: 'checkbox',
            id: id(`tool-${t}`),
            value: t,
            checked: !agent?.tools || agent.tools.includes(t),
            disabled: builtin || !agent?.tools,
          })
        ),
    );
    allTools.addEventListener('change', () => {
      for (const b of toolBoxes) {
        b.disabled = allTools.checked;
        if (allTools.checked) b.checked = true;
      }
    });
    const tools = h(
      'fieldset',
      { class: 'agent-tools' },
      h('legend', null, 'Tools it may use (never more than the workspace allows)'),
      h('div', { class: 'row' }, allTools, h('label', { for: allTools.id }, "All the workspace's tools")),
      h(
        'div',
        { class: 'agent-tool-grid' },
        ...toolBoxes.map((b) =>
          h('span', { class: 'row' }, b, h('label', { for: b.id }, absent.includes(b.value) ? `${b.value} (not available now)` : b.value)),
        ),
      ),
    );
    const autonomy = /** @type {HTMLSelectElement} */ (
      h(
        'select',
        { id: id('autonomy'), disabled: builtin },
        h('option', { value: '' }, "The workspace's level"),
        ...[
          ['readonly', 'Read-only'],
          ['supervised', 'Supervised'],
          ['full', 'Full'],
        ].map(([v, l]) => h('option', { value: v, selected: agent?.autonomy === v }, l)),
      )
    );
    const steps = /** @type {HTMLInputElement} */ (
      h('input', {
        id: id('steps'),
        type: 'number',
        min: 1,
        max: 100,
        value: agent?.maxIterations ?? '',
        disabled: builtin,
        placeholder: "The workspace's",
      })
    );
    const identityFormat = /** @type {HTMLSelectElement} */ (
      h(
        'select',
        { id: id('identity-format') },
        h('option', { value: '' }, 'None'),
        h('option', { value: 'json', selected: agent?.identity?.format === 'json' }, 'AIEOS identity (JSON)'),
        h('option', { value: 'markdown', selected: agent?.identity?.format === 'markdown' }, 'Markdown persona'),
      )
    );
    const identityText = /** @type {HTMLTextAreaElement} */ (
      h('textarea', { id: id('identity'), rows: 10, value: agent?.identity?.text ?? '', hidden: !agent?.identity, spellcheck: false })
    );
    const template = h(
      'button',
      {
        type: 'button',
        class: 'secondary small-btn',
        hidden: agent?.identity?.format !== 'json',
        on: {
          click: () => {
            identityText.value = props.format.identityTemplate;
            update();
          },
        },
      },
      'Insert an example identity',
    );
    identityFormat.addEventListener('change', () => {
      identityText.hidden = !identityFormat.value;
      template.hidden = identityFormat.value !== 'json';
      if (identityFormat.value === 'json' && !identityText.value.trim()) identityText.value = props.format.identityTemplate;
      update();
    });
    // The list inside the alert: role="alert" on the <ul> itself would take its list semantics away.
    const errorList = h('ul', { class: 'bad small' });
    const errors = h('div', { role: 'alert' }, errorList);
    const preview = h('pre', { class: 'agent-preview', tabindex: 0, 'aria-label': 'System prompt preview' });

    /** The identity as entered, or null. @returns {IdentitySource | null} */
    const identity = () =>
      identityFormat.value ? { format: /** @type {'json' | 'markdown'} */ (identityFormat.value), text: identityText.value } : null;
    /** The definition as entered (not yet validated). */
    const value = () => {
      const id = identity();
      const kind = modelKind.value;
      return {
        name: name.value.trim(),
        description: description.value.trim(),
        systemPrompt: prompt.value,
        ...(id ? { identity: id } : {}),
        ...(kind === 'own'
          ? { model: { provider: provider.value.trim(), model: model.value.trim() } }
          : kind.startsWith('route:')
            ? { route: kind.slice(6) }
            : {}),
        ...(allTools.checked ? {} : { tools: toolBoxes.filter((b) => b.checked).map((b) => b.value) }),
        ...(autonomy.value ? { autonomy: autonomy.value } : {}),
        ...(steps.value ? { maxIterations: Number(steps.value) } : {}),
      };
    };
    function update() {
      const id = identity();
      const checked = builtin ? (id ? props.format.checkIdentity(id) : null) : props.format.validate(value());
      const problems = checked && !checked.ok ? checked.errors : [];
      clear(errorList).append(...problems.map((p) => h('li', null, p)));
      // The preview shows the identity once it is valid.
      const usable = id && props.format.checkIdentity(id).ok;
      preview.textContent = props.format.preview({ systemPrompt: builtin ? '' : prompt.value, ...(usable ? { identity: id } : {}) });
      return problems;
    }
    for (const el of [name, description, prompt, identityText, steps]) el.addEventListener('input', update);
    for (const el of [modelKind, autonomy, allTools, ...toolBoxes]) el.addEventListener('change', update);

    const save = h('button', { type: 'submit' }, builtin ? 'Save identity' : 'Save agent');
    const form = /** @type {HTMLFormElement} */ (
      h(
        'form',
        { class: 'card agent-editor', 'aria-label': builtin ? 'Workspace identity' : agent ? `Edit @${agent.name}` : 'New agent' },
        h('h3', null, builtin ? "The workspace's identity" : agent ? `Edit @${agent.name}` : 'New agent'),
        builtin
          ? h(
              'p',
              { class: 'small muted' },
              `Shapes the system prompt of @${props.defaultName}, the agent that answers every message not addressed to another one. ` +
                `Kept in Clawser's own .agents/config/ folder.`,
            )
          : '',
        builtin ? '' : h('div', { class: 'row' }, field('Name (what you type after @)', name), field('Scope', scope)),
        builtin ? '' : field('Description', description),
        builtin ? '' : field('System prompt', prompt, 'Replaces the default prompt; an identity below is added to it.'),
        builtin
          ? ''
          : h(
              'div',
              { class: 'row' },
              field('Model', modelKind),
              field('Autonomy', autonomy, "Never above the workspace's."),
              field('Steps per turn', steps),
            ),
        builtin ? '' : ownModel,
        builtin ? '' : tools,
        field('Identity', identityFormat),
        identityText,
        template,
        errors,
        h('h4', null, 'System prompt preview'),
        preview,
        h(
          'div',
          { class: 'row' },
          save,
          h('button', { type: 'button', class: 'secondary', on: { click: () => clear(editorHost) } }, 'Cancel'),
        ),
      )
    );
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      guarded(async () => {
        if (update().length) {
          status.textContent = 'Not saved: fix the problems listed in the editor.';
          return;
        }
        if (builtin) {
          await props.agents.setIdentity(identity());
          status.textContent = identity() ? "Saved the workspace's identity." : "Removed the workspace's identity.";
        } else {
          const saved = await props.agents.save(
            value(),
            agent?.scope === 'global' ? 'global' : agent ? 'workspace' : /** @type {'workspace' | 'global'} */ (scope.value),
            agent?.name,
          );
          const unbound = props.agents.lastSaveProblems ?? [];
          status.textContent = `Saved @${saved.name}.${unbound.map((p) => ` ${p.tool} reaches no tool: ${p.reason}.`).join('')}`;
        }
        clear(editorHost);
        await draw();
      });
    });
    clear(editorHost).append(form);
    update();
    (builtin ? identityFormat : name).focus();
  };

  /** @param {ScopedAgent} a @param {'json' | 'md'} kind */
  const exportAgent = (a, kind) => {
    const text = kind === 'json' ? props.format.toJson(a) : props.format.toMarkdown(a);
    downloadBlob(new Blob([text], { type: kind === 'json' ? 'application/json' : 'text/markdown' }), `${slug(a.name)}.agent.${kind}`);
    status.textContent = `Exported @${a.name}.`;
  };

  /** @param {ScopedAgent} a @param {string[]} leftOut what its list names that it does not reach now, in words */
  const item = (a, leftOut) =>
    h(
      'li',
      { class: 'card agent', 'data-agent': a.name },
      h(
        'div',
        { class: 'row' },
        h('h3', null, `@${a.name}`),
        h(
          'span',
          { class: 'small muted' },
          a.scope === 'builtin'
            ? `default${a.identity ? ' · identity set' : ''}`
            : a.scope === 'global'
              ? 'every workspace'
              : 'this workspace',
        ),
      ),
      h('p', null, a.description || h('span', { class: 'muted' }, 'No description.')),
      a.scope === 'builtin'
        ? ''
        : h(
            'p',
            { class: 'small muted' },
            [
              a.model
                ? `model ${a.model.provider}${a.model.model ? `/${a.model.model}` : ''}`
                : a.route
                  ? `routing hint ${a.route}`
                  : "the workspace's model",
              a.tools ? `${a.tools.length} tool${a.tools.length === 1 ? '' : 's'}` : 'all tools',
              a.autonomy ? `autonomy ${a.autonomy}` : '',
              a.maxIterations ? `${a.maxIterations} steps` : '',
            ]
              .filter(Boolean)
              .join(' · '),
          ),
      ...leftOut.map((text) =>
        h('p', { class: 'notice warn small' }, `${text} Edit the agent and save it to choose the tool of that name now.`),
      ),
      h(
        'div',
        { class: 'row' },
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small-btn',
            'aria-label': a.scope === 'builtin' ? `Edit identity of @${a.name}` : `Edit @${a.name}`,
            on: { click: () => edit(a) },
          },
          a.scope === 'builtin' ? 'Edit identity' : 'Edit',
        ),
        a.scope === 'builtin'
          ? ''
          : h(
              'button',
              {
                type: 'button',
                class: 'secondary small-btn',
                'aria-label': `Duplicate @${a.name}`,
                on: {
                  click: () =>
                    guarded(async () => {
                      const copy = await props.agents.duplicate(a.name);
                      status.textContent = `Duplicated @${a.name} as @${copy.name}.`;
                      await draw();
                    }),
                },
              },
              'Duplicate',
            ),
        a.scope === 'builtin'
          ? ''
          : h(
              'button',
              {
                type: 'button',
                class: 'secondary small-btn',
                'aria-label': `Export JSON of @${a.name}`,
                on: { click: () => exportAgent(a, 'json') },
              },
              'Export JSON',
            ),
        a.scope === 'builtin'
          ? ''
          : h(
              'button',
              {
                type: 'button',
                class: 'secondary small-btn',
                'aria-label': `Export Markdown of @${a.name}`,
                on: { click: () => exportAgent(a, 'md') },
              },
              'Export Markdown',
            ),
        a.scope === 'builtin'
          ? ''
          : h(
              'button',
              {
                type: 'button',
                class: 'secondary small-btn danger',
                'aria-label': `Delete @${a.name}`,
                on: {
                  click: () =>
                    guarded(async () => {
                      if (
                        !(await confirmDialog({
                          title: `Delete @${a.name}?`,
                          message:
                            `It is removed from ${a.scope === 'global' ? 'every workspace' : 'this workspace'}. Export it first ` +
                            `to keep a copy.`,
                          confirmLabel: 'Delete',
                        }))
                      )
                        return;
                      await props.agents.remove(a.name, /** @type {'workspace' | 'global'} */ (a.scope));
                      status.textContent = `Deleted @${a.name}.`;
                      await draw();
                    }),
                },
              },
              'Delete',
            ),
      ),
    );

  const draw = async () => {
    const all = await props.agents.list();
    const forUse = props.agents.forUse;
    const leftOut = await Promise.all(
      all.map(async (a) => (forUse ? (await forUse.call(props.agents, a).catch(() => ({ leftOut: [] }))).leftOut : [])),
    );
    if (props.agents.quarantined && !status.textContent)
      status.textContent =
        `A folder .agents/ that Clawser did not write (from a clone, an import or an older version) was moved ` +
        `to ${props.agents.quarantined}/; nothing in it is used. Import an agent from there if you trust it.`;
    clear(list).append(
      ...(props.agents.problems ?? []).map((p) =>
        h(
          'div',
          { class: 'notice warn row', role: 'alert' },
          h('span', null, `${p.message} Its agents are not used until it is fixed or set aside.`),
          props.agents.setAsideDamaged
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'secondary small-btn',
                  on: {
                    click: () =>
                      guarded(async () => {
                        const where = await /** @type {NonNullable<typeof props.agents.setAsideDamaged>} */ (props.agents.setAsideDamaged)(
                          p.scope,
                        );
                        status.textContent = `Moved the damaged file to ${where}; you can create agents again.`;
                        await draw();
                      }),
                  },
                },
                'Set the damaged file aside',
              )
            : '',
        ),
      ),
      h(
        'ul',
        { class: 'agents', 'aria-label': 'Agents' },
        ...all.map((a, i) => item(a, leftOut[i])),
        // The workspace's own agent is always listed: the empty state says none of the person's own is.
        all.some((a) => a.scope !== 'builtin')
          ? null
          : emptyState('No agents of your own yet. Create one here, or import one; call it in the chat with @name.', { tag: 'li' }),
      ),
    );
  };

  importPicker.addEventListener('change', () =>
    guarded(async () => {
      const file = importPicker.files?.[0];
      importPicker.value = '';
      if (!file) return;
      const parsed = props.format.parseFile(await file.text());
      if (!parsed.ok) {
        status.textContent = `Not imported (${file.name}): ${parsed.errors.join('; ')}`;
        return;
      }
      const taken = new Set((await props.agents.list()).map((a) => a.name));
      if (
        taken.has(parsed.agent.name) &&
        !(await confirmDialog({
          title: `Replace @${parsed.agent.name}?`,
          message: `An agent named @${parsed.agent.name} exists; importing replaces this workspace's definition.`,
          confirmLabel: 'Replace',
        }))
      )
        return;
      await props.agents.save(parsed.agent, 'workspace');
      status.textContent = `Imported @${parsed.agent.name} into this workspace.`;
      await draw();
    }),
  );

  // The heartbeat: a checklist the agent reviews on a schedule; "all well" (HEARTBEAT_OK) stays silent.
  const hbOn = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', id: 'heartbeat-on' }));
  const hbWhen = /** @type {HTMLInputElement} */ (
    h('input', { id: 'heartbeat-when', autocomplete: 'off', placeholder: 'every 30 minutes' })
  );
  const hbList = /** @type {HTMLTextAreaElement} */ (
    h('textarea', { id: 'heartbeat-checklist', rows: 6, placeholder: '- Are there new files in inbox/?\n- Is any goal overdue?' })
  );
  const hbStatus = h('p', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const hbForm = /** @type {HTMLFormElement} */ (
    h(
      'form',
      { class: 'card heartbeat', 'aria-label': 'Heartbeat' },
      h('h3', null, 'Heartbeat'),
      h(
        'p',
        { class: 'small muted' },
        "On a schedule, the agent reviews this checklist (HEARTBEAT.md, kept in Clawser's own folder). When all is well it " +
          "answers HEARTBEAT_OK and nothing is shown; anything else arrives like a scheduled job's result.",
      ),
      h('div', { class: 'row' }, hbOn, h('label', { for: 'heartbeat-on' }, 'Review the checklist on a schedule')),
      h('div', { class: 'field' }, h('label', { for: 'heartbeat-when' }, 'When'), hbWhen),
      h('div', { class: 'field' }, h('label', { for: 'heartbeat-checklist' }, 'Checklist (HEARTBEAT.md)'), hbList),
      h('div', { class: 'row' }, h('button', { type: 'submit' }, 'Save heartbeat')),
      hbStatus,
    )
  );
  const loadHeartbeat = async () => {
    const hb = await props.heartbeat.load();
    hbOn.checked = hb.enabled;
    hbWhen.value = hb.when;
    hbList.value = hb.checklist;
    hbStatus.textContent = hb.enabled ? (hb.next ? `Next review: ${hb.next}.` : 'Scheduled.') : 'Off.';
  };
  hbForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    guarded(async () => {
      hbStatus.textContent = await props.heartbeat.save({ enabled: hbOn.checked, when: hbWhen.value.trim(), checklist: hbList.value });
    });
  });
  guarded(loadHeartbeat);

  const off = props.agents.subscribe(() => {
    guarded(draw);
  });
  const root = panelLayout(
    { name: 'agents', title: 'Agents', onBack: props.onBack },
    h(
      'p',
      { class: 'small muted' },
      'Address an agent with “@name message” in the chat; the agent can also hand work to one with agent_delegate.',
    ),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', on: { click: () => edit(null) } }, 'New agent'),
      h('button', { type: 'button', class: 'secondary', on: { click: () => importPicker.click() } }, 'Import agent'),
      importPicker,
    ),
    status,
    editorHost,
    list,
    hbForm,
  );
  guarded(draw);
  return { root, destroy: off };
}
