/** @import { MemoryStore, MemoryEntry } from '../memory/store.js' */
/** @import { MemorySummaries, SummaryMode, SummariesState } from '../memory/summaries.js' */
import { h, clear, downloadBlob, guard } from './dom.js';
import { emptyState, panelLayout } from './panel-layout.js';
import { icon } from './icon.js';
import { confirmDialog, formDialog } from './dialogs.js';

/** Entries drawn at once; "Show more" adds as many again (100,000 entries stay responsive). */
const PAGE = 100;

/** Who added a memory, in words (its category can be "user" too: "user · user" said nothing). @param {string} source */
const sourceWords = (source) => (source === 'user' ? 'added by you' : source === 'agent' ? 'stored by the agent' : `from ${source}`);

/**
 * The Memory panel: search (the same ranking the agent's recall uses), filter by category,
 * add, edit, pin, delete, import and export the workspace's long-term memories.
 * @param {{memory: MemoryStore, semantic?: {root: HTMLElement, destroy: () => void}, recall: {autoRecall: boolean, recallLimit: number},
 *   onRecall: (r: {autoRecall: boolean, recallLimit: number}) => void,
 *   summaries?: {maker: MemorySummaries, mode: SummaryMode, onMode: (mode: SummaryMode) => void, over: number, current: (m: MemoryEntry) =>
 *   {text: string, by: string} | null},
 *   onError: (err: unknown) => void, onBack: () => void}} props
 *   semantic: the semantic-search (embedding model) section, when the host provides one; summaries: who summarizes long
 *   memories, above how many characters (`over`), and a memory's summary of its current text (`current`)
 */
export function MemoryPanel(props) {
  const { memory } = props;
  const status = h('p', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const list = h('div', { class: 'memory-list' });
  const search = h('input', { id: 'memory-search', type: 'search', autocomplete: 'off', placeholder: 'Search memories' });
  const category = h(
    'select',
    { id: 'memory-category', 'aria-label': 'Category' },
    h('option', { value: '' }, 'All categories'),
    ...props.memory.categories.map((c) => h('option', { value: c }, c)),
  );
  const importPicker = h('input', { type: 'file', accept: 'application/json,.json', hidden: true, 'aria-label': 'Import memories file' });
  let shown = PAGE;

  const guarded = guard(props.onError);

  /** @param {Partial<MemoryEntry>} [entry] */
  const editForm = (entry) =>
    formDialog({
      title: entry ? 'Edit memory' : 'New memory',
      fields: [
        { name: 'key', label: 'Key (a short name; the same key replaces an older memory)', value: entry?.key ?? '', required: true },
        { name: 'content', label: 'Content', value: entry?.content ?? '', multiline: true, required: true },
        { name: 'category', label: 'Category', value: entry?.category ?? 'user', options: [...props.memory.categories] },
      ],
      submitLabel: entry ? 'Save' : 'Remember',
    });

  /** A long memory's summary (what the agent gets instead of the whole text), and who made it. @param {MemoryEntry} m */
  const summaryOf = (m) => {
    if (!props.summaries || m.content.length <= props.summaries.over) return null;
    const s = props.summaries.current(m);
    if (!s) return h('p', { class: 'small muted memory-summary' }, 'No summary yet: the agent gets this memory in full.');
    return h(
      'p',
      { class: 'small memory-summary' },
      h('strong', null, s.by === 'on-device' ? 'Summary (made on this device): ' : `Summary (made by ${s.by}): `),
      s.text,
    );
  };

  /** @param {MemoryEntry & {score?: number}} m */
  const item = (m) =>
    h(
      'li',
      { class: `memory card${m.pinned ? ' pinned' : ''}`, 'data-memory': m.id },
      h(
        'div',
        { class: 'row memory-head' },
        h(
          'h4',
          null,
          m.pinned
            ? h('span', { class: 'pin-mark', role: 'img', 'aria-label': 'Pinned', title: 'Pinned: always given to the agent' }, icon('pin'))
            : null,
          m.key,
        ),
        h(
          'span',
          { class: 'small muted' },
          `Category: ${m.category} · ${sourceWords(m.source)} · ${new Date(m.timestamp).toLocaleString()}${
            m.score !== undefined ? ` · ` + `score ${m.score.toFixed(2)}` : ''
          }`,
        ),
      ),
      h('p', { class: 'memory-content' }, m.content),
      summaryOf(m),
      h(
        'div',
        { class: 'row' },
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small-btn',
            'aria-label': `${m.pinned ? 'Unpin' : 'Pin'} ${m.key}`,
            on: {
              click: () =>
                guarded(async () => {
                  await memory.update(m.id, { pinned: !m.pinned });
                  await draw();
                }),
            },
          },
          m.pinned ? 'Unpin' : 'Pin',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small-btn',
            'aria-label': `Edit ${m.key}`,
            on: {
              click: () =>
                guarded(async () => {
                  const r = await editForm(m);
                  if (!r) return;
                  await memory.update(m.id, {
                    key: String(r.key),
                    content: String(r.content),
                    category: /** @type {MemoryEntry['category']} */ (String(r.category)),
                  });
                  status.textContent = `Saved “${r.key}”.`;
                  await draw();
                }),
            },
          },
          'Edit',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small-btn danger',
            'aria-label': `Delete ${m.key}`,
            on: {
              click: () =>
                guarded(async () => {
                  const ok = await confirmDialog({
                    title: `Forget “${m.key}”?`,
                    message: 'The agent will no longer recall this memory. This cannot be undone (unless you exported it).',
                    confirmLabel: 'Forget',
                  });
                  if (!ok) return;
                  await memory.forget(m.id);
                  status.textContent = `Forgot “${m.key}”.`;
                  await draw();
                }),
            },
          },
          'Delete',
        ),
      ),
    );

  const draw = async () => {
    const query = search.value.trim();
    const categories = category.value ? [category.value] : undefined;
    /** @type {(MemoryEntry & {score?: number})[]} */
    const entries = query
      ? await memory.recall(query, { limit: shown, categories })
      : (await memory.list({ category: category.value || undefined })).sort((a, b) => Number(!!b.pinned) - Number(!!a.pinned));
    const page = entries.slice(0, shown);
    clear(list).append(
      h(
        'p',
        { class: 'small muted' },
        query
          ? `${entries.length} best match${entries.length === 1 ? '' : 'es'}`
          : `${entries.length} memor${entries.length === 1 ? 'y' : 'ies'}`,
      ),
      page.length
        ? h('ul', { class: 'memories' }, ...page.map(item))
        : emptyState(query ? 'No memory matches.' : 'No memories yet. The agent stores what it learns; you can add memories here too.'),
      !query && entries.length > shown
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              on: {
                click: () => {
                  shown += PAGE;
                  guarded(draw);
                },
              },
            },
            `Show more (${entries.length - shown} more)`,
          )
        : '',
    );
  };
  let searchTimer = 0;
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    // Typing is not blocked by searching 100,000 entries on every key.
    searchTimer = /** @type {any} */ (
      setTimeout(() => {
        shown = PAGE;
        guarded(draw);
      }, 120)
    ); // timer id (number in browsers)
  });
  category.addEventListener('change', () => {
    shown = PAGE;
    guarded(draw);
  });
  importPicker.addEventListener('change', () =>
    guarded(async () => {
      const file = importPicker.files?.[0];
      importPicker.value = '';
      if (!file) return;
      let data;
      try {
        data = JSON.parse(await file.text());
      } catch {
        throw new Error(`“${file.name}” is not a JSON file exported from Clawser's memory.`);
      }
      let r;
      try {
        r = await memory.importJson(data);
      } catch (err) {
        throw new Error(
          `“${file.name}” is not a valid memory export (nothing was imported): ${/** @type {Error} */ (err).message.slice(0, 300)}`,
        );
      }
      status.textContent = `Imported ${r.imported} memor${r.imported === 1 ? 'y' : 'ies'}${
        r.skipped ? `; ${r.skipped} skipped (a newer ` + `memory with the same key exists)` : ''
      }.`;
      await draw();
    }),
  );

  const autoRecall = h('input', { id: 'memory-auto', type: 'checkbox', checked: props.recall.autoRecall });
  const recallLimit = h('input', {
    id: 'memory-limit',
    type: 'number',
    min: 1,
    max: 20,
    value: String(props.recall.recallLimit),
    disabled: !props.recall.autoRecall,
  });
  const saveRecall = () => {
    const n = Math.min(20, Math.max(1, Math.round(Number(recallLimit.value) || 5)));
    recallLimit.value = String(n);
    recallLimit.disabled = !autoRecall.checked;
    props.onRecall({ autoRecall: autoRecall.checked, recallLimit: n });
    // Summaries serve recall: on again, the ones missing are made.
    if (props.summaries) {
      props.summaries.maker.schedule();
      showSummaries(props.summaries.maker.state);
    }
  };
  autoRecall.addEventListener('change', saveRecall);
  recallLimit.addEventListener('change', saveRecall);
  const recallSettings = h(
    'div',
    { class: 'row memory-recall' },
    autoRecall,
    h('label', { for: 'memory-auto' }, 'Give the agent the most relevant memories with each message'),
    h('label', { for: 'memory-limit' }, 'At most'),
    recallLimit,
  );

  /** Who summarizes long memories, and how far they are. */
  const summaryStatus = h('p', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const retry = h(
    'button',
    { type: 'button', class: 'secondary small-btn', hidden: true, on: { click: () => props.summaries?.maker.retry() } },
    'Try the summaries again',
  );
  const summaryMode = h(
    'select',
    { id: 'memory-summaries' },
    h('option', { value: 'auto' }, 'On this device, else the chat model'),
    h('option', { value: 'on-device' }, 'Only on this device'),
    h('option', { value: 'off' }, 'Off'),
  );
  summaryMode.value = props.summaries?.mode ?? 'auto';
  summaryMode.addEventListener('change', () => {
    props.summaries?.onMode(/** @type {SummaryMode} */ (summaryMode.value));
    props.summaries?.maker.retry();
  });
  /** @param {SummariesState} st */
  const showSummaries = (st) => {
    const mode = summaryMode.value;
    const device =
      st.onDevice === false
        ? "Chrome's on-device Summarizer is not ready in this browser (not supported, or its model is not downloaded)"
        : st.onDevice
          ? "Chrome's on-device Summarizer is ready"
          : '';
    const waiting = st.pending
      ? `${st.pending} long memor${st.pending === 1 ? 'y is' : 'ies are'} ${st.working ? 'being summarized' : 'without a summary'}`
      : '';
    const parts = !autoRecall.checked
      ? ['Automatic recall is off: memories are not given with messages, and no summaries are made.']
      : [
          mode === 'off'
            ? 'Long memories are given to the agent in full.'
            : `Memories over ${(props.summaries?.over ?? 0).toLocaleString('en')} characters are given to the agent as a summary, made ` +
              `by Chrome's built-in Summarizer${mode === 'auto' ? ' or else by the chat model (its tokens count toward cost)' : ''}.`,
          mode !== 'off' && device
            ? `${device}${st.onDevice === false && mode === 'auto' ? '; the chat model makes the summaries' : ''}.`
            : '',
          waiting ? `${waiting}.` : '',
          st.error ?? '',
        ];
    summaryStatus.textContent = parts.filter(Boolean).join(' ');
    retry.hidden = !st.error;
  };
  const unwatchSummaries = props.summaries?.maker.subscribe(showSummaries);
  // Opening the panel tries again what failed a while ago (a key fixed, a limit reset since).
  props.summaries?.maker.schedule();
  const summarySettings = props.summaries
    ? h(
        'div',
        { class: 'memory-summaries' },
        h('div', { class: 'row' }, h('label', { for: 'memory-summaries' }, 'Summaries of long memories'), summaryMode),
        summaryStatus,
        retry,
      )
    : null;

  const root = panelLayout(
    { name: 'memory', title: 'Memory', onBack: props.onBack },
    h(
      'div',
      { class: 'row memory-tools' },
      h('label', { for: 'memory-search', class: 'sr-only' }, 'Search memories'),
      search,
      category,
      h(
        'button',
        {
          type: 'button',
          on: {
            click: () =>
              guarded(async () => {
                const r = await editForm();
                if (!r) return;
                const e = await memory.store({
                  key: String(r.key),
                  content: String(r.content),
                  category: /** @type {MemoryEntry['category']} */ (String(r.category)),
                  source: 'user',
                });
                status.textContent = `Remembered “${e.key}”.`;
                await draw();
              }),
          },
        },
        'Add memory',
      ),
      h('button', { type: 'button', class: 'secondary', on: { click: () => importPicker.click() } }, 'Import'),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          on: {
            click: () =>
              guarded(async () => {
                const data = await memory.exportJson();
                downloadBlob(
                  new Blob([JSON.stringify(data, null, 1)], { type: 'application/json' }),
                  `clawser-memory-${new Date().toISOString().slice(0, 10)}.json`,
                );
                status.textContent = `Exported ${data.entries.length} memories.`;
              }),
          },
        },
        'Export',
      ),
      importPicker,
    ),
    recallSettings,
    summarySettings,
    props.semantic?.root ?? null,
    status,
    list,
  );
  guarded(draw);
  // Changes from the agent or another tab show without leaving the panel.
  let redraw = 0;
  const unsubscribe = memory.subscribe(() => {
    cancelAnimationFrame(redraw);
    redraw = requestAnimationFrame(() => guarded(draw));
  });
  return {
    root,
    destroy: () => {
      clearTimeout(searchTimer);
      cancelAnimationFrame(redraw);
      unsubscribe();
      unwatchSummaries?.();
      props.semantic?.destroy();
    },
  };
}
