import { h } from './dom.js';

/**
 * One damaged file as the dialog shows it.
 * @typedef {object} DamageRow
 * @property {string} what the item ("Conversation “Trip”: its details (meta.json)")
 * @property {string} where the workspace (or "Every workspace")
 * @property {string} problem what is wrong
 * @property {string} rawPath where its raw bytes are in the browser's storage
 * @property {string} [keptAt] where its damaged lines were set aside already
 * @property {boolean} canSetAside
 */

/**
 * The damaged files Clawser found, each with what is wrong, a download of its raw bytes and (when
 * it is not set aside yet) "Set aside". Nothing changes until a button is pressed.
 * @param {{rows: DamageRow[], onDownload: (index: number) => Promise<void>, onSetAside: (index: number) => Promise<string>,
 *   onError: (err: unknown) => void}} props
 * @returns {Promise<void>} when closed
 */
export function damageDialog({ rows, onDownload, onSetAside, onError }) {
  return new Promise((resolve) => {
    const titleId = `dlg-${Math.random().toString(36).slice(2)}`;
    const items = rows.map((row, i) => {
      const status = h('p', { class: 'small', role: 'status' });
      const download = h(
        'button',
        {
          type: 'button',
          class: 'secondary small-btn',
          'aria-label': `Download ${row.keptAt ? 'the damaged bytes set aside' : 'the raw file'} of ${row.what}`,
        },
        'Download',
      );
      download.addEventListener('click', () => {
        onDownload(i).catch(onError);
      });
      const aside = row.canSetAside
        ? h('button', { type: 'button', class: 'small-btn', 'aria-label': `Set aside ${row.what}` }, 'Set aside')
        : null;
      aside?.addEventListener('click', () => {
        aside.disabled = true;
        onSetAside(i).then(
          (to) => {
            aside.remove();
            status.textContent = `Set aside: the file is kept as ${to}, and Clawser starts this item afresh.`;
          },
          (err) => {
            aside.disabled = false;
            onError(err);
          },
        );
      });
      return h(
        'li',
        { class: 'damage-item' },
        h('h3', null, row.what),
        h('p', { class: 'small muted' }, row.where),
        h('p', null, row.problem.replace(/\.?$/, '.')),
        h('p', { class: 'small' }, 'File: ', h('code', null, row.rawPath)),
        row.keptAt ? h('p', { class: 'small' }, 'Its damaged bytes are kept in: ', h('code', null, row.keptAt)) : null,
        h('div', { class: 'row' }, download, aside),
        status,
      );
    });
    const dialog = h(
      'dialog',
      { class: 'dialog damage-dialog', 'aria-labelledby': titleId },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, 'Damaged files'),
        h(
          'p',
          null,
          'These files could not be read as they should. Everything else works without them, and nothing was overwritten: download ' +
            'a file to keep a copy, or set it aside (it is renamed and kept) so Clawser can start that item afresh.',
        ),
        h('ul', { class: 'damage-list' }, ...items),
        h('div', { class: 'dialog-actions' }, h('button', { type: 'submit', value: 'ok' }, 'Close')),
      ),
    );
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}
