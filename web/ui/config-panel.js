/** @import { ConfigProblem } from './types.d.ts' */
import { h, clear, downloadBlob, guard } from './dom.js';
import { panelLayout } from './panel-layout.js';
import { confirmDialog } from './dialogs.js';

/**
 * Where a problem's field is written in the document: each key of the path found after the
 * previous one (good enough to put the cursor on it), or the line and column of broken JSON.
 * @param {string} text @param {string} path
 * @returns {{start: number, end: number} | null}
 */
export function locateField(text, path) {
  const lc = /^line (\d+), column (\d+)$/.exec(path);
  if (lc) {
    const lines = text.split('\n');
    const start = lines.slice(0, Number(lc[1]) - 1).reduce((n, l) => n + l.length + 1, 0) + Number(lc[2]) - 1;
    return { start, end: start + 1 };
  }
  let at = 0;
  let found = null;
  // An index ([2]) is counted on the key after it: the third "kind" after "rules" is rules[2].kind.
  let nth = 1;
  for (const key of path.split(/\.|\[(\d+)\]/).filter(Boolean)) {
    if (/^\d+$/.test(key)) {
      nth = Number(key) + 1;
      continue;
    }
    let i = at - 1;
    for (let n = 0; n < nth; n++) {
      i = text.indexOf(`"${key}"`, i + 1);
      if (i < 0) return found;
    }
    nth = 1;
    found = { start: i, end: i + key.length + 2 };
    at = found.end;
  }
  return found;
}

/** The line (from 1) an offset of the text is on. @param {string} text @param {number} offset */
export function lineAt(text, offset) {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * The Config panel: the workspace's whole configuration in one JSON editor, checked as typed
 * (every problem names its field, and choosing it puts the cursor there), saved whole or not at
 * all, exported and imported as JSON. Secrets are never shown, exported or imported; changes that
 * loosen a protection are listed and confirmed first.
 * The document is the app's (`Config`): the panel shows it as JSON and hands back what `check` made of the text.
 * @template Config
 * @param {{
 *   load: () => Config,
 *   check: (text: string) => {ok: true, value: Config} | {ok: false, problems: ConfigProblem[]},
 *   loosened: (next: Config) => string[],
 *   save: (next: Config) => Promise<void>,
 *   fileName: string,
 *   onError: (err: unknown) => void, onBack: () => void}} props
 */
export function ConfigPanel(props) {
  const guarded = guard(props.onError);
  let saved = JSON.stringify(props.load(), null, 2);
  const editor = /** @type {HTMLTextAreaElement} */ (
    h('textarea', {
      id: 'config-text',
      class: 'config-text',
      spellcheck: false,
      autocomplete: 'off',
      rows: 24,
      // Lines are not wrapped, so each has its number in the gutter beside it.
      wrap: 'off',
      'aria-describedby': 'config-help config-problems-h',
    })
  );
  editor.value = saved;
  // The line numbers (for sight: the problems name their lines in text), a line with a problem marked.
  const gutter = h('div', { class: 'config-gutter', 'aria-hidden': 'true' });
  /** @type {Set<number>} */
  let badLines = new Set();
  const drawGutter = () => {
    const count = lineAt(editor.value, editor.value.length);
    gutter.replaceChildren(
      ...Array.from({ length: count }, (_, i) => h('span', { class: badLines.has(i + 1) ? 'bad' : undefined }, String(i + 1))),
    );
    gutter.scrollTop = editor.scrollTop;
  };
  editor.addEventListener('scroll', () => {
    gutter.scrollTop = editor.scrollTop;
  });
  const status = h('p', { role: 'status', 'aria-live': 'polite', class: 'small' });
  const problemsHeading = h('p', { id: 'config-problems-h', class: 'config-check' });
  const problemList = h('ul', { class: 'config-problems', 'aria-label': 'Problems' });
  const saveBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button' }, 'Save configuration'));
  const discardBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'secondary' }, 'Discard changes'));
  const picker = /** @type {HTMLInputElement} */ (
    h('input', { type: 'file', accept: '.json,application/json', hidden: true, 'aria-label': 'Configuration file to import' })
  );

  /** Puts the cursor on a problem's field (or its broken character), scrolled into view. @param {ConfigProblem} p */
  const jump = (p) => {
    const where = locateField(editor.value, p.path);
    editor.focus();
    if (!where) return;
    editor.setSelectionRange(where.start, where.end);
    const lineHeight = Number.parseFloat(getComputedStyle(editor).lineHeight) || 20;
    editor.scrollTop = Math.max(0, (lineAt(editor.value, where.start) - 1) * lineHeight - editor.clientHeight / 3);
  };
  /** The line a problem is on, to say so ('' when its path already names it or it is not found). @param {ConfigProblem} p */
  const lineOf = (p) => {
    if (/^line \d+, column \d+$/.test(p.path)) return '';
    const where = locateField(editor.value, p.path);
    return where ? `line ${lineAt(editor.value, where.start)}` : '';
  };

  /** Validates what the editor holds and shows the result. */
  const check = () => {
    const r = props.check(editor.value);
    const changed = editor.value !== saved;
    clear(problemList);
    badLines = new Set();
    if (r.ok) {
      problemsHeading.textContent = changed ? 'Valid: ready to save.' : 'Valid. This is the saved configuration.';
      problemsHeading.className = 'config-check ok';
      editor.removeAttribute('aria-invalid');
    } else {
      problemsHeading.textContent =
        `${r.problems.length === 1 ? '1 problem' : `${r.problems.length} problems`}: nothing is saved until ` + `they are fixed.`;
      problemsHeading.className = 'config-check bad';
      editor.setAttribute('aria-invalid', 'true');
      // Each problem names its field and the line it is on; its button puts the cursor there.
      problemList.append(
        ...r.problems.map((p) => {
          const where = locateField(editor.value, p.path);
          if (where) badLines.add(lineAt(editor.value, where.start));
          const line = lineOf(p);
          return h(
            'li',
            null,
            h(
              'button',
              { type: 'button', class: 'link-btn', title: 'Go to this line', on: { click: () => jump(p) } },
              h('code', null, p.path),
              line ? h('span', { class: 'config-line' }, ` (${line})`) : null,
            ),
            `: ${p.message}`,
          );
        }),
      );
    }
    drawGutter();
    saveBtn.disabled = !r.ok || !changed;
    discardBtn.disabled = !changed;
    return r;
  };

  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  editor.addEventListener('input', () => {
    status.textContent = '';
    drawGutter();
    if (timer) clearTimeout(timer);
    timer = setTimeout(check, 250);
  });

  /** Applies a valid document, after the user confirmed what it loosens. @param {Config} value @param {string} what */
  const apply = async (value, what) => {
    const loosened = props.loosened(value);
    if (
      loosened.length &&
      !(await confirmDialog({
        title: 'Loosen protections?',
        message: `${what} changes these protections of the workspace:`,
        items: loosened,
        confirmLabel: 'Apply anyway',
      }))
    ) {
      status.textContent = 'Not saved: nothing was changed.';
      return false;
    }
    await props.save(value);
    saved = JSON.stringify(props.load(), null, 2);
    editor.value = saved;
    check();
    return true;
  };

  saveBtn.addEventListener('click', () =>
    guarded(async () => {
      const r = check();
      if (!r.ok) return;
      if (await apply(r.value, 'This configuration')) status.textContent = 'Saved. New turns use it.';
    }),
  );
  discardBtn.addEventListener('click', () => {
    saved = JSON.stringify(props.load(), null, 2);
    editor.value = saved;
    check();
    status.textContent = 'Changes discarded.';
  });
  const exportBtn = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      on: {
        click: () => {
          // What is saved, not the draft: an export is always a configuration that loads.
          downloadBlob(new Blob([`${JSON.stringify(props.load(), null, 2)}\n`], { type: 'application/json' }), props.fileName);
          status.textContent = `Exported ${props.fileName} (no API keys or tokens).`;
        },
      },
    },
    'Export JSON',
  );
  const importBtn = h('button', { type: 'button', class: 'secondary', on: { click: () => picker.click() } }, 'Import JSON…');
  picker.addEventListener('change', () =>
    guarded(async () => {
      const file = picker.files?.[0];
      picker.value = '';
      if (!file) return;
      if (file.size > 1_000_000) {
        status.textContent = `“${file.name}” is not a configuration (larger than 1 MB): nothing was changed.`;
        return;
      }
      const text = await file.text();
      editor.value = text;
      const r = check();
      if (!r.ok) {
        status.textContent = `“${file.name}” was not applied: nothing was changed. Fix the problems below and save, or discard.`;
        return;
      }
      if (await apply(r.value, `“${file.name}”`)) status.textContent = `Imported and saved “${file.name}”.`;
    }),
  );

  const root = panelLayout(
    { name: 'config', title: 'Config', onBack: props.onBack },
    h(
      'p',
      { id: 'config-help', class: 'small muted' },
      "This workspace's whole configuration: provider and model, autonomy and limits, safety, tools and their " +
        '“Always allow” rules, skills turned off, MCP servers, memory, schedule and git. ',
      "API keys and tokens are never part of it: set them in Settings (an MCP server's in the " +
        'Servers panel). Everything is checked before anything is saved.',
    ),
    h('label', { for: 'config-text' }, 'Configuration (JSON)'),
    h('div', { class: 'config-editor' }, gutter, editor),
    problemsHeading,
    problemList,
    h('div', { class: 'row' }, saveBtn, discardBtn, exportBtn, importBtn, picker),
    status,
  );
  check();
  return {
    root,
    destroy: () => {
      if (timer) clearTimeout(timer);
    },
  };
}
