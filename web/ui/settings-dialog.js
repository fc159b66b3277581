/** @import { CatalogEntry, ProviderConfig } from '../providers/types.d.ts' */
/** @import { ConnectionReport } from '../providers/connection.js' */
/** @import { AgentSettingsFields, LocalModelsController, ParseLimits, ProviderChoice } from './types.d.ts' */
import { h } from './dom.js';
import { confirmDialog } from './dialogs.js';
import { FallbackFields } from './fallback-fields.js';
import { ModelPicker } from './model-picker.js';
import { LocalModelsSection } from './local-models-section.js';
import { relayField } from './relay-field.js';

/**
 * The agent's settings are the app's record (`Agent`): the dialog changes the fields it shows
 * and hands back the rest as it got them.
 * @template {AgentSettingsFields} Agent
 * @typedef {object} SettingsDialogProps
 * @property {string} workspaceName
 * @property {CatalogEntry[]} catalog
 * @property {ProviderChoice | null} current
 * @property {(provider: string) => boolean} hasKey
 * @property {(provider: string) => Promise<string | null>} describeAvailability e.g. Chrome AI's state, or null
 * @property {(config: ProviderConfig & {useSavedKey: boolean}) => Promise<ConnectionReport>} onTest
 * @property {Agent} agent
 * @property {(settings: ProviderChoice & {apiKey?: string | null}, agent: Agent, fallbackKeys: Record<string, string>) => Promise<void>}
 *   onSave
 *   fallbackKeys: keys typed for fallback providers, by provider id
 * @property {() => Promise<string>} [describeBackground] how scheduled jobs run in this browser (tab only, or background checks too)
 * @property {ParseLimits} parseLimits checks the limit fields (messages per field)
 * @property {(config: ProviderConfig & {useSavedKey: boolean}) => Promise<{models: (import('../providers/types.d.ts').ModelInfo &
 *   {badges: string[]})[], source: 'provider' | 'catalog'}>} [listModels]
 *   the models the provider offers, with their badges
 * @property {(config: ProviderConfig, model: string, onProgress: (p: {status: string, completed?: number, total?: number}) => void) =>
 *   Promise<void>} [pullModel] downloads a model to Ollama
 * @property {{controller: LocalModelsController, providerId: string | null, onUse: (id: string) => Promise<void>,
 *   openFirst?: boolean}} [localModels] openFirst: the dialog opens at this section (the first-run card's "Import a model…")
 *   the models on this computer; providerId: the provider that runs them; onUse: saves that provider and the model as the
 *   workspace's
 * @property {string[]} [machines] the user's machines (the Remote panel's), for "Through my relay"
 * @property {{on: boolean, text: string, save: (on: boolean) => Promise<void>}} [isolation] cross-origin isolation in this browser:
 *   the setting, what this page is (a sentence), and how a change is saved (with the dialog's Save)
 */

/**
 * The workspace settings dialog, in sections named at its top (provider and model, agent, fallbacks,
 * this browser, scheduled jobs), with Save and Cancel kept in view at its bottom.
 * Resolves when closed (true when saved).
 * @template {AgentSettingsFields} Agent
 * @param {SettingsDialogProps<Agent>} props
 * @returns {Promise<boolean>}
 */
export function openSettingsDialog(props) {
  const { catalog, current } = props;
  const ids = { provider: 'set-provider', model: 'set-model', key: 'set-key', base: 'set-base', models: 'set-models', title: 'set-title' };
  // Grouped by what they need: nothing, a key, or an address (a server of the user's).
  const group = (/** @type {CatalogEntry} */ e) =>
    e.capabilities.baseUrl === 'required' ? 'other' : e.capabilities.key === 'required' ? 'key' : 'free';
  const options = (/** @type {string} */ g) => catalog.filter((e) => group(e) === g).map((e) => h('option', { value: e.id }, e.label));
  const providerSelect = h(
    'select',
    { id: ids.provider, name: 'provider' },
    h('optgroup', { label: 'No API key needed' }, options('free')),
    h('optgroup', { label: 'Cloud providers (API key)' }, options('key')),
    h('optgroup', { label: 'Other' }, options('other')),
  );
  // A new workspace starts on the test provider (it works offline, with no key).
  providerSelect.value = current?.provider ?? catalog.find((e) => e.capabilities.test)?.id ?? catalog[0].id;
  const modelInput = h('input', { id: ids.model, name: 'model', type: 'text', list: ids.models, autocomplete: 'off', spellcheck: false });
  const modelList = h('datalist', { id: ids.models });
  const keyInput = h('input', { id: ids.key, name: 'apiKey', type: 'password', autocomplete: 'off', spellcheck: false });
  const keyHelp = h('p', { class: 'muted small', id: 'set-key-help' });
  const removeKey = h('button', { type: 'button', class: 'secondary small-btn' }, 'Remove saved key');
  const baseInput = h('input', {
    id: ids.base,
    name: 'baseUrl',
    type: 'url',
    autocomplete: 'off',
    spellcheck: false,
    placeholder: 'https://…/v1',
  });
  // Options stay short (a select cannot wrap on a phone); what the choice means is said below it.
  const providerNote = h('p', { id: 'set-provider-note', class: 'muted small' });
  providerSelect.setAttribute('aria-describedby', 'set-provider-note');
  const availability = h('p', { class: 'muted small', 'aria-live': 'polite' });
  const result = h('p', { class: 'test-result', role: 'status', 'aria-live': 'polite' });
  const testBtn = h('button', { type: 'button', class: 'secondary' }, 'Test connection');
  const a = props.agent;
  const level = h(
    'select',
    { id: 'set-autonomy', name: 'autonomy', 'aria-describedby': 'set-autonomy-note' },
    h('option', { value: 'readonly' }, 'Read-only'),
    h('option', { value: 'supervised' }, 'Supervised'),
    h('option', { value: 'full' }, 'Full'),
  );
  level.value = a.autonomy.level;
  const levelNote = h('p', { id: 'set-autonomy-note', class: 'muted small' });
  const LEVELS = {
    readonly: 'Only tools that read run; anything that would change something is refused.',
    supervised: 'Anything that changes something asks you first.',
    full: 'Each tool follows its policy in the Tools panel.',
  };
  const showLevel = () => {
    levelNote.textContent = LEVELS[/** @type {keyof typeof LEVELS} */ (level.value)] ?? '';
  };
  showLevel();
  level.addEventListener('change', showLevel);
  const perHour = h('input', { id: 'set-actions', type: 'number', min: 0, step: 1, value: String(a.autonomy.maxActionsPerHour) });
  const perDay = h('input', {
    id: 'set-cost',
    type: 'number',
    min: 0,
    step: 0.01,
    value: (a.autonomy.maxCostCentsPerDay / 100).toFixed(2),
  });
  const perMonth = h('input', {
    id: 'set-cost-month',
    type: 'number',
    min: 0,
    step: 0.01,
    value: (a.autonomy.maxCostCentsPerMonth / 100).toFixed(2),
  });
  const compact = h('input', { id: 'set-compact', type: 'number', min: 1000, step: 1000, value: String(a.compactionThresholdTokens) });
  // Limits that used to exist only in code. Each field has its own error line (aria-describedby);
  // zod checks them on Save (no min/max/step attributes, so the browser's own check does not preempt it).
  /**
   * @type {{name: 'allowedPrivateHosts' | 'maxIterations' | 'maxToolResultChars' | 'maxReadKiB' | 'maxWriteKiB', label: string,
   *   help: string, input: HTMLInputElement}[]}
   */
  const limits = [
    {
      name: 'allowedPrivateHosts',
      label: 'Private hosts the agent may reach',
      help:
        'Host or host:port, separated by commas (e.g. 127.0.0.1:11434). Loopback, ' +
        'local-network and cloud-metadata addresses are refused unless listed here.',
      input: h('input', {
        id: 'set-private-hosts',
        type: 'text',
        autocomplete: 'off',
        spellcheck: false,
        value: a.allowedPrivateHosts.join(', '),
      }),
    },
    {
      name: 'maxIterations',
      label: 'Steps per turn, at most (1–100)',
      help: 'Model calls in one turn before the agent stops and asks to continue.',
      input: h('input', { id: 'set-iterations', type: 'number', step: 'any', value: String(a.maxIterations) }),
    },
    {
      name: 'maxToolResultChars',
      label: 'Tool result cap (characters)',
      help: 'Longer tool output is cut before the model sees it.',
      input: h('input', { id: 'set-result-cap', type: 'number', step: 'any', value: String(a.maxToolResultChars) }),
    },
    {
      name: 'maxReadKiB',
      label: 'Largest file a tool reads (KiB)',
      help: '',
      input: h('input', {
        id: 'set-read-cap',
        type: 'number',
        step: 'any',
        value: String(Math.max(1, Math.round(a.tools.maxReadBytes / 1024))),
      }),
    },
    {
      name: 'maxWriteKiB',
      label: 'Largest file a tool writes (KiB)',
      help: '',
      input: h('input', {
        id: 'set-write-cap',
        type: 'number',
        step: 'any',
        value: String(Math.max(1, Math.round(a.tools.maxWriteBytes / 1024))),
      }),
    },
  ];
  const limitRows = limits.map((f) => {
    const error = h('p', { id: `${f.input.id}-error`, class: 'field-error', role: 'alert' });
    const help = f.help ? h('p', { id: `${f.input.id}-help`, class: 'muted small' }, f.help) : null;
    f.input.setAttribute('aria-describedby', [help ? help.id : '', error.id].filter(Boolean).join(' '));
    return { ...f, error, row: h('div', { class: 'field' }, h('label', { for: f.input.id }, f.label), f.input, help, error) };
  });
  /** @returns {ReturnType<ParseLimits>} */
  const readLimits = () => {
    const parsed = props.parseLimits(
      /** @type {Record<(typeof limits)[number]['name'], string>} */ (Object.fromEntries(limits.map((f) => [f.name, f.input.value]))),
    );
    for (const f of limitRows) {
      const message = parsed.ok ? '' : (parsed.errors[f.name] ?? '');
      f.error.textContent = message;
      if (message) f.input.setAttribute('aria-invalid', 'true');
      else f.input.removeAttribute('aria-invalid');
    }
    return parsed;
  };
  const leak = h(
    'select',
    { id: 'set-leak' },
    h('option', { value: 'redact' }, 'Redact (recommended)'),
    h('option', { value: 'warn' }, 'Keep, with a warning'),
    h('option', { value: 'block' }, 'Withhold the reply'),
  );
  leak.value = a.leakAction;
  const safetyOn = h('input', { id: 'set-safety', type: 'checkbox', checked: a.safetyEnabled });
  safetyOn.addEventListener('change', async () => {
    if (safetyOn.checked) return;
    // Turning the safety pipeline off is a two-step decision.
    const ok = await confirmDialog({
      title: 'Turn safety checks off?',
      message:
        'Without them, tool calls are not checked for path traversal, private-network requests (web_fetch still ' +
        'checks its own addresses) or dangerous commands, injected instructions in web pages are not marked, and ' +
        'secrets in replies are not redacted. Approvals and autonomy limits still apply.',
      confirmLabel: 'Turn safety checks off',
    });
    if (!ok) safetyOn.checked = true;
  });
  const agentFields = h(
    'fieldset',
    null,
    h('legend', null, 'Agent'),
    h('div', { class: 'field' }, h('label', { for: 'set-autonomy' }, 'Autonomy'), level, levelNote),
    h('div', { class: 'field' }, h('label', { for: 'set-actions' }, 'Tool actions per hour (0 = no limit)'), perHour),
    h('div', { class: 'field' }, h('label', { for: 'set-cost' }, 'Cost limit per day, USD (0 = no limit)'), perDay),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'set-cost-month' }, 'Cost limit per month, USD (0 = no limit)'),
      perMonth,
      h(
        'p',
        { class: 'muted small' },
        'A warning shows at 80% of a limit. Costs are estimated from list prices; models without a known price count as "cost unknown".',
      ),
    ),
    h('div', { class: 'field' }, h('label', { for: 'set-compact' }, 'Summarize older messages past (tokens)'), compact),
    ...limitRows.map((f) => f.row),
    h('div', { class: 'field' }, h('label', { for: 'set-leak' }, 'When a reply contains a secret'), leak),
    h(
      'div',
      { class: 'row' },
      safetyOn,
      h('label', { for: 'set-safety' }, 'Safety checks (input sanitizer, tool-call validator, leak detector)'),
    ),
  );
  const machines = props.machines ?? [];
  const fallbacks = FallbackFields({ catalog, providers: a.providers, hasKey: props.hasKey, machines });
  const relay = relayField({ id: 'set-relay', label: 'Through my relay', machines, value: current?.relay });
  const relayOf = () => (relay.read() ? { relay: relay.read() } : {});
  const dialogConfig = () => ({
    provider: providerSelect.value,
    model: modelInput.value.trim() || undefined,
    baseUrl: baseInput.value.trim() || undefined,
    apiKey: keyInput.value.trim() || undefined,
    ...relayOf(),
  });
  const listModels = props.listModels;
  const pullModel = props.pullModel;
  const picker = listModels
    ? ModelPicker({
        load: () => listModels({ ...dialogConfig(), useSavedKey: !removeRequested }),
        current: () => modelInput.value.trim(),
        onChoose: (id) => {
          modelInput.value = id;
        },
        pull: pullModel ? (name, onProgress) => pullModel(dialogConfig(), name, onProgress) : undefined,
      })
    : null;
  const local = props.localModels;
  /** A model was made this workspace's from the list (saved at once: the dialog closes as saved). */
  let usedModel = false;
  const localModels = local
    ? LocalModelsSection({
        controller: local.controller,
        providerId: local.providerId,
        chosen: () => ({ provider: providerSelect.value, model: modelInput.value.trim() }),
        onUse: async (id) => {
          await local.onUse(id);
          usedModel = true;
          if (local.providerId && providerSelect.value !== local.providerId) {
            providerSelect.value = local.providerId;
            sync(false);
          }
          modelInput.value = id;
          localModels?.redraw();
          result.className = 'test-result ok';
          result.textContent = '✓ This workspace now uses this model.';
        },
        onError: (err) => {
          result.className = 'test-result bad';
          result.textContent = /** @type {Error} */ (err)?.message ?? String(err);
        },
      })
    : null;
  modelInput.addEventListener('input', () => localModels?.redraw());
  const keyRow = h('div', { class: 'field' }, h('label', { for: ids.key }, 'API key'), keyInput, keyHelp, removeKey);
  const baseRow = h('div', { class: 'field' }, h('label', { for: ids.base }, 'Base URL'), baseInput);
  let removeRequested = false;

  const entryOf = () => /** @type {CatalogEntry} */ (catalog.find((e) => e.id === providerSelect.value));

  const sync = (/** @type {boolean} */ initial) => {
    const entry = entryOf();
    const same = current?.provider === entry.id;
    if (initial || !same) {
      modelInput.value = same && current?.model ? current.model : entry.defaultModel;
      baseInput.value = same && current?.baseUrl ? current.baseUrl : '';
    }
    modelList.replaceChildren(...entry.models.map((m) => h('option', { value: m })));
    baseInput.placeholder = entry.baseUrl || 'https://your-server.example/v1';
    const saved = props.hasKey(entry.id) && !removeRequested;
    keyRow.hidden = entry.capabilities.key === 'none';
    keyInput.required = entry.needsKey && !saved;
    keyInput.placeholder = saved ? 'Saved (encrypted) — leave empty to keep it' : entry.needsKey ? 'Required' : 'Optional';
    keyHelp.textContent = entry.keyUrl
      ? `Get a key at ${entry.keyUrl}. Keys are encrypted in this browser and sent only to ${entry.label}.`
      : 'Keys are encrypted in this browser and sent only to this provider.';
    removeKey.hidden = !saved;
    // Every HTTP format: a proxy or gateway in front of the API is a common setup.
    baseRow.hidden = entry.capabilities.baseUrl === 'none';
    // A provider in the page makes no HTTP requests to relay.
    relay.field.hidden = entry.capabilities.baseUrl === 'none';
    baseInput.required = entry.capabilities.baseUrl === 'required';
    result.textContent = '';
    if (picker) {
      if (!initial) picker.hide();
      if (picker.pullRow) picker.pullRow.hidden = !entry.capabilities.pullsModels;
      picker.setPullHost(entry.label);
    }
    providerNote.textContent = entry.note ? `${entry.label}: ${entry.note}.` : '';
    if (initial || !same) localModels?.setOpen(!!local?.providerId && entry.id === local.providerId);
    localModels?.redraw();
    availability.textContent = '';
    props.describeAvailability(entry.id).then((text) => {
      if (entryOf() === entry) availability.textContent = text ?? '';
    });
  };
  providerSelect.addEventListener('change', () => {
    removeRequested = false;
    sync(false);
  });
  removeKey.addEventListener('click', () => {
    removeRequested = true;
    keyInput.value = '';
    sync(false);
    keyInput.focus();
  });

  const iso = props.isolation;
  const isolationBox = iso
    ? h('input', { id: 'set-isolation', type: 'checkbox', checked: iso.on, 'aria-describedby': 'set-isolation-note' })
    : null;
  const isolationSection = iso
    ? h(
        'section',
        { class: 'small', 'aria-labelledby': 'set-browser-title' },
        h('h3', { id: 'set-browser-title' }, 'This browser'),
        h('div', { class: 'row' }, isolationBox, h('label', { for: 'set-isolation' }, 'Cross-origin isolation')),
        h(
          'p',
          { id: 'set-isolation-note', class: 'muted small' },
          'Lets a model on this computer run on several threads. The code sandbox, providers, MCP servers, sign-in windows ' +
            'and screenshots work the same either way. For every workspace in this browser, from the next load.',
        ),
        h('p', { id: 'set-isolation-state' }, iso.text),
      )
    : null;
  const backgroundLine = h('p', { id: 'set-jobs-mode' }, '…');
  props.describeBackground?.().then(
    (text) => {
      backgroundLine.textContent = text;
    },
    () => {
      backgroundLine.textContent = '';
    },
  );
  const jobsSection = props.describeBackground
    ? h(
        'section',
        { class: 'small', 'aria-labelledby': 'set-jobs-title' },
        h('h3', { id: 'set-jobs-title' }, 'Scheduled jobs'),
        backgroundLine,
      )
    : null;
  const providerSection = h(
    'section',
    { class: 'settings-section', 'aria-labelledby': 'set-provider-title' },
    h('h3', { id: 'set-provider-title' }, 'Provider and model'),
    h('div', { class: 'field' }, h('label', { for: ids.provider }, 'Provider'), providerSelect, providerNote, availability),
    h(
      'div',
      { class: 'field' },
      h('label', { for: ids.model }, 'Model'),
      modelInput,
      modelList,
      picker ? h('div', { class: 'row' }, picker.button) : null,
      picker?.status,
      picker?.panel,
    ),
    picker?.pullRow,
    localModels?.root,
    keyRow,
    baseRow,
    relay.field,
    h('div', { class: 'row' }, testBtn),
    result,
  );
  // The sections, named in a row of buttons at the top: a long dialog is read by its parts, and
  // each is a click away (buttons, not links: the address is the app's route).
  /** @type {[string, HTMLElement | null][]} */
  const sections = [
    ['Provider and model', providerSection],
    ['Agent', agentFields],
    ['Fallbacks', fallbacks.element],
    ['This browser', isolationSection],
    ['Scheduled jobs', jobsSection],
  ];
  const sectionNav = h(
    'nav',
    { class: 'settings-nav', 'aria-label': 'Settings sections' },
    ...sections.flatMap(([label, el]) =>
      el
        ? [
            h(
              'button',
              {
                type: 'button',
                class: 'secondary small-btn',
                on: {
                  click: () => {
                    el.scrollIntoView({ block: 'start' });
                    const first = /** @type {HTMLElement | null} */ (el.querySelector('input, select, textarea, button, summary'));
                    first?.focus({ preventScroll: true });
                  },
                },
              },
              label,
            ),
          ]
        : [],
    ),
  );
  const form = h(
    'form',
    { method: 'dialog', class: 'settings-form' },
    h('h2', { id: ids.title }, `Settings — ${props.workspaceName}`),
    sectionNav,
    providerSection,
    agentFields,
    fallbacks.element,
    isolationSection,
    jobsSection,
    // Always in view at the bottom of the dialog, however far it is scrolled.
    h(
      'div',
      { class: 'dialog-actions settings-actions' },
      h('button', { type: 'submit', value: 'cancel', class: 'secondary', formNoValidate: true }, 'Cancel'),
      h('button', { type: 'submit', value: 'save' }, 'Save'),
    ),
  );
  const dialog = h('dialog', { class: 'dialog settings-dialog', 'aria-labelledby': ids.title }, form);

  testBtn.addEventListener('click', async () => {
    testBtn.disabled = true;
    result.className = 'test-result';
    result.textContent = 'Testing…';
    try {
      const report = await props.onTest({
        provider: providerSelect.value,
        model: modelInput.value.trim() || undefined,
        baseUrl: baseInput.value.trim() || undefined,
        apiKey: keyInput.value.trim() || undefined,
        ...relayOf(),
        useSavedKey: !removeRequested,
      });
      result.className = `test-result ${report.ok ? 'ok' : 'bad'}`;
      result.textContent = (report.ok ? '✓ ' : '✗ ') + report.message;
      if (report.ok && report.models?.length) modelList.replaceChildren(...report.models.map((m) => h('option', { value: m })));
    } finally {
      testBtn.disabled = false;
    }
  });

  return new Promise((resolve) => {
    let saved = false;
    form.addEventListener('submit', async (event) => {
      const submitter = /** @type {HTMLButtonElement | null} */ (/** @type {SubmitEvent} */ (event).submitter);
      if (submitter?.value !== 'save') return;
      event.preventDefault();
      const key = keyInput.value.trim();
      const checked = readLimits();
      if (!checked.ok) {
        limitRows.find((f) => f.error.textContent)?.input.focus();
        return;
      }
      const lim = checked.value;
      const chain = fallbacks.read();
      if (!chain.ok) return;
      try {
        await props.onSave(
          {
            provider: providerSelect.value,
            model: modelInput.value.trim(),
            baseUrl: baseInput.value.trim(),
            ...(relay.field.hidden ? {} : relayOf()),
            apiKey: key ? key : removeRequested ? null : undefined,
          },
          {
            ...a,
            autonomy: {
              level: /** @type {'readonly' | 'supervised' | 'full'} */ (level.value),
              maxActionsPerHour: Math.max(0, Math.round(Number(perHour.value) || 0)),
              maxCostCentsPerDay: Math.max(0, Math.round((Number(perDay.value) || 0) * 100)),
              maxCostCentsPerMonth: Math.max(0, Math.round((Number(perMonth.value) || 0) * 100)),
            },
            compactionThresholdTokens: Math.max(1000, Math.round(Number(compact.value) || 12_000)),
            allowedPrivateHosts: lim.allowedPrivateHosts,
            maxIterations: lim.maxIterations,
            maxToolResultChars: lim.maxToolResultChars,
            tools: { ...a.tools, maxReadBytes: lim.maxReadBytes, maxWriteBytes: lim.maxWriteBytes },
            leakAction: /** @type {'redact' | 'warn' | 'block'} */ (leak.value),
            safetyEnabled: safetyOn.checked,
            providers: chain.value,
          },
          chain.keys,
        );
        if (iso && isolationBox && isolationBox.checked !== iso.on) await iso.save(isolationBox.checked);
        saved = true;
        dialog.close('save');
      } catch (err) {
        result.className = 'test-result bad';
        result.textContent = `Could not save: ${/** @type {Error} */ (err).message}`;
      }
    });
    dialog.addEventListener('close', () => {
      localModels?.destroy();
      dialog.remove();
      resolve(saved || usedModel);
    });
    document.body.append(dialog);
    sync(true);
    dialog.showModal();
    if (local?.openFirst && localModels) {
      // Opened from the first-run card's "Import a model…": at the models, ready to import.
      localModels.setOpen(true);
      localModels.root.scrollIntoView({ block: 'start' });
      /** @type {HTMLElement | null} */ (localModels.root.querySelector('summary'))?.focus();
    } else providerSelect.focus();
  });
}
