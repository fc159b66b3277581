/** @import { FilesPanelController } from './types.d.ts' */
import { h, clear, downloadBlob } from './dom.js';
import { emptyState, panelLayout } from './panel-layout.js';
import { icon } from './icon.js';
import { confirmDialog, promptDialog } from './dialogs.js';
import { renderMarkdown } from '../safety/markdown.js';
import { loadEditor, languageFor } from './editor-module.js';

/** @param {number} n */
const size = (n) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);
/** @param {string} path */
const baseName = (path) => path.split('/').pop() ?? path;
/** @param {string} path */
const parentOf = (path) => path.split('/').slice(0, -1).join('/');

/** @param {File} file */
const fileSource = (file) => ({ name: file.name, bytes: async () => new Uint8Array(await file.arrayBuffer()) });

/**
 * Colours and chrome of the editor from the app's CSS variables, so light and dark follow the
 * page. (CodeMirror's styles go into the editor's shadow root as a constructed stylesheet: the
 * page's CSP allows no inline <style>.)
 * @param {typeof import('@clawser/editor')} cm
 */
function editorLook(cm) {
  const t = cm.tags;
  const highlight = cm.HighlightStyle.define([
    { tag: [t.keyword, t.operatorKeyword, t.controlKeyword, t.moduleKeyword], color: 'var(--tok-keyword)' },
    { tag: [t.string, t.special(t.string), t.regexp], color: 'var(--tok-string)' },
    { tag: [t.number, t.bool, t.atom, t.null], color: 'var(--tok-number)' },
    { tag: [t.comment, t.lineComment, t.blockComment], color: 'var(--muted)', fontStyle: 'italic' },
    { tag: [t.definition(t.variableName), t.function(t.variableName), t.definition(t.propertyName)], color: 'var(--tok-def)' },
    { tag: [t.typeName, t.className, t.tagName], color: 'var(--tok-type)' },
    { tag: [t.heading], color: 'var(--tok-def)', fontWeight: '700' },
    { tag: [t.link, t.url], color: 'var(--accent)', textDecoration: 'underline' },
    { tag: t.emphasis, fontStyle: 'italic' },
    { tag: t.strong, fontWeight: '700' },
    { tag: [t.meta, t.processingInstruction, t.attributeName], color: 'var(--tok-meta)' },
    { tag: t.invalid, color: 'var(--danger)' },
  ]);
  const theme = cm.EditorView.theme({
    '&': { color: 'var(--text)', backgroundColor: 'var(--surface)', maxHeight: '70vh', fontSize: '.9rem' },
    '&.cm-focused': { outline: '2px solid var(--focus)' },
    '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
    '.cm-content': { caretColor: 'var(--text)' },
    '.cm-cursor': { borderLeftColor: 'var(--text)' },
    '.cm-gutters': { backgroundColor: 'var(--surface-2)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
    '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'color-mix(in srgb, var(--surface-2) 70%, transparent)' },
    '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': {
      backgroundColor: 'color-mix(in srgb, var(--accent) 30%, transparent)',
    },
    '.cm-panels': { backgroundColor: 'var(--surface-2)', color: 'var(--text)' },
    '.cm-tooltip': { backgroundColor: 'var(--surface)', color: 'var(--text)', border: '1px solid var(--border)' },
  });
  return [theme, cm.syntaxHighlighting(highlight)];
}

/**
 * The Files panel: the workspace tree, an editor with syntax colouring, previews of images
 * and Markdown, and create / rename / move / delete / upload / download / ZIP.
 * @param {{files: FilesPanelController, onError: (err: unknown) => void, mount?: {supported: boolean, reason?: string, mounted: string |
 *   null, needsPermission: boolean, onMount: () => Promise<void>, onReconnect: () => Promise<void>, onUnmount: () => Promise<void>},
 *   onBack: () => void}} props
 */
export function FilesPanel(props) {
  const { files } = props;
  /** Folders shown open in the tree. */
  const expanded = new Set(['']);
  let selectedDir = '';
  /** @type {string | null} */
  let openPath = null;
  /** @type {{destroy: () => void, text: () => string} | null} */
  let editor = null;
  let dirty = false;
  const status = h('p', { class: 'small files-status', role: 'status' });
  const tree = h('ul', { class: 'file-tree', role: 'list' });
  const view = h('section', { class: 'file-view', 'aria-label': 'File' });
  const dirLabel = h('span', { class: 'small muted' });

  /** @param {() => Promise<unknown>} fn */
  const guarded = async (fn) => {
    try {
      await fn();
    } catch (err) {
      status.textContent = '';
      props.onError(err);
    }
  };

  const downloadFile = async (/** @type {string} */ path) =>
    downloadBlob(new Blob([/** @type {BlobPart} */ (await files.readBytes(path))]), baseName(path));
  /** A folder ('' = the whole workspace) as a ZIP. */
  const downloadZip = async (/** @type {string} */ dir) =>
    downloadBlob(
      new Blob([/** @type {BlobPart} */ (await files.exportZip(dir))], { type: 'application/zip' }),
      `${dir ? baseName(dir) : 'workspace'}.zip`,
    );

  const selectDir = (/** @type {string} */ dir) => {
    selectedDir = dir;
    dirLabel.textContent = `in /${dir}`;
  };

  /** @param {string} dir @param {HTMLElement} into @param {number} depth */
  async function drawDir(dir, into, depth) {
    const entries = await files.list(dir);
    if (!entries.length && depth === 0) into.append(emptyState('No files yet. Create one, upload, or drop files here.', { tag: 'li' }));
    for (const e of entries) {
      const isDir = e.kind === 'directory';
      const open = expanded.has(e.path);
      const name = h(
        'button',
        {
          type: 'button',
          class: `file-name${e.path === openPath ? ' active' : ''}`,
          style: undefined,
          'aria-expanded': isDir ? String(open) : undefined,
          'aria-current': e.path === openPath ? 'true' : undefined,
          title: e.path,
          on: {
            click: () =>
              guarded(async () => {
                if (isDir) {
                  if (open) expanded.delete(e.path);
                  else expanded.add(e.path);
                  selectDir(e.path);
                  await redraw();
                } else await openFile(e.path);
              }),
          },
        },
        icon(isDir ? (open ? 'chevron-down' : 'chevron-right') : 'file', 'file-icon'),
        e.name,
      );
      const actions = h(
        'span',
        { class: 'file-actions' },
        !isDir
          ? h(
              'button',
              {
                type: 'button',
                class: 'icon-btn',
                'aria-label': `Download ${e.path}`,
                title: 'Download',
                on: { click: () => guarded(() => downloadFile(e.path)) },
              },
              icon('download'),
            )
          : null,
        isDir
          ? h(
              'button',
              {
                type: 'button',
                class: 'icon-btn',
                'aria-label': `Export ${e.path} as ZIP`,
                title: 'Export as ZIP',
                on: { click: () => guarded(() => downloadZip(e.path)) },
              },
              icon('download'),
            )
          : null,
        h(
          'button',
          {
            type: 'button',
            class: 'icon-btn',
            'aria-label': `Rename or move ${e.path}`,
            title: 'Rename / move',
            on: { click: () => guarded(() => renameEntry(e.path)) },
          },
          icon('pencil'),
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'icon-btn',
            'aria-label': `Delete ${e.path}`,
            title: 'Delete',
            on: { click: () => guarded(() => deleteEntry(e.path, isDir)) },
          },
          icon('x'),
        ),
      );
      const li = h(
        'li',
        { class: `file-row depth-${Math.min(depth, 8)}` },
        h('div', { class: 'file-line' }, name, h('span', { class: 'small muted file-size' }, isDir ? '' : size(e.size ?? 0)), actions),
      );
      into.append(li);
      if (isDir && open) {
        const sub = h('ul', { role: 'list' });
        li.append(sub);
        await drawDir(e.path, sub, depth + 1);
      }
    }
  }

  async function redraw() {
    const fresh = h('ul', { class: 'file-tree', role: 'list' });
    await drawDir('', fresh, 0);
    tree.replaceChildren(...fresh.childNodes);
  }

  /** Asks before leaving unsaved edits. */
  async function leaveEditor() {
    if (!dirty) return true;
    return confirmDialog({
      title: 'Discard unsaved changes?',
      message: `Your edits to “${openPath}” are not saved.`,
      confirmLabel: 'Discard changes',
    });
  }

  function closeView() {
    editor?.destroy();
    editor = null;
    dirty = false;
    openPath = null;
    clear(view).append(h('p', { class: 'muted' }, 'Choose a file to open it.'));
  }

  /** @param {string} path */
  async function openFile(path) {
    if (path !== openPath && !(await leaveEditor())) return;
    const file = await files.open(path);
    editor?.destroy();
    editor = null;
    dirty = false;
    openPath = file.path;
    selectDir(parentOf(file.path));
    const title = h('h2', { class: 'file-title' }, file.path);
    const meta = h('span', { class: 'small muted file-size' }, size(file.size));
    const download = h(
      'button',
      { type: 'button', class: 'secondary', on: { click: () => guarded(() => downloadFile(file.path)) } },
      'Download',
    );
    const head = h('div', { class: 'file-head' }, title, meta, download);
    clear(view).append(head);
    if (file.kind === 'image') {
      const url = URL.createObjectURL(new Blob([/** @type {BlobPart} */ (file.bytes)], { type: file.mediaType }));
      view.append(h('img', { class: 'file-image', src: url, alt: `Preview of ${file.path}` }));
    } else if (file.kind === 'binary') {
      view.append(
        h('p', { class: 'muted' }, 'This is a binary file; it cannot be shown as text. Download it to open it with another program.'),
      );
    } else {
      const isMarkdown = ['md', 'markdown'].includes(props.files.extensionOf(file.path));
      const holder = h('div', { class: 'editor-holder' });
      const preview = h('div', { class: 'markdown file-preview', hidden: true });
      const save = h('button', { type: 'button', disabled: true, on: { click: () => guarded(saveFile) } }, 'Save');
      const previewToggle = isMarkdown
        ? h('button', { type: 'button', class: 'secondary', 'aria-pressed': 'false', on: { click: () => togglePreview() } }, 'Preview')
        : null;
      head.append(...(file.editable ? [save] : []), ...(previewToggle ? [previewToggle] : []));
      if (!file.editable)
        view.append(h('p', { class: 'notice warn small' }, 'This file is too large to edit here; the first part is shown read-only.'));
      view.append(holder, preview);
      const setDirty = (/** @type {boolean} */ d) => {
        dirty = d;
        save.disabled = !d;
        title.textContent = d ? `${file.path} •` : file.path;
      };
      const togglePreview = () => {
        const on = preview.hidden;
        if (on) preview.innerHTML = renderMarkdown(editor?.text() ?? file.text); // renderMarkdown sanitizes (web/safety/markdown.js)
        preview.hidden = !on;
        holder.hidden = on;
        previewToggle?.setAttribute('aria-pressed', String(on));
      };
      const saveFile = async () => {
        if (!editor || !openPath) return;
        meta.textContent = size(await files.save(openPath, editor.text()));
        setDirty(false);
        status.textContent = `Saved ${openPath}.`;
      };
      const cm = await loadEditor();
      if (openPath !== file.path) return; // another file was opened meanwhile
      // In a shadow root, CodeMirror's styles are constructed stylesheets, which the CSP allows.
      const shadow = holder.shadowRoot ?? holder.attachShadow({ mode: 'open' });
      const view_ = new cm.EditorView({
        parent: shadow,
        root: shadow,
        state: cm.EditorState.create({
          doc: file.text,
          extensions: [
            cm.basicSetup,
            languageFor(cm, props.files.extensionOf(file.path)),
            editorLook(cm),
            cm.EditorView.lineWrapping,
            cm.EditorState.readOnly.of(!file.editable),
            cm.EditorView.contentAttributes.of({ 'aria-label': `Contents of ${file.path}` }),
            cm.keymap.of([
              {
                key: 'Mod-s',
                preventDefault: true,
                run: () => {
                  if (dirty) guarded(saveFile);
                  return true;
                },
              },
            ]),
            cm.EditorView.updateListener.of((u) => {
              if (u.docChanged) setDirty(true);
            }),
          ],
        }),
      });
      editor = { destroy: () => view_.destroy(), text: () => view_.state.doc.toString() };
    }
    await redraw();
  }

  /** @param {string} path */
  async function renameEntry(path) {
    const next = await promptDialog({
      title: `Rename or move “${baseName(path)}”`,
      label: 'New path (folders are created as needed)',
      value: path,
      submitLabel: 'Rename',
    });
    if (!next || next === path) return;
    const moved = await files.move(path, next);
    if (openPath === path || openPath?.startsWith(`${path}/`)) openPath = moved + (openPath === path ? '' : openPath.slice(path.length));
    status.textContent = `Moved to ${moved}.`;
    if (openPath && editor && !dirty) await openFile(openPath);
    else if (openPath === moved) clear(view).append(h('p', null, `Moved to ${moved}.`));
    await redraw();
  }

  /** @param {string} path @param {boolean} isDir */
  async function deleteEntry(path, isDir) {
    const ok = await confirmDialog({
      title: `Delete “${baseName(path)}”?`,
      message: isDir
        ? `The folder ${path} and everything in it are deleted. If the workspace is versioned with git, committed content can be ` +
          `restored from the Git panel.`
        : `${path} is deleted. If it was committed, it can be restored from the Git panel.`,
      confirmLabel: 'Delete',
    });
    if (!ok) return;
    await files.remove(path);
    if (openPath && (openPath === path || openPath.startsWith(`${path}/`))) closeView();
    status.textContent = `Deleted ${path}.`;
    await redraw();
  }

  /** @param {'file' | 'directory'} kind */
  async function createEntry(kind) {
    const name = await promptDialog({
      title: kind === 'file' ? 'New file' : 'New folder',
      label: `Name (in /${selectedDir})`,
      value: '',
      submitLabel: 'Create',
    });
    if (!name) return;
    const path = await files.create(selectedDir ? `${selectedDir}/${name}` : name, kind);
    if (kind === 'directory') expanded.add(path);
    else expanded.add(parentOf(path));
    await redraw();
    if (kind === 'file') await openFile(path);
    status.textContent = `Created ${path}.`;
  }

  /** @param {FileList | File[]} list */
  async function uploadFiles(list) {
    const plain = [...list];
    if (plain.length) {
      let r = await files.upload(selectedDir, plain.map(fileSource));
      const clashes = r.skipped.filter((s) => s.reason === 'a file with this name exists');
      if (
        clashes.length &&
        (await confirmDialog({
          title: 'Replace existing files?',
          message: `${clashes.map((c) => c.name).join(', ')} already exist in /${selectedDir}.`,
          confirmLabel: 'Replace',
        }))
      ) {
        const again = await files.upload(selectedDir, plain.filter((f) => clashes.some((c) => c.name === f.name)).map(fileSource), {
          replace: true,
        });
        r = { written: [...r.written, ...again.written], skipped: [...r.skipped.filter((s) => !clashes.includes(s)), ...again.skipped] };
      }
      status.textContent = `Uploaded ${r.written.length} file(s) to /${selectedDir}${
        r.skipped.length ? `; ` + `skipped ${r.skipped.map((s) => `${s.name} (${s.reason})`).join(', ')}` : ''
      }.`;
    }
    expanded.add(selectedDir);
    await redraw();
  }

  const picker = h('input', { type: 'file', multiple: true, hidden: true, 'aria-label': 'Choose files to upload' });
  picker.addEventListener('change', () =>
    guarded(async () => {
      await uploadFiles(picker.files ?? []);
      picker.value = '';
    }),
  );
  const zipPicker = h('input', {
    type: 'file',
    accept: '.zip,application/zip',
    hidden: true,
    'aria-label': 'Choose a ZIP archive to import',
  });
  zipPicker.addEventListener('change', () =>
    guarded(async () => {
      for (const z of zipPicker.files ?? []) {
        const r = await files.importZip(selectedDir, new Uint8Array(await z.arrayBuffer()));
        status.textContent = `Imported ${r.written.length} file(s) from ${z.name} into /${selectedDir}${
          r.refused.length
            ? `; refused ${r.refused.length}: ${r.refused
                .slice(0, 5)
                .map((x) => `${x.name} (${x.reason})`)
                .join(', ')}`
            : ''
        }.`;
      }
      zipPicker.value = '';
      expanded.add(selectedDir);
      await redraw();
    }),
  );

  const mount = props.mount;
  const mountControls = !mount
    ? null
    : !mount.supported
      ? h(
          'p',
          { class: 'small muted mount-note' },
          `Opening a folder from this computer is not available: ${mount.reason ?? 'this browser has no File System Access API'}. Files ` +
            `stay in the browser's private storage.`,
        )
      : mount.mounted
        ? h(
            'div',
            { class: 'row mount-note' },
            h(
              'span',
              { class: 'small' },
              mount.needsPermission ? `Folder “${mount.mounted}” needs your permission again.` : `Showing your folder “${mount.mounted}”.`,
            ),
            mount.needsPermission
              ? h('button', { type: 'button', on: { click: () => guarded(mount.onReconnect) } }, 'Allow access to the folder')
              : null,
            h('button', { type: 'button', class: 'secondary', on: { click: () => guarded(mount.onUnmount) } }, 'Stop using this folder'),
          )
        : h(
            'button',
            { type: 'button', class: 'secondary', on: { click: () => guarded(mount.onMount) } },
            'Open a folder from this computer',
          );

  const toolbar = h(
    'div',
    { class: 'files-toolbar row', role: 'toolbar', 'aria-label': 'File actions' },
    h('button', { type: 'button', on: { click: () => guarded(() => createEntry('file')) } }, 'New file'),
    h('button', { type: 'button', class: 'secondary', on: { click: () => guarded(() => createEntry('directory')) } }, 'New folder'),
    h('button', { type: 'button', class: 'secondary', on: { click: () => picker.click() } }, 'Upload files'),
    h('button', { type: 'button', class: 'secondary', on: { click: () => zipPicker.click() } }, 'Import ZIP'),
    h('button', { type: 'button', class: 'secondary', on: { click: () => guarded(() => downloadZip('')) } }, 'Export workspace as ZIP'),
    dirLabel,
    picker,
    zipPicker,
  );

  const root = panelLayout(
    { name: 'files', title: 'Files', onBack: props.onBack },
    mountControls,
    toolbar,
    status,
    h('div', { class: 'files-body' }, h('nav', { class: 'file-tree-wrap', 'aria-label': 'Workspace files' }, tree), view),
  );
  // Drag & drop anywhere on the panel uploads into the selected folder.
  root.addEventListener('dragover', (e) => {
    if (e.dataTransfer?.types.includes('Files')) {
      e.preventDefault();
      root.classList.add('drop-target');
    }
  });
  root.addEventListener('dragleave', (e) => {
    if (e.target === root) root.classList.remove('drop-target');
  });
  root.addEventListener('drop', (e) => {
    e.preventDefault();
    root.classList.remove('drop-target');
    if (e.dataTransfer?.files.length) guarded(() => uploadFiles(e.dataTransfer?.files ?? []));
  });
  const beforeUnload = (/** @type {BeforeUnloadEvent} */ e) => {
    if (dirty) e.preventDefault();
  };
  addEventListener('beforeunload', beforeUnload);
  const unsubscribe = files.subscribe(() => {
    guarded(redraw);
  });
  selectDir('');
  closeView();
  guarded(redraw);
  return {
    root,
    /** For a path given in the route: open it. @param {string} path */
    open: (path) => guarded(() => openFile(path)),
    destroy: () => {
      unsubscribe();
      removeEventListener('beforeunload', beforeUnload);
      editor?.destroy();
    },
  };
}
