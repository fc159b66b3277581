/** @import { GoalStore, Goal } from '../stores/goals.js' */
import { h, clear, formatTime, guard } from './dom.js';
import { emptyState, panelLayout } from './panel-layout.js';
import { confirmDialog, formDialog } from './dialogs.js';

/** How many goals sit under `id`, at any depth. @param {string} id @param {Goal[]} all @returns {number} */
const countSubGoals = (id, all) => all.filter((g) => g.parentId === id).reduce((n, g) => n + 1 + countSubGoals(g.id, all), 0);

/**
 * The Goals panel: the same store the agent's goal tools use. Add goals and sub-goals, change
 * status, note progress, link files, delete; each goal's Markdown mirror path is shown.
 * @param {{goals: GoalStore, onError: (err: unknown) => void, onBack: () => void}} props
 */
export function GoalsPanel(props) {
  const { goals } = props;
  const status = h('p', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const list = h('div', { class: 'goal-list' });
  const filter = h(
    'select',
    { id: 'goal-filter', 'aria-label': 'Show goals' },
    h('option', { value: '' }, 'All goals'),
    ...props.goals.statuses.map((s) => h('option', { value: s }, s[0].toUpperCase() + s.slice(1))),
  );

  const guarded = guard(props.onError);

  const description = h('input', {
    id: 'goal-new',
    type: 'text',
    required: true,
    maxLength: 2000,
    autocomplete: 'off',
    placeholder: 'e.g. Publish the launch blog post',
  });
  const parent = h('select', { id: 'goal-parent' });
  const form = h(
    'form',
    { class: 'card goal-form' },
    h('div', { class: 'field' }, h('label', { for: 'goal-new' }, 'New goal'), description),
    h('div', { class: 'field' }, h('label', { for: 'goal-parent' }, 'Part of'), parent),
    h('div', { class: 'row' }, h('button', { type: 'submit' }, 'Add goal')),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    guarded(async () => {
      if (!description.value.trim()) return description.focus();
      const g = await goals.add({ description: description.value, parentId: parent.value || undefined });
      description.value = '';
      status.textContent = `Added “${g.description}”.`;
    });
  });

  /** @param {Goal} g @param {Goal[]} all @returns {HTMLLIElement} */
  const goalItem = (g, all) => {
    const subs = all.filter((x) => x.parentId === g.id);
    const select = h(
      'select',
      { 'aria-label': `Status of ${g.description}` },
      ...props.goals.statuses.map((s) => h('option', { value: s, selected: s === g.status }, s)),
    );
    select.addEventListener('change', () =>
      guarded(async () => {
        await goals.update(g.id, { status: /** @type {Goal['status']} */ (select.value) });
        status.textContent = `“${g.description}” is now ${select.value}.`;
      }),
    );
    const last = g.progress.at(-1);
    return h(
      'li',
      { class: `goal card goal-${g.status}`, 'data-goal': g.id },
      h('div', { class: 'row goal-head' }, h('h4', null, g.description), select),
      h('p', { class: 'small muted' }, `Updated ${formatTime(g.updatedAt)} · `, h('code', null, props.goals.mirrorPathOf(g))),
      last ? h('p', { class: 'small' }, `Latest: ${last.note}`) : null,
      g.artifacts.length
        ? h('p', { class: 'small' }, 'Files: ', ...g.artifacts.flatMap((a, i) => [i ? ', ' : '', h('code', null, a)]))
        : null,
      h(
        'div',
        { class: 'row' },
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small-btn',
            'aria-label': `Add progress to ${g.description}`,
            on: {
              click: () =>
                guarded(async () => {
                  const r = await formDialog({
                    title: 'Add progress',
                    description: g.description,
                    fields: [
                      { name: 'note', label: 'Progress note', multiline: true },
                      { name: 'files', label: 'Linked files (comma-separated paths, optional)' },
                    ],
                    submitLabel: 'Save progress',
                  });
                  if (!r) return;
                  const note = String(r.note ?? '');
                  const files = String(r.files ?? '')
                    .split(',')
                    .map((f) => f.trim())
                    .filter(Boolean);
                  if (!note && !files.length) return;
                  await goals.update(g.id, { progress: note || undefined, artifacts: files.length ? files : undefined });
                }),
            },
          },
          'Add progress',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small-btn',
            'aria-label': `Edit ${g.description}`,
            on: {
              click: () =>
                guarded(async () => {
                  const r = await formDialog({
                    title: 'Edit goal',
                    fields: [{ name: 'description', label: 'Description', value: g.description }],
                    submitLabel: 'Save',
                  });
                  if (r && String(r.description ?? '')) await goals.update(g.id, { description: String(r.description) });
                }),
            },
          },
          'Edit',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small-btn danger-text',
            'aria-label': `Delete ${g.description}`,
            on: {
              click: () =>
                guarded(async () => {
                  const subCount = countSubGoals(g.id, await goals.list());
                  const ok = await confirmDialog({
                    title: 'Delete goal',
                    message: subCount
                      ? `Delete “${g.description}” and its ${subCount} sub-goal${subCount === 1 ? '' : 's'}? Their Markdown files go too.`
                      : `Delete “${g.description}”? Its Markdown file goes too.`,
                    confirmLabel: 'Delete',
                  });
                  if (!ok) return;
                  const gone = await goals.delete(g.id);
                  status.textContent = `Deleted “${g.description}”${gone.length > 1 ? ` and ${gone.length - 1} sub-goal(s)` : ''}.`;
                }),
            },
          },
          'Delete',
        ),
      ),
      g.progress.length > 1
        ? h(
            'details',
            { class: 'small' },
            h('summary', null, `Progress (${g.progress.length})`),
            h('ol', null, ...g.progress.map((p) => h('li', null, `${new Date(p.at).toLocaleString()} — ${p.note}`))),
          )
        : null,
      subs.length
        ? h('ul', { class: 'sub-goals', 'aria-label': `Sub-goals of ${g.description}` }, ...subs.map((sg) => goalItem(sg, all)))
        : null,
    );
  };

  const draw = async () => {
    const all = await goals.list();
    const shown = filter.value ? all.filter((g) => g.status === filter.value) : all;
    const ids = new Set(shown.map((g) => g.id));
    // Top level: goals whose parent is not shown (so a filtered sub-goal is not lost).
    const roots = shown.filter((g) => !g.parentId || !ids.has(g.parentId));
    const selected = parent.value;
    clear(parent).append(
      h('option', { value: '' }, 'Nothing (a top-level goal)'),
      ...all
        .filter((g) => g.status === 'active' || g.status === 'paused')
        .map((g) => h('option', { value: g.id, selected: g.id === selected }, g.description)),
    );
    clear(list).append(
      roots.length
        ? h('ul', { class: 'goals' }, ...roots.map((g) => goalItem(g, shown)))
        : emptyState(all.length ? 'No goals with this status.' : 'No goals yet. Add one here, or ask the agent to pursue something.'),
    );
  };
  filter.addEventListener('change', () => guarded(draw));
  const unsubscribe = goals.subscribe(() => guarded(draw));
  guarded(draw);

  const root = panelLayout({ name: 'goals', title: 'Goals', onBack: props.onBack, actions: [filter] }, status, form, list);
  return {
    root,
    destroy: () => {
      unsubscribe();
    },
  };
}
