/** @import { LocalModelsController, LocalModelRow, ModelTransfer } from './types.d.ts' */
import { h } from './dom.js';
import { confirmDialog } from './dialogs.js';

/** "1.2 GB", "350 MB", "12 KB". @param {number} bytes */
function size(bytes) {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${Math.round(bytes / 1e6)} MB`;
  return `${Math.max(1, Math.round(bytes / 1e3))} KB`;
}

/** "0.5 B", "7.6 B", "1.2 M", "104 K" parameters. @param {number} n */
function parameters(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} M`;
  if (n >= 1e3) return `${Math.round(n / 1e3)} K`;
  return String(n);
}

/** @param {LocalModelRow} m */
function templateText(m) {
  if (m.chatTemplate === null) return 'None in the file (tool calls are constrained JSON)';
  if (m.callsTools) return `${m.chatTemplate}, with tools (calls them natively)`;
  return `${m.chatTemplate}, without tools (tool calls are constrained JSON)`;
}

/** "Second", "First (fallback)", "Third (fast route)": how a workspace uses the model. @param {LocalModelRow['usedBy'][number]} w */
function usedAs(w) {
  const other = w.as.filter((a) => a !== 'provider');
  return other.length ? `${w.name} (${w.as.join(', ')})` : w.name;
}

/** Files in a drop: a folder's files too (a split model's parts). @param {DataTransfer} data @returns {Promise<File[]>} */
async function droppedFiles(data) {
  const entries = [...data.items].map((i) => i.webkitGetAsEntry?.()).filter((e) => !!e);
  if (!entries.length) return [...data.files];
  /** @type {File[]} */
  const files = [];
  /** @param {FileSystemEntry} entry */
  const walk = async (entry) => {
    if (entry.isFile) {
      files.push(await new Promise((resolve, reject) => /** @type {FileSystemFileEntry} */ (entry).file(resolve, reject)));
    } else if (entry.isDirectory) {
      const reader = /** @type {FileSystemDirectoryEntry} */ (entry).createReader();
      for (;;) {
        /** @type {FileSystemEntry[]} */
        const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
        if (!batch.length) break;
        for (const e of batch) await walk(e);
      }
    }
  };
  for (const e of entries) await walk(/** @type {FileSystemEntry} */ (e));
  return files;
}

/**
 * The settings dialog's "Models on this computer": the GGUF models imported into this browser
 * (name, size, quantisation, context length, chat template and whether it calls tools, which
 * workspaces use it), Use and Delete; import from files, a folder or a drop; download from an
 * address, with its progress, Stop, Resume and Discard. A `<details>`, open while the provider
 * chosen is the one that runs these models.
 * @param {{
 *   controller: LocalModelsController,
 *   providerId: string | null,
 *   chosen: () => {provider: string, model: string},
 *   onUse: (id: string) => Promise<void>,
 *   onError: (err: unknown) => void,
 * }} props
 *   providerId: the provider that runs them (null: none in this build, no Use button); chosen: the dialog's provider and
 *   model; onUse: makes the model this workspace's
 */
export function LocalModelsSection(props) {
  const c = props.controller;
  const count = h('span', null);
  const summary = h('summary', { id: 'set-local-models-title' }, 'Models on this computer', count);
  const list = h('ul', { class: 'local-model-list', 'aria-labelledby': 'set-local-models-title', tabindex: -1 });
  const empty = h(
    'p',
    { class: 'muted small' },
    'No model yet. Import a .gguf file you have, or download one: a 0.5–1.5 B model at Q4 is 0.4–1 GB.',
  );
  const transfers = h('ul', { class: 'local-model-transfers', 'aria-label': 'Downloads and imports' });
  const status = h('p', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const alert = h('p', { class: 'field-error', role: 'alert' });

  const fileInput = h('input', { type: 'file', accept: '.gguf', multiple: true, hidden: true, 'aria-label': 'GGUF model files' });
  const folderInput = h('input', { type: 'file', webkitdirectory: true, hidden: true, 'aria-label': 'A folder with a model' });
  const pickFile = h('button', { type: 'button', class: 'secondary' }, 'Import a file…');
  const pickFolder = h('button', { type: 'button', class: 'secondary' }, 'Import a folder…');
  pickFile.addEventListener('click', () => fileInput.click());
  pickFolder.addEventListener('click', () => folderInput.click());
  /** @param {File[]} files */
  const importFiles = (files) => {
    if (files.length) c.importFiles(files).catch(props.onError);
  };
  for (const input of [fileInput, folderInput]) {
    input.addEventListener('change', () => {
      importFiles([...(input.files ?? [])]);
      input.value = '';
    });
  }
  const drop = h(
    'div',
    { class: 'model-drop', role: 'group', 'aria-labelledby': 'set-model-import-title' },
    h('p', { id: 'set-model-import-title', class: 'model-drop-title' }, 'Import a model'),
    h('p', { class: 'muted small' }, 'Drop .gguf files here (or a folder with a split model’s parts), or choose them.'),
    h('div', { class: 'row' }, pickFile, pickFolder),
    fileInput,
    folderInput,
  );
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    drop.classList.add('dragging');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('dragging');
    if (e.dataTransfer) droppedFiles(e.dataTransfer).then(importFiles, props.onError);
  });

  const urlInput = h('input', {
    id: 'set-model-url',
    type: 'text',
    inputMode: 'url',
    autocomplete: 'off',
    spellcheck: false,
    placeholder: 'https://huggingface.co/…/resolve/main/….gguf',
    'aria-describedby': 'set-model-url-help',
  });
  const downloadBtn = h('button', { type: 'button', class: 'secondary' }, 'Download');
  const background = h('input', { id: 'set-model-background', type: 'checkbox', checked: true });
  const backgroundRow = h(
    'div',
    { class: 'row', hidden: true },
    background,
    h('label', { for: background.id }, 'Keep downloading when Clawser is closed (the browser’s background download)'),
  );
  const startDownload = () => {
    const url = urlInput.value.trim();
    if (!url) {
      urlInput.focus();
      return;
    }
    c.download(url, { background: !backgroundRow.hidden && background.checked }).catch(props.onError);
    urlInput.value = '';
  };
  downloadBtn.addEventListener('click', startDownload);
  // Enter here downloads (the dialog's form would otherwise take it as a click on its first button).
  urlInput.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    startDownload();
  });
  const downloadRow = h(
    'div',
    { class: 'field' },
    h('label', { for: urlInput.id }, 'Download from an address'),
    h('div', { class: 'row model-url-row' }, urlInput, downloadBtn),
    h(
      'p',
      { id: 'set-model-url-help', class: 'muted small' },
      'The address of a .gguf file, e.g. a Hugging Face file’s download link. A split model’s parts all come. A download ' +
        'that stops goes on from where it stopped.',
    ),
    backgroundRow,
  );

  const root = h(
    'details',
    { class: 'local-models' },
    summary,
    h(
      'p',
      { class: 'muted small' },
      'Models here run in this page: no key, no network once downloaded. They are kept in this browser’s storage, outside ' +
        'every workspace.',
    ),
    list,
    empty,
    drop,
    downloadRow,
    transfers,
    status,
    alert,
  );

  /** Rows of the transfers, by id, kept while they last (their Stop keeps focus as progress comes). */
  /** @type {Map<string, {li: HTMLElement, bar: HTMLProgressElement, text: HTMLElement, note: HTMLElement, actions: HTMLElement,
   *   state: string}>} */
  const rows = new Map();

  /** @param {ModelTransfer} t */
  const actionsOf = (t) => {
    /** @type {HTMLButtonElement[]} */
    const buttons = [];
    const label = t.kind === 'import' ? 'import' : 'download';
    if (t.state === 'running' || t.state === 'background' || t.state === 'checking') {
      const stop = h('button', { type: 'button', class: 'secondary small-btn', 'aria-label': `Stop the ${label} of ${t.label}` }, 'Stop');
      stop.addEventListener('click', () => c.stop(t.id));
      buttons.push(stop);
    }
    if (t.state === 'stopped' && t.canResume) {
      const resume = h('button', { type: 'button', class: 'small-btn', 'aria-label': `Resume the download of ${t.label}` }, 'Resume');
      resume.addEventListener('click', () => c.resume(t.id).catch(props.onError));
      buttons.push(resume);
    }
    if (t.kind === 'download' && (t.state === 'stopped' || t.state === 'failed' || t.state === 'background')) {
      const discard = h(
        'button',
        { type: 'button', class: 'secondary small-btn', 'aria-label': `Discard the download of ${t.label}` },
        'Discard',
      );
      discard.addEventListener('click', () => c.discard(t.id).catch(props.onError));
      buttons.push(discard);
    }
    return buttons;
  };

  /** @param {ModelTransfer} t */
  const showTransfer = (t) => {
    let row = rows.get(t.id);
    if (!row) {
      const bar = h('progress', { max: 1, 'aria-label': `${t.kind === 'import' ? 'Importing' : 'Downloading'} ${t.label}` });
      const text = h('span', { class: 'small' });
      const note = h('p', { class: 'small muted' });
      const actions = h('div', { class: 'row' });
      const li = h('li', { class: 'model-transfer' }, h('strong', { class: 'model-name' }, t.label), bar, text, note, actions);
      row = { li, bar, text, note, actions, state: '' };
      rows.set(t.id, row);
    }
    // A size the server did not say (or not yet known): an indeterminate bar.
    if (t.total) {
      row.bar.max = t.total;
      row.bar.value = Math.min(t.received, t.total);
    } else row.bar.removeAttribute('value');
    const done = t.total ? `${size(t.received)} of ${size(t.total)}` : t.received ? size(t.received) : '';
    const state = { checking: 'Checking', running: '', background: 'In the background', stopped: 'Stopped', failed: 'Failed' }[t.state];
    row.text.textContent = [state, done].filter(Boolean).join(' · ');
    row.note.textContent = t.message ?? '';
    if (row.state !== t.state) {
      const focused = row.actions.contains(document.activeElement);
      row.actions.replaceChildren(...actionsOf(t));
      if (focused) /** @type {HTMLElement | null} */ (row.actions.firstElementChild ?? list)?.focus();
      row.state = t.state;
    }
    return row.li;
  };

  /** @param {LocalModelRow} m */
  const modelRow = (m) => {
    const chosen = props.chosen();
    const here = !!props.providerId && chosen.provider === props.providerId && chosen.model === m.id;
    const facts = [
      ['Size', size(m.bytes)],
      ['Quantisation', m.quantisation ?? 'Not stated'],
      [
        'Context length',
        `${m.contextLength ? `${m.contextLength.toLocaleString('en-US')} tokens` : 'Not stated'}` +
          (m.loadedContext !== m.contextLength ? `; loads ${m.loadedContext.toLocaleString('en-US')} (its memory)` : ''),
      ],
      [
        'Runs on',
        m.runsOn
          ? `${m.runsOn} (loaded now)`
          : m.willRunOn
            ? `${m.willRunOn}, when it loads`
            : 'Chosen when it loads: WebGPU where this browser has it, else WebAssembly',
      ],
      ['Chat template', templateText(m)],
      ['Model', `${m.architecture}, ${parameters(m.parameters)} parameters`],
      ['Used by', m.usedBy.length ? m.usedBy.map(usedAs).join(', ') : 'No workspace'],
    ];
    const use = props.providerId
      ? h(
          'button',
          {
            type: 'button',
            class: 'small-btn',
            'data-key': `${m.id}:use`,
            'aria-label': `${here ? 'Used here' : 'Use in this workspace'}: ${m.name}`,
            disabled: here,
          },
          here ? 'Used here' : 'Use in this workspace',
        )
      : null;
    use?.addEventListener('click', () => props.onUse(m.id).catch(props.onError));
    const del = h(
      'button',
      { type: 'button', class: 'secondary small-btn', 'data-key': `${m.id}:delete`, 'aria-label': `Delete ${m.name}` },
      'Delete',
    );
    del.addEventListener('click', async () => {
      const users = m.usedBy.map(usedAs);
      const ok = await confirmDialog({
        title: `Delete “${m.name}”?`,
        message:
          `Its file (${size(m.bytes)}) is removed from this browser.` +
          (users.length ? ' These workspaces use it and will need another model:' : ''),
        ...(users.length ? { items: users } : {}),
        confirmLabel: 'Delete model',
      });
      if (ok) await c.remove(m.id).catch(props.onError);
    });
    return h(
      'li',
      { class: 'local-model', 'data-model': m.id },
      h(
        'div',
        { class: 'row' },
        h('strong', { class: 'model-name' }, m.name),
        here ? h('span', { class: 'badge' }, 'This workspace') : null,
      ),
      h('dl', { class: 'model-facts' }, ...facts.flatMap(([k, v]) => [h('dt', null, k), h('dd', null, v)])),
      m.source ? h('p', { class: 'muted small model-source' }, `From ${m.source}`) : null,
      h('div', { class: 'row' }, use, del),
    );
  };

  let shownModels = '';
  const draw = () => {
    const s = c.state();
    count.textContent = s.loaded ? ` (${s.models.length})` : '';
    const chosen = props.chosen();
    const signature = JSON.stringify([s.models, chosen.provider === props.providerId ? chosen.model : null]);
    if (signature !== shownModels) {
      shownModels = signature;
      const key = /** @type {HTMLElement | null} */ (document.activeElement)?.dataset?.key;
      const hadFocus = list.contains(document.activeElement);
      list.replaceChildren(...s.models.map(modelRow));
      if (hadFocus) /** @type {HTMLElement | null} */ ((key && list.querySelector(`[data-key="${CSS.escape(key)}"]`)) || list)?.focus();
    }
    list.hidden = !s.models.length;
    empty.hidden = !s.loaded || s.models.length > 0;
    backgroundRow.hidden = !s.backgroundFetch;
    const ids = new Set(s.transfers.map((t) => t.id));
    for (const id of rows.keys()) if (!ids.has(id)) rows.delete(id);
    const items = s.transfers.map(showTransfer);
    // Moving a row would take the focus off its button: the list is rebuilt only when rows come or go.
    if (items.length !== transfers.children.length || items.some((li, i) => transfers.children[i] !== li)) {
      const focused = transfers.contains(document.activeElement) ? /** @type {HTMLElement} */ (document.activeElement) : null;
      transfers.replaceChildren(...items);
      if (focused?.isConnected) focused.focus();
    }
    transfers.hidden = !s.transfers.length;
    status.textContent = s.notice ?? '';
    alert.textContent = s.error ?? '';
  };
  const unsubscribe = c.subscribe(draw);
  draw();
  c.refresh().catch(props.onError);

  return {
    root,
    /** Shows the section open or closed (open while the chosen provider runs these models). @param {boolean} open */
    setOpen(open) {
      root.open = open;
    },
    /** The dialog's provider or model changed: which model is used here. */
    redraw: draw,
    destroy: unsubscribe,
  };
}
