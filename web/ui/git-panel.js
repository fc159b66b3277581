/** @import { GitPanelController, GitState } from './types.d.ts' */
/** @import { FileDiff } from '../git/git.js' */
import { h, clear, formatTime, guard } from './dom.js';
import { emptyState, panelLayout } from './panel-layout.js';
import { confirmDialog, promptDialog } from './dialogs.js';

/**
 * A diff as a table of lines (old/new line numbers, +/- marks), readable by screen readers.
 * @param {FileDiff} d
 * @param {{onRestore?: () => void}} [options]
 */
export function DiffView(d, options = {}) {
  const head = h(
    'div',
    { class: 'diff-head' },
    h('h3', { class: 'diff-path' }, h('span', { class: `change change-${d.change}` }, d.change), ' ', d.path),
    options.onRestore
      ? h(
          'button',
          { type: 'button', class: 'secondary small-btn', on: { click: options.onRestore } },
          `Restore ${d.path} from this commit`,
        )
      : null,
  );
  if (d.binary) return h('section', { class: 'diff' }, head, h('p', { class: 'muted small' }, 'Binary file: not shown.'));
  if (d.tooLarge) return h('section', { class: 'diff' }, head, h('p', { class: 'muted small' }, 'File too large to show a line diff.'));
  if (!d.hunks.length) return h('section', { class: 'diff' }, head, h('p', { class: 'muted small' }, 'No differences.'));
  const rows = [];
  for (const hunk of d.hunks) {
    rows.push(
      h('tr', { class: 'hunk' }, h('td', { colspan: 3 }, `@@ −${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`)),
    );
    let a = hunk.oldStart;
    let b = hunk.newStart;
    for (const line of hunk.lines) {
      const mark = line[0];
      if (mark === '\\') continue; // "\ No newline at end of file"
      const kind = mark === '+' ? 'add' : mark === '-' ? 'del' : 'ctx';
      rows.push(
        h(
          'tr',
          { class: `line ${kind}` },
          h('td', { class: 'ln' }, kind === 'add' ? '' : String(a++)),
          h('td', { class: 'ln' }, kind === 'del' ? '' : String(b++)),
          h(
            'td',
            { class: 'code' },
            h('span', { class: 'sr-only' }, kind === 'add' ? 'added: ' : kind === 'del' ? 'removed: ' : ''),
            h('span', { 'aria-hidden': 'true' }, mark === ' ' ? ' ' : mark),
            line.slice(1),
          ),
        ),
      );
    }
  }
  // A long line scrolls sideways: the region takes focus so the keyboard can scroll it too.
  return h(
    'section',
    { class: 'diff' },
    head,
    h(
      'div',
      { class: 'diff-scroll', tabindex: '0', role: 'region', 'aria-label': `Changes in ${d.path}` },
      h('table', { class: 'diff-table' }, h('caption', { class: 'sr-only' }, `Changes in ${d.path}`), h('tbody', null, ...rows)),
    ),
  );
}

/**
 * The Git panel: branch, changes with stage/unstage, commit, history with commit diffs and
 * restore, and the remote (URL, token, CORS proxy, pull, push).
 * @param {{git: GitPanelController, hasToken: boolean, corsProxy: string, autoCommit: boolean, onAutoCommit: (on: boolean) => void,
 *   autoInit: boolean, onAutoInit: (on: boolean) => void, onError: (err: unknown) => void, onBack: () => void}} props
 */
export function GitPanel(props) {
  const { git } = props;
  const status = h('p', { class: 'small git-status', role: 'status', 'aria-live': 'polite' });
  const body = h('div', { class: 'git-body' });
  const detail = h('section', { class: 'git-detail', 'aria-label': 'Diff', tabIndex: -1 });
  const message = h('textarea', { id: 'commit-message', rows: 3, placeholder: 'Describe the change' });
  // What was typed in a panel drawn before this one (the workspace re-rendered meanwhile) is not lost.
  message.value = git.draft;
  message.addEventListener('input', () => {
    git.draft = message.value;
  });

  const guarded = guard(props.onError);

  /** @param {string} path */
  const showFileDiff = (path) =>
    guarded(async () => {
      const d = await git.diffFile(path);
      clear(detail).append(DiffView(d));
      detail.focus();
    });

  /** @param {string} oid @param {string} title */
  const showCommit = (oid, title) =>
    guarded(async () => {
      const diffs = await git.diffCommit(oid);
      clear(detail).append(
        h(
          'div',
          { class: 'row commit-head' },
          h('h3', null, `${oid.slice(0, 7)} — ${title}`),
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              on: {
                click: () =>
                  guarded(async () => {
                    const ok = await confirmDialog({
                      title: 'Restore the whole workspace to this commit?',
                      message:
                        `Files become as they were in ${oid.slice(0, 7)} (“${title}”); files added later are removed. Files with ` +
                        `changes you have not committed are kept as they are. History is kept: the restore shows as changes you can ` +
                        `commit — or undo by restoring a later commit.`,
                      confirmLabel: 'Restore workspace',
                    });
                    if (ok) await git.restore(oid);
                  }),
              },
            },
            'Restore workspace to this commit',
          ),
        ),
        ...(diffs.length
          ? diffs.map((d) => DiffView(d, { onRestore: d.change === 'deleted' ? undefined : () => guarded(() => git.restore(oid, d.path)) }))
          : [h('p', { class: 'muted' }, 'This commit changed no files.')]),
      );
      detail.focus();
    });

  /** @param {GitState} s */
  function render(s) {
    status.textContent = s.busy ?? s.message ?? '';
    for (const b of body.querySelectorAll('button')) /** @type {HTMLButtonElement} */ (b).disabled = !!s.busy;
    // Assistive technology (and the keyboard walk in the tests) waits for the first read of the repository.
    body.setAttribute('aria-busy', s.loading ? 'true' : 'false');
    if (s.loading) return;
    if (!s.isRepo) {
      clear(body).append(
        h(
          'div',
          { class: 'card' },
          h('p', null, "This workspace is not versioned yet. With git, every change — yours and the agent's — can be reviewed and undone."),
          h('button', { type: 'button', on: { click: () => guarded(() => git.init()) } }, 'Start versioning with git'),
        ),
      );
      return;
    }
    const staged = s.changes.filter((c) => c.staged);
    const unstaged = s.changes.filter((c) => c.unstaged);
    /** @param {typeof s.changes[number]} c @param {boolean} isStaged */
    const changeRow = (c, isStaged) =>
      h(
        'li',
        { class: 'change-row' },
        h(
          'button',
          { type: 'button', class: 'link-btn', title: 'Show diff', on: { click: () => showFileDiff(c.path) } },
          h(
            'span',
            { class: `change change-${c.state === 'new' ? 'added' : c.state}` },
            c.state === 'new' ? (isStaged ? 'added' : 'untracked') : c.state,
          ),
          ' ',
          c.path,
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small-btn',
            'aria-label': `${isStaged ? 'Unstage' : 'Stage'} ${c.path}`,
            on: { click: () => guarded(() => (isStaged ? git.unstage([c.path]) : git.stage([c.path]))) },
          },
          isStaged ? 'Unstage' : 'Stage',
        ),
      );
    const branchSelect = h(
      'select',
      { id: 'git-branch', 'aria-label': 'Current branch' },
      ...s.branches.map((b) => h('option', { value: b, selected: b === s.branch }, b)),
    );
    if (!s.branches.length) branchSelect.append(h('option', { value: '' }, s.branch ?? 'main (no commits yet)'));
    branchSelect.addEventListener('change', () =>
      guarded(async () => {
        const name = branchSelect.value;
        try {
          await git.switchBranch(name);
        } catch (err) {
          if (/** @type {{code?: string}} */ (err).code !== 'dirty_worktree') throw err;
          const discard = await confirmDialog({
            title: `Switch to ${name} and discard changes?`,
            message: `${/** @type {Error} */ (err).message} Switching anyway discards those uncommitted changes.`,
            confirmLabel: 'Discard and switch',
          });
          if (discard) await git.switchBranch(name, true);
          else branchSelect.value = s.branch ?? '';
        }
      }),
    );
    const commitForm = h(
      'form',
      { class: 'commit-form' },
      h('label', { for: 'commit-message' }, `Commit message (${staged.length} staged file${staged.length === 1 ? '' : 's'})`),
      message,
      h('div', { class: 'row' }, h('button', { type: 'submit', disabled: !staged.length || !!s.busy }, 'Commit')),
    );
    commitForm.addEventListener('submit', (e) => {
      e.preventDefault();
      guarded(async () => {
        if (!message.value.trim()) {
          message.focus();
          throw new Error('Write a commit message first.');
        }
        await git.commit(message.value.trim());
        message.value = '';
        git.draft = '';
      });
    });
    const remoteUrl = h('input', {
      id: 'git-remote',
      type: 'url',
      value: s.remotes.find((r) => r.remote === 'origin')?.url ?? '',
      placeholder: 'https://github.com/you/repo.git',
    });
    const token = h('input', {
      id: 'git-token',
      type: 'password',
      autocomplete: 'off',
      placeholder: props.hasToken ? 'Saved (encrypted) — leave empty to keep' : 'Personal access token (for private repositories and push)',
    });
    const proxy = h('input', { id: 'git-proxy', type: 'url', value: props.corsProxy, placeholder: 'e.g. https://cors.isomorphic-git.org' });
    const remoteForm = h(
      'form',
      { class: 'card remote-form' },
      h(
        'fieldset',
        null,
        h('legend', null, 'Remote'),
        h('div', { class: 'field' }, h('label', { for: 'git-remote' }, 'Repository URL (origin)'), remoteUrl),
        h('div', { class: 'field' }, h('label', { for: 'git-token' }, 'Access token'), token),
        h('div', { class: 'field' }, h('label', { for: 'git-proxy' }, 'CORS proxy (only for servers that do not allow browsers)'), proxy),
        h(
          'div',
          { class: 'row' },
          h('button', { type: 'submit', class: 'secondary' }, 'Save remote'),
          h('button', { type: 'button', disabled: !s.remotes.length, on: { click: () => guarded(() => git.pull()) } }, 'Pull'),
          h('button', { type: 'button', disabled: !s.remotes.length, on: { click: () => guarded(() => git.push()) } }, 'Push'),
        ),
      ),
    );
    remoteForm.addEventListener('submit', (e) => {
      e.preventDefault();
      guarded(async () => {
        await git.saveRemote({ url: remoteUrl.value, token: token.value.trim() ? token.value.trim() : undefined, corsProxy: proxy.value });
        token.value = '';
      });
    });
    const autoCommit = h('input', { id: 'git-auto', type: 'checkbox', checked: props.autoCommit });
    autoCommit.addEventListener('change', () => props.onAutoCommit(autoCommit.checked));
    const autoInit = h('input', { id: 'git-auto-init', type: 'checkbox', checked: props.autoInit });
    autoInit.addEventListener('change', () => props.onAutoInit(autoInit.checked));
    clear(body).append(
      h(
        'div',
        { class: 'row branch-row' },
        h('label', { for: 'git-branch' }, 'Branch'),
        branchSelect,
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            on: {
              click: () =>
                guarded(async () => {
                  const name = await promptDialog({
                    title: 'New branch',
                    label: `Branch name (from ${s.branch ?? 'HEAD'})`,
                    value: '',
                    submitLabel: 'Create and switch',
                  });
                  if (name) await git.createBranch(name, true);
                }),
            },
          },
          'New branch',
        ),
        s.branches.length > 1
          ? h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                on: {
                  click: () =>
                    guarded(async () => {
                      const others = s.branches.filter((b) => b !== s.branch);
                      const name = await promptDialog({
                        title: 'Delete a branch',
                        label: `Branch to delete (${others.join(', ')})`,
                        value: others[0] ?? '',
                        submitLabel: 'Delete branch',
                      });
                      if (name) await git.deleteBranch(name);
                    }),
                },
              },
              'Delete branch…',
            )
          : null,
      ),
      h(
        'div',
        { class: 'row' },
        autoCommit,
        h(
          'label',
          { for: 'git-auto' },
          'Commit automatically after each agent turn that changed files (its files only), and after undoing or redoing one',
        ),
      ),
      h(
        'div',
        { class: 'row' },
        autoInit,
        h('label', { for: 'git-auto-init' }, 'Keep this workspace a git repository (create it when the workspace opens)'),
      ),
      h(
        'section',
        { class: 'changes', 'aria-label': 'Changes' },
        h(
          'div',
          { class: 'row' },
          h('h3', null, `Staged (${staged.length})`),
          staged.length
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'secondary small-btn',
                  on: { click: () => guarded(() => git.unstage(staged.map((c) => c.path))) },
                },
                'Unstage all',
              )
            : null,
        ),
        staged.length
          ? h('ul', { class: 'change-list' }, ...staged.map((c) => changeRow(c, true)))
          : h('p', { class: 'muted small' }, 'Nothing staged.'),
        h(
          'div',
          { class: 'row' },
          h('h3', null, `Changes (${unstaged.length})`),
          unstaged.length
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'secondary small-btn',
                  on: { click: () => guarded(() => git.stage(unstaged.map((c) => c.path))) },
                },
                'Stage all',
              )
            : null,
        ),
        unstaged.length
          ? h('ul', { class: 'change-list' }, ...unstaged.map((c) => changeRow(c, false)))
          : h('p', { class: 'muted small' }, 'Working copy clean.'),
      ),
      commitForm,
      h(
        'section',
        { class: 'history', 'aria-label': 'History' },
        h('h3', null, 'History'),
        s.log.length
          ? h(
              'ol',
              { class: 'commit-list' },
              ...s.log.map((c) =>
                h(
                  'li',
                  null,
                  h(
                    'button',
                    { type: 'button', class: 'link-btn', on: { click: () => showCommit(c.oid, c.message.split('\n')[0]) } },
                    h('code', null, c.oid.slice(0, 7)),
                    ' ',
                    c.message.split('\n')[0],
                  ),
                  h('span', { class: 'small muted' }, ` ${c.author} · ${formatTime(c.timestamp)}`),
                ),
              ),
            )
          : emptyState('No commits yet. Stage the changes above and commit them.'),
      ),
      remoteForm,
    );
  }

  const root = panelLayout(
    {
      name: 'git',
      title: 'Git',
      onBack: props.onBack,
      actions: [h('button', { type: 'button', class: 'secondary', on: { click: () => guarded(() => git.refresh()) } }, 'Refresh')],
    },
    status,
    h('div', { class: 'git-layout' }, body, detail),
  );
  const unsubscribe = git.subscribe(render);
  guarded(() => git.refresh());
  return { root, destroy: unsubscribe };
}
