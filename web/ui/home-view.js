/** @import { WorkspaceSummary } from './types.d.ts' */
import { h, formatTime } from './dom.js';

/** The files "Restore from a backup" accepts (what "Export everything" downloads). */
export const BACKUP_FILE_TYPES = '.zip,application/zip';

/**
 * The home screen: the list of workspaces.
 * @param {{workspaces: WorkspaceSummary[], providerOf: (id: string) => string, onOpen: (id: string) => void, onCreate: () => void, onClone:
 *   () => void, onRename: (w: WorkspaceSummary) => void, onDelete: (w: WorkspaceSummary) => void,
 *   onBackup: () => void, onRestore: (file: File) => void}} props
 */
export function HomeView({ workspaces, providerOf, onOpen, onCreate, onClone, onRename, onDelete, onBackup, onRestore }) {
  const restorePicker = h('input', {
    type: 'file',
    accept: BACKUP_FILE_TYPES,
    hidden: true,
    'aria-label': 'Choose a backup file to restore',
  });
  restorePicker.addEventListener('change', () => {
    const file = restorePicker.files?.[0];
    restorePicker.value = '';
    if (file) onRestore(file);
  });
  return h(
    'main',
    { class: 'home', id: 'main' },
    h(
      'header',
      { class: 'home-header' },
      h('img', { src: './icons/icon-192.png', alt: '', width: 48, height: 48 }),
      h('div', null, h('h1', null, 'Clawser'), h('p', { class: 'muted' }, 'Your AI agent workspace — everything stays in this browser.')),
    ),
    h(
      'section',
      { 'aria-labelledby': 'ws-heading', class: 'card' },
      h(
        'div',
        { class: 'row spread' },
        h('h2', { id: 'ws-heading' }, 'Workspaces'),
        h(
          'div',
          { class: 'row' },
          h('button', { type: 'button', class: 'secondary', on: { click: onClone } }, 'Clone a git repository'),
          h('button', { type: 'button', on: { click: onCreate } }, 'New workspace'),
        ),
      ),
      workspaces.length === 0
        ? h('p', { class: 'muted' }, 'No workspaces yet.')
        : h(
            'ul',
            { class: 'ws-list' },
            workspaces.map((w) =>
              h(
                'li',
                { class: 'ws-item' },
                h(
                  'a',
                  {
                    href: `#workspace/${encodeURIComponent(w.id)}`,
                    class: 'ws-open',
                    on: {
                      click: (/** @type {MouseEvent} */ e) => {
                        e.preventDefault();
                        onOpen(w.id);
                      },
                    },
                  },
                  h('span', { class: 'ws-name' }, w.name),
                  h(
                    'span',
                    { class: 'muted small ws-facts' },
                    [
                      `Created ${formatTime(w.createdAt)}`,
                      w.lastUsedAt ? `last used ${formatTime(w.lastUsedAt)}` : 'not opened yet',
                      providerOf(w.id),
                    ].join(' · '),
                  ),
                ),
                h(
                  'button',
                  { type: 'button', class: 'secondary', 'aria-label': `Rename workspace ${w.name}`, on: { click: () => onRename(w) } },
                  'Rename',
                ),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'secondary danger-text',
                    'aria-label': `Delete workspace ${w.name}`,
                    on: { click: () => onDelete(w) },
                  },
                  'Delete',
                ),
              ),
            ),
          ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'backup-heading', class: 'card' },
      h('h2', { id: 'backup-heading' }, 'Backup'),
      h(
        'p',
        { class: 'small muted' },
        'One file with all workspaces, conversations, files and settings. API keys are left out unless you protect them with a passphrase.',
      ),
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', class: 'secondary', on: { click: onBackup } }, 'Export everything'),
        h('button', { type: 'button', class: 'secondary', on: { click: () => restorePicker.click() } }, 'Restore from a backup'),
        restorePicker,
      ),
    ),
  );
}
