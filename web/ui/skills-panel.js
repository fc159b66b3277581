/** @import { SkillStore, SkillEntry, SkillScope } from '../skills/store.js' */
/** @import { SkillSource } from '../skills/sources.js' */
import { h, clear, downloadBlob, guard } from './dom.js';
import { emptyState, panelLayout } from './panel-layout.js';
import { confirmDialog, formDialog } from './dialogs.js';

/**
 * The Skills panel: the installed Agent Skills (this workspace's and every workspace's) with
 * search, details (frontmatter, where it came from, files, validation messages), enable per
 * workspace, write one (the user's own), install (ZIP, folder, URL), export as ZIP, delete, and update checks against a registry the user
 * chooses (off until they turn it on).
 * @param {{skills: SkillStore, sources: typeof import('../skills/sources.js'), registry: typeof import('../skills/registry.js'),
 *   onError: (err: unknown) => void, onBack: () => void}} props
 */
export function SkillsPanel(props) {
  const { skills, sources } = props;
  const status = h('p', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const list = h('div', { class: 'skill-list' });
  const search = h('input', { id: 'skills-search', type: 'search', autocomplete: 'off', placeholder: 'Search skills' });
  const scope = h(
    'select',
    { id: 'skills-scope' },
    h('option', { value: 'workspace' }, 'This workspace'),
    h('option', { value: 'global' }, 'Every workspace'),
  );
  const zipPicker = h('input', {
    type: 'file',
    accept: '.zip,application/zip',
    hidden: true,
    multiple: true,
    'aria-label': 'Skill ZIP files',
  });
  const folderPicker = h('input', { type: 'file', hidden: true, 'aria-label': 'Skill folder', webkitdirectory: '' });
  const guarded = guard(props.onError);

  /**
   * Installs what a source yielded, every skill of it (or only `only`, into `into`); says what happened.
   * @param {SkillSource[]} found @param {{only?: string, into?: SkillScope}} [options]
   */
  const installAll = async (found, options = {}) => {
    const done = [];
    const failed = [];
    const target = options.into ?? /** @type {SkillScope} */ (scope.value);
    const wanted = options.only ? found.filter((s) => s.dirName === options.only) : found;
    if (options.only && !wanted.length) failed.push(`The download has no skill named “${options.only}”; nothing was changed.`);
    for (const s of wanted) {
      try {
        const v = await skills.install(s.dirName, s.files, { scope: target, origin: s.origin });
        done.push(`“${v.skill?.name}”${v.warnings.length ? ` (${v.warnings.length} warning${v.warnings.length === 1 ? '' : 's'})` : ''}`);
      } catch (err) {
        failed.push(/** @type {Error} */ (err).message);
      }
      if (s.refused.length)
        failed.push(
          `${s.refused.length} file${s.refused.length === 1 ? '' : 's'} of the archive were left out (${s.refused
            .slice(0, 3)
            .map((r) => `${r.name}: ${r.reason}`)
            .join('; ')}).`,
        );
    }
    status.textContent = [
      done.length ? `Installed ${done.join(', ')} for ${target === 'global' ? 'every workspace' : 'this workspace'}.` : '',
      ...failed,
    ]
      .filter(Boolean)
      .join(' ');
    await draw();
  };

  zipPicker.addEventListener('change', () =>
    guarded(async () => {
      const files = [...(zipPicker.files ?? [])];
      zipPicker.value = '';
      /** @type {SkillSource[]} */
      const found = [];
      for (const f of files) found.push(...sources.skillsFromZip(new Uint8Array(await f.arrayBuffer()), f.name));
      await installAll(found);
    }),
  );
  folderPicker.addEventListener('change', () =>
    guarded(async () => {
      const found = await sources.skillsFromFileList(folderPicker.files ?? []);
      folderPicker.value = '';
      await installAll(found);
    }),
  );
  const pickFolder = () =>
    guarded(async () => {
      const picker = /** @type {any} */ (globalThis).showDirectoryPicker; // File System Access: not in TypeScript's DOM types
      if (typeof picker !== 'function') {
        folderPicker.click();
        return;
      }
      let handle;
      try {
        handle = await picker({ mode: 'read' });
      } catch (err) {
        if (/** @type {Error} */ (err).name === 'AbortError') return;
        throw err;
      }
      await installAll(await sources.skillsFromDirectoryHandle(handle));
    });
  const fromUrl = () =>
    guarded(async () => {
      const r = await formDialog({
        title: 'Install a skill from a URL',
        description: "The address of a skill's ZIP or of its SKILL.md. The server must allow browsers to download it (CORS).",
        fields: [{ name: 'url', label: 'Skill URL', type: 'url', required: true, placeholder: 'https://example.com/pdf-tools.zip' }],
        submitLabel: 'Install',
      });
      if (!r) return;
      status.textContent = 'Downloading…';
      await installAll(await sources.skillsFromUrl(String(r.url)));
    });

  // A skill the user writes here is theirs: its instructions are not outside content (a
  // downloaded skill's, a ZIP's or a folder's are: SkillStore.origin).
  const write = () =>
    guarded(async () => {
      const target = /** @type {SkillScope} */ (scope.value);
      const r = await formDialog({
        title: 'Write a skill',
        description:
          'Instructions you write yourself, offered to the agent when a task matches. Skills you install from a ZIP, ' +
          "a folder or a URL are someone else's text: the agent treats them as outside content.",
        fields: [
          { name: 'name', label: 'Name', required: true, placeholder: 'meeting-notes', hint: 'Lowercase letters, digits and hyphens.' },
          {
            name: 'description',
            label: 'When to use it',
            required: true,
            placeholder: 'Turns meeting notes into action items. Use when the user shares notes.',
          },
          { name: 'instructions', label: 'Instructions', required: true, multiline: true },
        ],
        submitLabel: 'Save skill',
      });
      if (!r) return;
      const name = String(r.name).trim();
      // Double-quoted YAML scalars are JSON strings: any description stays one value.
      const text =
        `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(String(r.description).trim())}\n---\n` +
        `${String(r.instructions).trim()}\n`;
      try {
        const v = await skills.install(name, new Map([['SKILL.md', text]]), { scope: target, origin: null });
        status.textContent = `Saved “${v.skill?.name}” for ${target === 'global' ? 'every workspace' : 'this workspace'}.`;
      } catch (err) {
        status.textContent = /** @type {Error} */ (err).message;
      }
      await draw();
    });

  /** @param {string} field @param {string} message */
  const problem = (field, message) => h('li', null, h('code', null, field), ' — ', message);

  /** @param {SkillEntry} e */
  const details = (e) => {
    const v = e.validation;
    const s = v.skill;
    return h(
      'details',
      { class: 'skill-details' },
      h('summary', null, `Details of ${e.name}`),
      v.errors.length
        ? h(
            'div',
            { class: 'bad' },
            h('p', null, 'Not a valid skill (the agent does not get it):'),
            h('ul', null, ...v.errors.map((p) => problem(p.field, p.message))),
          )
        : '',
      v.warnings.length
        ? h('div', null, h('p', null, 'Warnings:'), h('ul', null, ...v.warnings.map((p) => problem(p.field, p.message))))
        : '',
      s
        ? h(
            'dl',
            { class: 'skill-fields' },
            h('dt', null, 'Source'),
            h(
              'dd',
              null,
              e.origin === null ? 'written by you in Clawser' : `${e.origin} (outside content: reading it marks the conversation)`,
            ),
            h('dt', null, 'License'),
            h('dd', null, s.license ?? '—'),
            h('dt', null, 'Compatibility'),
            h('dd', null, s.compatibility ?? '—'),
            h('dt', null, 'Allowed tools'),
            h('dd', null, s.allowedToolsGiven ? s.allowedTools.join(' ') || 'none' : 'not limited'),
            h('dt', null, 'Metadata'),
            h(
              'dd',
              null,
              Object.keys(s.metadata).length
                ? Object.entries(s.metadata)
                    .map(([k, val]) => `${k}: ${val}`)
                    .join(', ')
                : '—',
            ),
          )
        : '',
      s
        ? h(
            'table',
            { class: 'skill-files', 'aria-label': `Files of ${e.name}` },
            h('thead', null, h('tr', null, h('th', null, 'File'), h('th', null, 'Size'), h('th', null, 'Kind'))),
            h(
              'tbody',
              null,
              ...s.files.map((f) =>
                h(
                  'tr',
                  null,
                  h('td', null, f.path),
                  h('td', null, `${f.size.toLocaleString('en')} B`),
                  h(
                    'td',
                    null,
                    f.binary
                      ? 'binary (kept, not shown)'
                      : f.role === 'script'
                        ? f.language === 'javascript'
                          ? 'script: runs in the sandbox'
                          : f.language === 'shell'
                            ? 'shell script: runs in the workspace shell'
                            : 'script: cannot run in the browser (shown as text)'
                        : f.role,
                  ),
                ),
              ),
            ),
          )
        : '',
      s ? h('pre', { class: 'skill-body', tabindex: '0', 'aria-label': `Instructions of ${e.name}` }, s.body) : '',
    );
  };

  /** @param {SkillEntry} e */
  const item = (e) => {
    const toggle = h('input', {
      type: 'checkbox',
      id: `skill-on-${e.scope}-${e.name}`,
      checked: e.enabled,
      disabled: e.shadowed,
      'aria-label': `Enable ${e.name}`,
    });
    toggle.addEventListener('change', () =>
      guarded(async () => {
        skills.setEnabled(e.name, toggle.checked);
        status.textContent = `“${e.name}” is ${toggle.checked ? 'enabled' : 'disabled'} in this workspace.`;
      }),
    );
    return h(
      'li',
      { class: `card skill${e.validation.ok ? '' : ' invalid'}`, 'data-skill': e.name },
      h(
        'div',
        { class: 'row skill-head' },
        h('h3', null, e.name),
        h(
          'span',
          { class: 'small muted' },
          `${e.scope === 'global' ? 'every workspace' : 'this workspace'}${
            e.shadowed ? " · hidden by this workspace's skill " + 'of the same name' : ''
          }${e.validation.skill?.metadata.version ? ` · version ${e.validation.skill.metadata.version}` : ''}`,
        ),
      ),
      h('p', null, e.validation.skill?.description ?? e.validation.errors.map((p) => p.message).join(' ')),
      h(
        'div',
        { class: 'row' },
        toggle,
        h('label', { for: toggle.id }, 'Enabled'),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small-btn',
            'aria-label': `Export ${e.name}`,
            on: {
              click: () =>
                guarded(async () => {
                  const { files } = await skills.files(e.name);
                  downloadBlob(
                    new Blob([/** @type {BlobPart} */ (sources.skillZip(e.name, files))], { type: 'application/zip' }),
                    `${e.name}.zip`,
                  );
                  status.textContent = `Exported “${e.name}”.`;
                }),
            },
          },
          'Export',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small-btn danger',
            'aria-label': `Delete ${e.name}`,
            on: {
              click: () =>
                guarded(async () => {
                  const ok = await confirmDialog({
                    title: `Delete the skill “${e.name}”?`,
                    message:
                      `It is removed from ${e.scope === 'global' ? 'every workspace' : 'this workspace'}. Export it first to ` +
                      `keep a copy.`,
                    confirmLabel: 'Delete',
                  });
                  if (!ok) return;
                  await skills.remove(e.name, e.scope);
                  status.textContent = `Deleted “${e.name}”.`;
                  await draw();
                }),
            },
          },
          'Delete',
        ),
      ),
      details(e),
    );
  };

  const draw = async () => {
    const q = search.value.trim().toLowerCase();
    const all = await skills.list();
    const shown = q ? all.filter((e) => `${e.name} ${e.validation.skill?.description ?? ''}`.toLowerCase().includes(q)) : all;
    clear(list).append(
      h('p', { class: 'small muted' }, `${all.length} skill${all.length === 1 ? '' : 's'} installed${q ? `, ${shown.length} shown` : ''}`),
      shown.length
        ? h('ul', { class: 'skills' }, ...shown.map(item))
        : emptyState(
            q
              ? 'No skill matches.'
              : 'No skills yet. Write one, or install one from a ZIP, a folder or a URL (Agent Skills format: a folder with a SKILL.md).',
          ),
    );
  };
  search.addEventListener('input', () => guarded(draw));

  // Updates from a registry: nothing is requested unless the user turns it on.
  const reg = skills.registry();
  const regOn = h('input', { id: 'skills-registry-on', type: 'checkbox', checked: reg.enabled });
  const regUrl = h('input', {
    id: 'skills-registry-url',
    type: 'url',
    value: reg.url,
    placeholder: 'https://example.com/skills/index.json',
  });
  const regResults = h('div', { class: 'skill-updates', 'aria-live': 'polite' });
  const checkNow = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      disabled: !reg.enabled,
      on: {
        click: () =>
          guarded(async () => {
            clear(regResults).append(h('p', { class: 'small' }, 'Checking…'));
            const visible = (await skills.list()).filter((e) => e.validation.skill && !e.shadowed);
            const installed = visible.map((e) => ({ name: e.name, version: e.validation.skill?.metadata.version ?? null }));
            let updates;
            try {
              updates = await props.registry.checkUpdates(regUrl.value.trim(), installed);
            } catch (err) {
              clear(regResults).append(h('p', { class: 'small bad' }, /** @type {Error} */ (err).message));
              return;
            }
            clear(regResults).append(
              updates.length
                ? h(
                    'ul',
                    null,
                    ...updates.map((u) =>
                      h(
                        'li',
                        null,
                        `${u.name}: ${u.installed ?? 'unversioned'} → ${u.latest} `,
                        // The named skill only, where it is installed (an update of a global skill stays global).
                        h(
                          'button',
                          {
                            type: 'button',
                            class: 'small-btn',
                            'aria-label': `Update ${u.name}`,
                            on: {
                              click: () =>
                                guarded(async () =>
                                  installAll(await sources.skillsFromUrl(u.url), {
                                    only: u.name,
                                    into: visible.find((e) => e.name === u.name)?.scope,
                                  }),
                                ),
                            },
                          },
                          'Update',
                        ),
                      ),
                    ),
                  )
                : h('p', { class: 'small' }, 'Every installed skill is up to date.'),
            );
          }),
      },
    },
    'Check for updates',
  );
  const saveRegistry = () =>
    guarded(async () => {
      skills.setRegistry({ enabled: regOn.checked, url: regUrl.value });
      checkNow.disabled = !regOn.checked || !regUrl.value.trim();
    });
  regOn.addEventListener('change', saveRegistry);
  regUrl.addEventListener('change', saveRegistry);
  checkNow.disabled = !reg.enabled || !reg.url;

  const root = panelLayout(
    { name: 'skills', title: 'Skills', onBack: props.onBack },
    h(
      'div',
      { class: 'row skill-tools' },
      h('label', { for: 'skills-search', class: 'sr-only' }, 'Search skills'),
      search,
      h('label', { for: 'skills-scope' }, 'Install for'),
      scope,
      h('button', { type: 'button', class: 'secondary', on: { click: write } }, 'Write a skill'),
      h('button', { type: 'button', on: { click: () => zipPicker.click() } }, 'Install from ZIP'),
      h('button', { type: 'button', class: 'secondary', on: { click: pickFolder } }, 'Install from folder'),
      h('button', { type: 'button', class: 'secondary', on: { click: fromUrl } }, 'Install from URL'),
      zipPicker,
      folderPicker,
    ),
    status,
    list,
    h(
      'details',
      { class: 'skill-registry' },
      h('summary', null, 'Updates from a registry'),
      h(
        'p',
        { class: 'small muted' },
        'Off by default: Clawser asks the registry nothing until you turn this on. The index is ' +
          'a JSON file listing skills with their versions and ZIP addresses.',
      ),
      h('div', { class: 'row' }, regOn, h('label', { for: 'skills-registry-on' }, 'Check a registry for updates')),
      h('div', { class: 'row' }, h('label', { for: 'skills-registry-url' }, 'Registry index URL'), regUrl, checkNow),
      regResults,
    ),
  );
  guarded(draw);
  const unsubscribe = skills.subscribe(() => guarded(draw));
  return {
    root,
    destroy: () => {
      unsubscribe();
    },
  };
}
