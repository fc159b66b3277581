/** @import { Scheduler, Job } from '../stores/scheduler.js' */
/** @import { ConversationMeta } from '../agent/types.d.ts' */
import { h, clear, guard } from './dom.js';
import { emptyState, panelLayout } from './panel-layout.js';
import { confirmDialog } from './dialogs.js';

/** @param {number} t */
const dateTime = (t) =>
  new Date(t).toLocaleString(undefined, {
    weekday: 'short',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });

/**
 * The Schedule panel: a form that turns a phrase or cron expression into a job after showing
 * its next five run times, and the jobs with their next run, last result, history and
 * pause / resume / run now / delete.
 * @param {{scheduler: Scheduler, conversations: ConversationMeta[], toolNames: string[], timezone: string,
 *   missedPolicy: 'once' | 'skip', onMissedPolicy: (p: 'once' | 'skip') => void,
 *   approvalTimeoutMinutes: number, onApprovalTimeout: (minutes: number) => void,
 *   background: {mode: 'background' | 'foreground', text: string}, watchBackground?: (fn: (b: {mode: 'background' | 'foreground', text:
 *   string}) => void) => () => void,
 *   notifications: NotificationPermission | 'unsupported', onAllowNotifications: () => Promise<NotificationPermission | 'unsupported'>,
 *   onOpenConversation: (id: string) => void, onError: (err: unknown) => void, onBack: () => void,
 *   channels?: {id: string, name: string}[]}} props
 *   channels: the workspace's channels, one of which a job's result can also go out through (Telegram, a webhook)
 */
export function SchedulePanel(props) {
  const { scheduler } = props;
  const status = h('p', { class: 'small', role: 'status', 'aria-live': 'polite' });
  const list = h('div', { class: 'job-list' });

  const guarded = guard(props.onError);

  // ── New job form ──
  const when = h('input', {
    id: 'job-when',
    type: 'text',
    required: true,
    autocomplete: 'off',
    placeholder: 'every weekday at 9am · every 2 hours · in 3 days · 0 9 * * 1-5',
  });
  const tz = h('input', { id: 'job-tz', type: 'text', value: props.timezone, autocomplete: 'off' });
  const name = h('input', { id: 'job-name', type: 'text', autocomplete: 'off', placeholder: 'Optional' });
  const kindPrompt = h('input', { type: 'radio', name: 'job-kind', id: 'job-kind-prompt', value: 'prompt', checked: true });
  const kindTool = h('input', { type: 'radio', name: 'job-kind', id: 'job-kind-tool', value: 'tool' });
  const prompt = h('textarea', { id: 'job-prompt', rows: 3, placeholder: 'e.g. Summarize what changed in my notes today' });
  const tool = h('select', { id: 'job-tool' }, ...props.toolNames.map((n) => h('option', { value: n }, n)));
  const args = h('textarea', { id: 'job-args', rows: 3, value: '{}', spellcheck: false });
  const delivery = h(
    'select',
    { id: 'job-delivery' },
    h('option', { value: 'always' }, 'Always'),
    h('option', { value: 'success' }, 'Only when it succeeds'),
    h('option', { value: 'error' }, 'Only when it fails'),
    h('option', { value: 'never' }, 'Never (see the history here)'),
  );
  const conversation = h(
    'select',
    { id: 'job-conv' },
    h('option', { value: '' }, 'A new conversation for this job'),
    ...props.conversations.map((c) => h('option', { value: c.id }, c.title)),
  );
  const channels = props.channels ?? [];
  const channel = h(
    'select',
    { id: 'job-channel' },
    h('option', { value: '' }, 'No channel'),
    ...channels.map((c) => h('option', { value: c.id }, c.name)),
  );
  const promptField = h('div', { class: 'field' }, h('label', { for: 'job-prompt' }, 'Prompt for the agent'), prompt);
  const toolFields = h(
    'div',
    { class: 'field-group', hidden: true },
    h('div', { class: 'field' }, h('label', { for: 'job-tool' }, 'Tool'), tool),
    h('div', { class: 'field' }, h('label', { for: 'job-args' }, 'Arguments (JSON)'), args),
  );
  // What the job does about times it missed (Clawser closed, the tab hidden, the computer asleep).
  const catchUp = h(
    'select',
    { id: 'job-catchup', 'aria-describedby': 'job-catchup-d' },
    h('option', { value: 'once', selected: props.missedPolicy === 'once' }, 'Run it once'),
    h('option', { value: 'skip', selected: props.missedPolicy === 'skip' }, 'Skip the missed times'),
    h('option', { value: 'each' }, 'Run each, up to a limit'),
  );
  const catchUpLimit = h('input', {
    id: 'job-catchup-limit',
    type: 'number',
    min: '1',
    max: String(scheduler.catchUpLimitMax),
    step: '1',
    value: '3',
  });
  const limitField = h(
    'div',
    { class: 'field', hidden: true },
    h('label', { for: 'job-catchup-limit' }, `At most this many missed times (1–${scheduler.catchUpLimitMax})`),
    catchUpLimit,
  );
  catchUp.addEventListener('change', () => {
    limitField.hidden = catchUp.value !== 'each';
  });
  const preview = h('div', { class: 'job-preview', 'aria-live': 'polite', id: 'job-preview' });
  const create = h('button', { type: 'submit', disabled: true }, 'Create job');
  const syncKind = () => {
    promptField.hidden = !kindPrompt.checked;
    toolFields.hidden = !kindTool.checked;
  };
  kindPrompt.addEventListener('change', syncKind);
  kindTool.addEventListener('change', syncKind);

  /** The confirmation: what the phrase means and its next five runs, before anything is saved. */
  const updatePreview = () => {
    clear(preview);
    create.disabled = true;
    if (!when.value.trim()) return;
    try {
      const p = scheduler.preview(when.value, { timezone: tz.value.trim() || undefined });
      preview.append(
        h(
          'p',
          { class: 'small' },
          `Means: ${props.scheduler.describe(p.trigger)}. Next ${p.next.length === 1 ? 'run' : `${p.next.length} runs`}:`,
        ),
        h(
          'ol',
          { class: 'next-runs small' },
          ...p.next.map((t) => h('li', null, h('time', { dateTime: new Date(t).toISOString() }, dateTime(t)))),
        ),
      );
      create.disabled = false;
    } catch (err) {
      preview.append(h('p', { class: 'small bad', role: 'alert' }, /** @type {Error} */ (err).message));
    }
  };
  when.addEventListener('input', updatePreview);
  tz.addEventListener('input', updatePreview);

  const form = h(
    'form',
    { class: 'card job-form', 'aria-labelledby': 'job-form-title' },
    h('h3', { id: 'job-form-title' }, 'New scheduled job'),
    h('div', { class: 'field' }, h('label', { for: 'job-when' }, 'When'), when),
    h('div', { class: 'field' }, h('label', { for: 'job-tz' }, 'Time zone'), tz),
    preview,
    h(
      'fieldset',
      { class: 'row' },
      h('legend', null, 'What it does'),
      kindPrompt,
      h('label', { for: 'job-kind-prompt' }, 'Run a prompt'),
      kindTool,
      h('label', { for: 'job-kind-tool' }, 'Call a tool'),
    ),
    promptField,
    toolFields,
    h('div', { class: 'field' }, h('label', { for: 'job-conv' }, 'Conversation (where it runs and reports)'), conversation),
    h('div', { class: 'field' }, h('label', { for: 'job-delivery' }, 'Notify me'), delivery),
    channels.length
      ? h('div', { class: 'field' }, h('label', { for: 'job-channel' }, 'Also send the result to a channel (when notified)'), channel)
      : '',
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'job-catchup' }, 'If it was due while Clawser was closed'),
      catchUp,
      h(
        'p',
        { class: 'small muted', id: 'job-catchup-d' },
        'Also when the tab was in the background or the computer slept. Each runs oldest first; over the limit, the most recent run.',
      ),
    ),
    limitField,
    h('div', { class: 'field' }, h('label', { for: 'job-name' }, 'Name'), name),
    h('div', { class: 'row' }, create),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    guarded(async () => {
      /** @type {import('../stores/scheduler.js').JobAction} */
      let action;
      if (kindPrompt.checked) {
        if (!prompt.value.trim()) {
          prompt.focus();
          throw new Error('Write the prompt the agent should run.');
        }
        action = { kind: 'prompt', prompt: prompt.value.trim() };
      } else {
        let parsed;
        try {
          parsed = JSON.parse(args.value || '{}');
        } catch {
          args.focus();
          throw new Error('The tool arguments are not valid JSON, e.g. {"url": "https://example.com"}.');
        }
        action = { kind: 'tool', tool: tool.value, args: parsed };
      }
      const job = await scheduler.add({
        when: when.value,
        timezone: tz.value.trim() || undefined,
        action,
        name: name.value,
        delivery: /** @type {Job['delivery']} */ (delivery.value),
        // Checked by the scheduler (a limit out of range is refused with the reason).
        catchUp:
          catchUp.value === 'each'
            ? { policy: 'each', limit: Number(catchUpLimit.value) }
            : { policy: /** @type {'once' | 'skip'} */ (catchUp.value) },
        conversationId: conversation.value || undefined,
        ...(channel.value ? { channel: channel.value } : {}),
      });
      status.textContent = `Created “${job.name}”.`;
      when.value = '';
      prompt.value = '';
      name.value = '';
      updatePreview();
    });
  });

  // ── Settings: missed runs, background mode, notifications ──
  const missed = h(
    'select',
    { id: 'job-missed' },
    h('option', { value: 'once', selected: props.missedPolicy === 'once' }, 'Run it once on next open'),
    h('option', { value: 'skip', selected: props.missedPolicy === 'skip' }, 'Skip it'),
  );
  missed.addEventListener('change', () => props.onMissedPolicy(/** @type {'once' | 'skip'} */ (missed.value)));
  const approvalWait = h('input', {
    id: 'job-approval-timeout',
    type: 'number',
    min: '1',
    max: '1440',
    step: '1',
    value: String(props.approvalTimeoutMinutes),
    'aria-describedby': 'job-approval-timeout-d',
  });
  approvalWait.addEventListener('change', () => {
    const v = Math.round(Number(approvalWait.value));
    if (Number.isFinite(v) && v >= 1 && v <= 1440) props.onApprovalTimeout(v);
    else approvalWait.value = String(props.approvalTimeoutMinutes);
  });
  const notifyLine = h('p', { class: 'small' });
  const drawNotify = (/** @type {NotificationPermission | 'unsupported'} */ state) => {
    clear(notifyLine).append(
      state === 'granted'
        ? "Results are shown as notifications and in the job's conversation."
        : state === 'denied'
          ? "Notifications are blocked for this site (change it in the browser's site settings); results appear in the job's conversation."
          : state === 'unsupported'
            ? "This browser has no notifications; results appear in the job's conversation."
            : "Results appear in the job's conversation. ",
      state === 'default'
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary small-btn',
              on: { click: () => guarded(async () => drawNotify(await props.onAllowNotifications())) },
            },
            'Allow notifications',
          )
        : '',
    );
  };
  drawNotify(props.notifications);
  const mode = h('p', { class: 'small', id: 'job-mode' }, props.background.text);
  const unwatch =
    props.watchBackground?.((b) => {
      mode.textContent = b.text;
    }) ?? (() => {});
  const settings = h(
    'section',
    { class: 'card job-settings', 'aria-label': 'How jobs run' },
    mode,
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'job-missed' }, 'When a job was due while Clawser was closed'),
      missed,
      h('p', { class: 'small muted' }, 'The default for new jobs, and what jobs saved before each job had its own choice do.'),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'job-approval-timeout' }, 'Minutes a job waits for an approval'),
      approvalWait,
      h(
        'p',
        { class: 'small muted', id: 'job-approval-timeout-d' },
        'Unanswered by then, the call is refused, the run is marked “needs approval” ' +
          'and you are notified. Other jobs keep running meanwhile.',
      ),
    ),
    notifyLine,
  );

  // ── Jobs ──
  /**
   * When a late run was due and why it ran late, or what a catch-up skipped ('' for a run on time).
   * @param {Job} j @param {Job['runs'][number]} r
   */
  const lateness = (j, r) => {
    // A run recorded before runs said why they were late.
    if (!r.late) return r.missed ? ` (caught up; ${r.missed + 1} times missed)` : '';
    const due = h('time', { dateTime: new Date(r.scheduledFor).toISOString() }, dateTime(r.scheduledFor));
    const why = scheduler.lateWords(r.late);
    if (r.status === 'skipped') return [` (the newest due `, due, `; ${why})`];
    const times = `${r.missed} ${j.catchUp?.policy === 'each' ? 'older ' : 'more '}missed time${r.missed === 1 ? '' : 's'}`;
    const also = r.missed ? `; ${times} ${j.catchUp?.policy === 'each' ? 'not run (over its limit)' : 'not run separately'}` : '';
    return [' (due ', due, `, ran late: ${why}${also})`];
  };
  /** @param {Job['runs'][number]['status']} status */
  const statusWords = (status) =>
    status === 'ok'
      ? 'succeeded'
      : status === 'error'
        ? 'failed'
        : status === 'needs_approval'
          ? 'needs approval (nobody answered in time)'
          : status === 'skipped'
            ? 'skipped'
            : status;
  /** Histories the user opened stay open when the list redraws. */
  const openHistories = new Set();
  /** @param {Job & {nextRunAt: number | null}} j */
  const jobItem = (j) => {
    const last = j.runs.at(-1);
    const state = j.done ? 'Done' : j.paused ? 'Paused' : j.nextRunAt ? `Next: ${dateTime(j.nextRunAt)}` : 'No more runs';
    const actions = h(
      'div',
      { class: 'row job-actions' },
      !j.done
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary small-btn',
              'aria-label': `${j.paused ? 'Resume' : 'Pause'} ${j.name}`,
              on: { click: () => guarded(() => (j.paused ? scheduler.resume(j.id) : scheduler.pause(j.id))) },
            },
            j.paused ? 'Resume' : 'Pause',
          )
        : null,
      h(
        'button',
        {
          type: 'button',
          class: 'secondary small-btn',
          // The name starts with the words on the button (WCAG 2.5.3), then says which job.
          'aria-label': `Run now: ${j.name}`,
          on: {
            click: () =>
              guarded(async () => {
                status.textContent = `Running “${j.name}”…`;
                const r = await scheduler.runNow(j.id);
                status.textContent = r
                  ? `“${j.name}” ${r.ok ? 'finished' : r.needsApproval ? 'needs approval' : 'failed'}.`
                  : `“${j.name}” is already running.`;
              }),
          },
        },
        'Run now',
      ),
      j.conversationId
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary small-btn',
              'aria-label': `Open the conversation of ${j.name}`,
              on: { click: () => props.onOpenConversation(/** @type {string} */ (j.conversationId)) },
            },
            'Open the conversation',
          )
        : null,
      h(
        'button',
        {
          type: 'button',
          class: 'secondary small-btn danger',
          'aria-label': `Delete ${j.name}`,
          on: {
            click: () =>
              guarded(async () => {
                const ok = await confirmDialog({
                  title: `Delete “${j.name}”?`,
                  message: 'The job stops running; its history is removed. Conversations it wrote to are kept.',
                  confirmLabel: 'Delete job',
                });
                if (ok) await scheduler.remove(j.id);
              }),
          },
        },
        'Delete',
      ),
    );
    return h(
      'li',
      { class: 'job card', 'data-job': j.id },
      h(
        'div',
        { class: 'row job-head' },
        h('h4', null, j.name),
        h(
          'span',
          { class: 'small muted' },
          `${j.action.kind === 'prompt' ? 'Prompt' : j.action.kind === 'heartbeat' ? 'Heartbeat checklist' : `Tool ${j.action.tool}`} ` +
            `· ${props.scheduler.describe(j.trigger)} · ${scheduler.describeCatchUp(j.catchUp)}` +
            `${j.createdBy === 'agent' ? ' · created by the agent' : ''}`,
        ),
      ),
      h(
        'p',
        { class: 'small job-state' },
        state,
        ...(last ? [` · Last run ${dateTime(last.at)}: ${statusWords(last.status)}`, lateness(j, last)].flat() : [' · Not run yet']),
      ),
      last?.summary
        ? h(
            'p',
            { class: `small job-summary${last.status === 'error' || last.status === 'needs_approval' ? ' bad' : ''}` },
            last.summary.length > 300 ? `${last.summary.slice(0, 297)}…` : last.summary,
          )
        : null,
      actions,
      j.runs.length
        ? h(
            'details',
            {
              class: 'job-history',
              open: openHistories.has(j.id),
              on: {
                toggle: (/** @type {Event} */ e) => {
                  if (/** @type {HTMLDetailsElement} */ (e.target).open) openHistories.add(j.id);
                  else openHistories.delete(j.id);
                },
              },
            },
            h('summary', { class: 'small' }, `History (${j.runs.length})`),
            h(
              'ol',
              { class: 'small', reversed: true },
              ...j.runs
                .slice()
                .reverse()
                .map((r) =>
                  h(
                    'li',
                    null,
                    `${dateTime(r.at)} — ${r.status === 'needs_approval' ? 'needs approval' : r.status}${r.manual ? ' (run now)' : ''}`,
                    ...[lateness(j, r)].flat(),
                    `${r.durationMs !== undefined ? ` · ${Math.round(r.durationMs / 100) / 10} s` : ''}` +
                      `${r.summary ? `: ${r.summary.slice(0, 200)}` : ''}`,
                  ),
                ),
            ),
          )
        : null,
    );
  };
  const draw = async () => {
    const jobs = await scheduler.list();
    clear(list).append(
      h('h3', null, `Jobs (${jobs.length})`),
      jobs.length
        ? h('ul', { class: 'jobs' }, ...jobs.map(jobItem))
        : emptyState('No scheduled jobs yet. Create one here, or ask the agent (it asks you to approve each job).'),
    );
  };
  const unsubscribe = scheduler.subscribe(() => guarded(draw));
  guarded(draw);

  const root = panelLayout(
    { name: 'schedule', title: 'Schedule', onBack: props.onBack },
    status,
    settings,
    h('div', { class: 'schedule-layout' }, form, list),
  );
  return {
    root,
    destroy: () => {
      unsubscribe();
      unwatch();
    },
  };
}
