/** @import { CatalogEntry } from '../providers/types.d.ts' */
/** @import { ProviderChain } from './types.d.ts' */
import { h } from './dom.js';
import { relayField } from './relay-field.js';

const MAX_FALLBACKS = 4;

/**
 * The Settings dialog's "When the provider fails" section: the fallback chain (provider, model,
 * optional base URL, key and relay per entry, in order), retries, and the stream time-outs by state.
 * `read()` returns what to save, or the first problem (shown next to its field).
 * @param {{catalog: CatalogEntry[], providers: ProviderChain, hasKey: (provider: string) => boolean, machines?: string[]}} props
 *   machines: the user's machines, for each entry's "through my relay"
 */
export function FallbackFields(props) {
  const list = h('ol', { class: 'fallback-list' });
  const add = h('button', { type: 'button', class: 'secondary' }, 'Add a fallback provider');
  const error = h('p', { id: 'set-fallback-error', class: 'field-error', role: 'alert' });
  /** @type {(ReturnType<typeof providerFields> & {li: HTMLElement})[]} */
  const rows = [];
  // A test provider (no AI) never stands in for a model.
  const usable = props.catalog.filter((e) => !e.capabilities.test);
  // A new fallback starts on the first cloud provider.
  const firstCloud = usable.find((e) => e.capabilities.key === 'required')?.id ?? usable[0]?.id ?? '';

  const renumber = () => {
    rows.forEach((r, i) => {
      const n = i + 1;
      r.li.querySelector('legend')?.replaceChildren(`Fallback ${n}`);
      r.rename(`Fallback ${n}`);
      r.li.querySelector('button.remove')?.replaceChildren(`Remove fallback ${n}`);
    });
    add.hidden = rows.length >= MAX_FALLBACKS;
  };

  /**
   * Provider, model, base URL and key fields of one entry (a fallback or a route).
   * Each label names its entry ("Fallback 1 provider"), so no two fields of the dialog share one.
   * @param {string} id @param {string} name @param {{provider: string, model: string, baseUrl: string, relay?: string} | undefined} value
   * @param {boolean} [optional] offers "Not set"
   */
  const providerFields = (id, name, value, optional = false) => {
    const provider = h(
      'select',
      { id: `${id}-provider` },
      ...(optional ? [h('option', { value: '' }, 'Not set')] : []),
      ...usable.map((e) => h('option', { value: e.id }, e.label)),
    );
    provider.value = value?.provider ?? (optional ? '' : firstCloud);
    const model = h('input', { id: `${id}-model`, type: 'text', autocomplete: 'off', spellcheck: false, value: value?.model ?? '' });
    const base = h('input', { id: `${id}-base`, type: 'url', autocomplete: 'off', spellcheck: false, value: value?.baseUrl ?? '' });
    const key = h('input', { id: `${id}-key`, type: 'password', autocomplete: 'off', spellcheck: false });
    const note = h('p', { class: 'muted small', id: `${id}-note` });
    key.setAttribute('aria-describedby', note.id);
    const relay = relayField({ id: `${id}-relay`, label: '', machines: props.machines ?? [], value: value?.relay, note: false });
    const rest = [model, base, key, relay.select];
    const sync = () => {
      const entry = props.catalog.find((e) => e.id === provider.value);
      for (const el of rest) el.disabled = !entry;
      model.placeholder = entry?.defaultModel || 'model id';
      base.placeholder = entry?.baseUrl || 'https://…';
      const saved = props.hasKey(provider.value);
      key.placeholder = !entry ? '' : saved ? 'Saved (encrypted) — leave empty to keep it' : entry.needsKey ? 'Required' : 'Optional';
      note.textContent = !entry
        ? ''
        : entry.needsKey && !saved
          ? `${entry.label} needs a key: enter it here (it is kept per provider, encrypted).`
          : 'Keys are kept per provider, encrypted in this browser.';
    };
    provider.addEventListener('change', sync);
    sync();
    const labels = [
      h('label', { for: provider.id }),
      h('label', { for: model.id }),
      h('label', { for: base.id }),
      h('label', { for: key.id }),
    ];
    labels.push(relay.label);
    const rename = (/** @type {string} */ n) =>
      ['provider', 'model', 'base URL (optional)', 'API key', 'through my relay'].forEach((what, i) =>
        labels[i].replaceChildren(`${n} ${what}`),
      );
    rename(name);
    const fields = [
      h('div', { class: 'field' }, labels[0], provider),
      h('div', { class: 'field' }, labels[1], model),
      h('div', { class: 'field' }, labels[2], base),
      h('div', { class: 'field' }, labels[3], key, note),
      relay.field,
    ];
    return { provider, model, base, key, note, relay, fields, rename };
  };

  /** @param {{provider: string, model: string, baseUrl: string, relay?: string}} [value] */
  const addRow = (value) => {
    const n = rows.length + 1;
    const f = providerFields(`set-fb-${Date.now().toString(36)}-${n}`, `Fallback ${n}`, value);
    const remove = h(
      'button',
      {
        type: 'button',
        class: 'secondary small-btn remove',
        on: {
          click: () => {
            rows.splice(rows.indexOf(row), 1);
            row.li.remove();
            renumber();
            add.focus();
          },
        },
      },
      'Remove',
    );
    const li = h('li', null, h('fieldset', { class: 'fallback-row' }, h('legend', null, `Fallback ${n}`), ...f.fields, remove));
    const row = { ...f, li };
    rows.push(row);
    list.append(li);
    renumber();
    return row;
  };
  for (const f of props.providers.fallbacks) addRow(f);
  add.addEventListener('click', () => addRow().provider.focus());
  renumber();

  const ROUTES = /** @type {const} */ ([
    ['fast', 'Fast', 'quick, cheap answers'],
    ['smart', 'Smart', 'hard questions'],
    ['code', 'Code', 'programming'],
    ['vision', 'Vision', 'images; used by itself when a message has images the usual model cannot see'],
  ]);
  const routes = ROUTES.map(([hint, label, what]) => ({
    hint,
    label,
    ...providerFields(`set-route-${hint}`, label, props.providers.routes[hint], true),
    what,
  }));
  const routeSection = h(
    'fieldset',
    { class: 'routes' },
    h('legend', null, 'Routing hints'),
    h(
      'p',
      { class: 'muted small' },
      'A kind of work mapped to a provider and model. A conversation can be pinned to one ' +
        '(the menu above the chat); the rest use the provider above.',
    ),
    ...routes.map((r) => h('fieldset', { class: 'fallback-row' }, h('legend', null, `${r.label} — ${r.what}`), ...r.fields)),
  );

  /** @param {string} id @param {string} label @param {number} value @param {string} help */
  const seconds = (id, label, value, help) => {
    const input = h('input', { id, type: 'number', step: 'any', value: String(value), 'aria-describedby': `${id}-help` });
    return {
      input,
      row: h('div', { class: 'field' }, h('label', { for: id }, label), input, h('p', { id: `${id}-help`, class: 'muted small' }, help)),
    };
  };
  const retries = seconds(
    'set-retries',
    'Retries before the next fallback (0–5)',
    props.providers.retries,
    'After a rate limit, a server error or no answer: tried again with growing waits, or as long as the server asks (Retry-After).',
  );
  const connect = seconds(
    'set-timeout-connect',
    'No answer after (seconds)',
    props.providers.timeouts.connectSeconds,
    'Until the server answers the request.',
  );
  const firstByte = seconds(
    'set-timeout-first',
    'No first word after (seconds)',
    props.providers.timeouts.firstByteSeconds,
    'Models that think before answering need longer.',
  );
  const gap = seconds(
    'set-timeout-gap',
    'Reply stalled for (seconds)',
    props.providers.timeouts.gapSeconds,
    'A stalled reply ends with an error; the text so far is kept.',
  );

  const cache = h(
    'select',
    { id: 'set-cache', 'aria-describedby': 'set-cache-help' },
    h('option', { value: 'deterministic' }, 'Temperature 0 only'),
    h('option', { value: 'always' }, 'Every request'),
    h('option', { value: 'off' }, 'Never'),
  );
  cache.value = props.providers.cache;
  const cacheRow = h(
    'div',
    { class: 'field' },
    h('label', { for: cache.id }, 'Reuse identical answers'),
    cache,
    h(
      'p',
      { id: 'set-cache-help', class: 'muted small' },
      "The same request within 30 minutes gets the same answer again, at no cost (kept in this tab's " +
        'memory). By default only requests at temperature 0 (exact answers) are reused. Replies that ' +
        'called tools are never reused; Regenerate always asks the model.',
    ),
  );
  const element = h(
    'fieldset',
    null,
    h('legend', null, 'Fallbacks and time-outs'),
    h(
      'p',
      { class: 'muted small' },
      'Fallbacks are tried in order after retries fail on a rate limit, a server error or no answer — never on a ' +
        'wrong key or a refused request. A provider that keeps failing is skipped for a minute.',
    ),
    list,
    add,
    error,
    retries.row,
    connect.row,
    firstByte.row,
    gap.row,
    cacheRow,
    routeSection,
  );

  /** The field a problem is about: marked invalid, described by the error line, focused. @param {HTMLElement} field */
  const invalid = (field) => {
    field.setAttribute('aria-invalid', 'true');
    field.setAttribute('aria-errormessage', error.id);
    field.focus();
  };
  /**
   * @returns {{ok: true, value: ProviderChain, keys: Record<string, string>} | {ok: false}}
   */
  const read = () => {
    error.textContent = '';
    for (const el of element.querySelectorAll('[aria-invalid]')) {
      el.removeAttribute('aria-invalid');
      el.removeAttribute('aria-errormessage');
    }
    /** @type {Record<string, string>} */
    const keys = {};
    /**
     * @param {ReturnType<typeof providerFields>} r
     * @param {string} name
     * @returns {{provider: string, model: string, baseUrl: string, relay?: string} | null} null: a problem, shown
     */
    const entryOf = (r, name) => {
      const baseUrl = r.base.value.trim();
      if (baseUrl && !/^https?:\/\/[^\s]+$/i.test(baseUrl)) {
        error.textContent = `${name}: the base URL must start with http:// or https://.`;
        invalid(r.base);
        return null;
      }
      const entry = props.catalog.find((e) => e.id === r.provider.value);
      const key = r.key.value.trim();
      if (entry?.needsKey && !key && !props.hasKey(r.provider.value) && !keys[r.provider.value]) {
        error.textContent = `${name}: ${entry.label} needs an API key.`;
        invalid(r.key);
        return null;
      }
      if (key) keys[r.provider.value] = key;
      const relay = r.relay.read();
      return { provider: r.provider.value, model: r.model.value.trim(), baseUrl, ...(relay ? { relay } : {}) };
    };
    const fallbacks = [];
    for (const r of rows) {
      const e = entryOf(r, `Fallback ${rows.indexOf(r) + 1}`);
      if (!e) return { ok: false };
      fallbacks.push(e);
    }
    /** @type {ProviderChain['routes']} */
    const routeValues = {};
    for (const r of routes) {
      if (!r.provider.value) continue;
      const e = entryOf(r, `${r.label} hint`);
      if (!e) return { ok: false };
      routeValues[r.hint] = e;
    }
    /** @type {[HTMLInputElement, number, number, string][]} */
    const numbers = [
      [retries.input, 0, 5, 'Retries'],
      [connect.input, 1, 600, 'No answer after'],
      [firstByte.input, 1, 3600, 'No first word after'],
      [gap.input, 1, 3600, 'Reply stalled for'],
    ];
    for (const [input, min, max, label] of numbers) {
      const v = Number(input.value);
      if (!Number.isInteger(v) || v < min || v > max) {
        error.textContent = `${label}: a whole number from ${min} to ${max}.`;
        invalid(input);
        return { ok: false };
      }
    }
    return {
      ok: true,
      keys,
      value: {
        fallbacks,
        routes: routeValues,
        retries: Number(retries.input.value),
        cache: /** @type {'deterministic' | 'always' | 'off'} */ (cache.value),
        timeouts: {
          connectSeconds: Number(connect.input.value),
          firstByteSeconds: Number(firstByte.input.value),
          gapSeconds: Number(gap.input.value),
        },
      },
    };
  };
  return { element, read };
}
