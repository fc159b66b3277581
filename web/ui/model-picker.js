/** @import { ModelInfo } from '../providers/types.d.ts' */
import { h } from './dom.js';

/**
 * The Settings dialog's model picker: the models the provider offers, each with its badges
 * (tools, images, reasoning, context size), filtered as you type; choosing one fills the Model
 * field. From a provider that pulls models (its capabilities say), a model can also be downloaded, with its progress.
 * @param {{
 *   load: () => Promise<{models: (ModelInfo & {badges: string[]})[], source: 'provider' | 'catalog'}>,
 *   onChoose: (id: string) => void,
 *   current: () => string,
 *   pull?: (name: string, onProgress: (p: {status: string, completed?: number, total?: number}) => void) => Promise<void>,
 * }} props
 */
export function ModelPicker(props) {
  const open = h('button', { type: 'button', class: 'secondary' }, 'Browse models');
  const status = h('p', { class: 'small muted', role: 'status', 'aria-live': 'polite' });
  const filter = h('input', {
    id: 'set-model-filter',
    type: 'search',
    autocomplete: 'off',
    spellcheck: false,
    placeholder: 'Filter the list',
  });
  const list = h('ul', { class: 'model-list', 'aria-label': 'Available to choose' });
  const panel = h(
    'fieldset',
    { class: 'model-picker', hidden: true },
    h('legend', null, 'Available to choose'),
    h('label', { for: filter.id, class: 'sr-only' }, 'Filter the list'),
    filter,
    list,
  );
  /** @type {(ModelInfo & {badges: string[]})[]} */
  let models = [];

  const draw = () => {
    const q = filter.value.trim().toLowerCase();
    const shown = models.filter((m) => !q || m.id.toLowerCase().includes(q) || (m.label ?? '').toLowerCase().includes(q)).slice(0, 200);
    list.replaceChildren(
      ...shown.map((m) => {
        const id = `set-model-opt-${m.id.replace(/[^\w-]/g, '_')}`;
        const radio = h('input', { type: 'radio', name: 'model-choice', id, value: m.id, checked: m.id === props.current() });
        radio.addEventListener('change', () => props.onChoose(m.id));
        return h(
          'li',
          null,
          radio,
          h('label', { for: id }, h('span', { class: 'model-id' }, m.id), ...m.badges.map((b) => h('span', { class: 'badge' }, b))),
        );
      }),
    );
    if (!shown.length) list.append(h('li', { class: 'muted small' }, q ? 'No model matches.' : 'No models.'));
  };
  filter.addEventListener('input', draw);

  const load = async () => {
    status.textContent = 'Asking the provider for its models…';
    try {
      const r = await props.load();
      models = r.models;
      status.textContent =
        r.source === 'provider'
          ? `${models.length} model${models.length === 1 ? '' : 's'} offered.`
          : 'The provider did not list its models: these are suggestions; any model id can be typed.';
      panel.hidden = false;
      draw();
    } catch (err) {
      status.textContent = `Could not list the models: ${/** @type {Error} */ (err).message}`;
    }
  };
  open.addEventListener('click', () => {
    if (!panel.hidden) {
      panel.hidden = true;
      return;
    }
    load();
  });

  /** @type {HTMLElement | null} */
  let pullRow = null;
  /** The download field's label, which names the host the model goes to (setPullHost). */
  const pullLabel = h('label', { for: 'set-pull-name' }, 'Download to the server: model name');
  if (props.pull) {
    const pull = props.pull;
    const name = h('input', {
      id: 'set-pull-name',
      type: 'text',
      autocomplete: 'off',
      spellcheck: false,
      placeholder: 'e.g. llama3.2 or qwen2.5:7b',
    });
    const go = h('button', { type: 'button', class: 'secondary' }, 'Download model');
    const progress = /** @type {HTMLProgressElement} */ (
      h('progress', { max: 1, value: 0, hidden: true, 'aria-label': 'Download progress' })
    );
    const pullStatus = h('p', { class: 'small muted', role: 'status', 'aria-live': 'polite' });
    go.addEventListener('click', async () => {
      const model = name.value.trim();
      if (!model) {
        name.focus();
        return;
      }
      go.disabled = true;
      progress.hidden = false;
      progress.removeAttribute('value');
      try {
        await pull(model, (p) => {
          if (p.total) {
            progress.max = p.total;
            progress.value = p.completed ?? 0;
          }
          pullStatus.textContent = p.total ? `${p.status}: ${Math.floor(((p.completed ?? 0) / p.total) * 100)}%` : p.status;
        });
        pullStatus.textContent = `Downloaded ${model}.`;
        props.onChoose(model);
        if (!panel.hidden) await load();
      } catch (err) {
        pullStatus.textContent = `Download failed: ${/** @type {Error} */ (err).message}`;
      } finally {
        go.disabled = false;
        progress.hidden = true;
      }
    });
    pullRow = h('div', { class: 'field' }, pullLabel, h('div', { class: 'row' }, name, go), progress, pullStatus);
  }
  return {
    button: open,
    status,
    panel,
    pullRow,
    /** Names the host a download goes to, as the registry labels it. @param {string} label */
    setPullHost: (label) => {
      pullLabel.textContent = `Download to ${label}: model name`;
    },
    hide: () => {
      panel.hidden = true;
      status.textContent = '';
      filter.value = '';
    },
  };
}
