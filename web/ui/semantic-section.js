import { h, clear, guard } from './dom.js';
import { confirmDialog } from './dialogs.js';

/** @param {number} n */
const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/**
 * @typedef {object} SemanticProps
 * @property {(fn: (s: {state: string, message: string}) => void) => () => void} subscribeQueue
 *   the memory's embedding state: semantic search on/off and the background queue
 * @property {() => Promise<{installed: boolean, modelId: string, files: {path: string, size: number}[], totalBytes: number}>} describe
 * @property {string} hubUrl where the model is downloaded from
 * @property {(url: string) => void} onHubUrl
 * @property {(onProgress: (p: {phase: string, loaded: number, total: number, file?: string}) => void, signal: AbortSignal) =>
 *   Promise<void>} download
 * @property {(files: File[]) => Promise<void>} importFiles files of the model folder (with webkitRelativePath)
 * @property {(zip: File) => Promise<void>} importZip
 * @property {() => Promise<void>} remove
 * @property {(err: unknown) => void} onError
 */

/**
 * The Memory panel's semantic-search section: whether it is on, the background embedding
 * queue, and installing the embedding model (download with progress, or import a folder or
 * ZIP for machines without internet), or removing it.
 * @param {SemanticProps} props
 */
export function SemanticSection(props) {
  const queue = h('p', { class: 'small', role: 'status', 'aria-live': 'polite', id: 'semantic-state' });
  const body = h('div', { class: 'semantic-body' });
  const progress = h('progress', { max: 1, value: 0, 'aria-label': 'Model download', hidden: true });
  const progressText = h('span', { class: 'small muted', 'aria-live': 'polite' });
  const folderPicker = h('input', { type: 'file', hidden: true, 'aria-label': 'Model folder', webkitdirectory: true, multiple: true });
  const zipPicker = h('input', { type: 'file', hidden: true, accept: '.zip,application/zip', 'aria-label': 'Model ZIP file' });
  /** @type {AbortController | null} */
  let downloading = null;

  const guarded = guard(props.onError);

  const draw = async () => {
    const d = await props.describe();
    if (d.installed) {
      clear(body).append(
        h(
          'p',
          { class: 'small' },
          `Model ${d.modelId} is installed in this browser (${mb(d.totalBytes)}, ${d.files.length} files); it works offline.`,
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small-btn',
            on: {
              click: () =>
                guarded(async () => {
                  const ok = await confirmDialog({
                    title: 'Remove the embedding model?',
                    message:
                      'Semantic search turns off; keyword search keeps working. Stored memories ' +
                      'are not changed. You can install the model again later.',
                    confirmLabel: 'Remove model',
                  });
                  if (!ok) return;
                  await props.remove();
                  await draw();
                }),
            },
          },
          'Remove the model',
        ),
      );
      return;
    }
    const hub = h('input', { id: 'model-hub', type: 'url', value: props.hubUrl, autocomplete: 'off' });
    hub.addEventListener('change', () => props.onHubUrl(hub.value.trim()));
    const downloadBtn = h('button', { type: 'button', class: 'small-btn' }, `Download ${d.modelId} (about 23 MB)`);
    const cancel = h('button', { type: 'button', class: 'secondary small-btn', hidden: true }, 'Cancel download');
    cancel.addEventListener('click', () => downloading?.abort());
    downloadBtn.addEventListener('click', () =>
      guarded(async () => {
        props.onHubUrl(hub.value.trim());
        downloading = new AbortController();
        downloadBtn.disabled = true;
        cancel.hidden = false;
        progress.hidden = false;
        let frame = 0;
        try {
          await props.download((p) => {
            // Progress arrives per network chunk: redraw at most once a frame.
            if (frame) return;
            frame = requestAnimationFrame(() => {
              frame = 0;
              progress.max = p.total || 1;
              progress.value = p.loaded;
              progressText.textContent =
                p.phase === 'download'
                  ? `${mb(p.loaded)} of ${mb(p.total)}${p.file ? ` · ${p.file}` : ''}`
                  : p.phase === 'done'
                    ? 'Installed.'
                    : `${p.phase}…`;
            });
          }, downloading.signal);
          progressText.textContent = 'Installed.';
        } finally {
          downloading = null;
          downloadBtn.disabled = false;
          cancel.hidden = true;
          progress.hidden = true;
          await draw();
        }
      }),
    );
    clear(body).append(
      h(
        'p',
        { class: 'small' },
        'Install the embedding model once to search memories by meaning. It stays in this browser and works offline.',
      ),
      h('div', { class: 'row' }, downloadBtn, cancel, progress, progressText),
      h('div', { class: 'field' }, h('label', { for: 'model-hub' }, 'Download from (the Hugging Face hub, or a mirror)'), hub),
      h(
        'p',
        { class: 'small' },
        'No internet on this computer? Copy the model folder (config.json, tokenizer.json, ' +
          'tokenizer_config.json, onnx/model_quantized.onnx) or a ZIP of it here:',
      ),
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', class: 'secondary small-btn', on: { click: () => folderPicker.click() } }, 'Import the model folder'),
        h('button', { type: 'button', class: 'secondary small-btn', on: { click: () => zipPicker.click() } }, 'Import a model ZIP'),
      ),
    );
  };

  folderPicker.addEventListener('change', () =>
    guarded(async () => {
      const files = [...(folderPicker.files ?? [])];
      folderPicker.value = '';
      if (!files.length) return;
      progressText.textContent = 'Importing…';
      await props.importFiles(files);
      progressText.textContent = 'Installed.';
      await draw();
    }),
  );
  zipPicker.addEventListener('change', () =>
    guarded(async () => {
      const file = zipPicker.files?.[0];
      zipPicker.value = '';
      if (!file) return;
      progressText.textContent = 'Importing…';
      await props.importZip(file);
      progressText.textContent = 'Installed.';
      await draw();
    }),
  );

  const unsubscribe = props.subscribeQueue((s) => {
    queue.textContent = s.message;
  });
  guarded(draw);
  const root = h(
    'section',
    { class: 'card semantic', 'aria-labelledby': 'semantic-title' },
    h('h3', { id: 'semantic-title' }, 'Semantic search'),
    queue,
    body,
    folderPicker,
    zipPicker,
  );
  return {
    root,
    destroy: () => {
      unsubscribe();
      downloading?.abort();
    },
  };
}
