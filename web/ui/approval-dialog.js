import { h } from './dom.js';

/** The arguments that say what a call will do, in the order they are shown first: the command, the URL, the path… */
const WHAT = /** @type {const} */ ([
  ['command', 'Command'],
  ['cmd', 'Command'],
  ['url', 'URL'],
  ['path', 'Path'],
  ['from', 'From'],
  ['to', 'To'],
  ['code', 'Code'],
  ['query', 'Query'],
]);

/**
 * What a call will run, from its arguments: the command, URL and path (and the like), each as
 * written, for the top of the approval dialog. Empty when none of them is there.
 * @param {unknown} args
 * @returns {{label: string, value: string}[]}
 */
export function whatWillRun(args) {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return [];
  const a = /** @type {Record<string, unknown>} */ (args);
  return WHAT.filter(([key]) => typeof a[key] === 'string' && String(a[key]).trim()).map(([key, label]) => ({
    label,
    value: String(a[key]),
  }));
}

/**
 * Asks the user whether a tool call may run, showing exactly what will run: first the command, URL
 * or path it acts on, then all its arguments, then what the tool is (its description).
 * Escape or closing the dialog counts as Deny. A scheduled job's request names the job and its
 * workspace, says how long it waits, and closes itself (Deny) when `signal` aborts; several
 * waiting jobs stack their dialogs, the newest on top, each answerable in turn.
 * @param {import('../agent/runtime/tool-runner.js').ApprovalRequest} request
 * @returns {Promise<import('../agent/runtime/tool-runner.js').ApprovalAnswer>}
 */
export function approvalDialog(request) {
  return new Promise((resolve) => {
    if (request.signal?.aborted) return resolve('deny');
    const titleId = `appr-${Math.random().toString(36).slice(2)}`;
    const mins = request.timeoutMs ? Math.round(request.timeoutMs / 60_000) : 0;
    const what = whatWillRun(request.args);
    const dialog = h(
      'dialog',
      {
        class: 'dialog approval-dialog',
        'aria-labelledby': titleId,
        'aria-describedby': what.length ? `${titleId}-w ${titleId}-d` : `${titleId}-d`,
      },
      h(
        'form',
        { method: 'dialog' },
        request.job
          ? h(
              'p',
              { class: 'approval-job' },
              request.job.viaChannel
                ? `A message through the channel “${request.job.name}” in workspace “${request.workspace?.name ?? ''}” ` +
                    'has the agent ask to run this.'
                : `Scheduled job “${request.job.name}” in workspace “${request.workspace?.name ?? ''}” wants to run this.`,
            )
          : null,
        h(
          'h2',
          { id: titleId },
          request.job
            ? `Allow “${request.tool}” for ${request.job.viaChannel ? 'channel' : 'job'} “${request.job.name}”?`
            : request.agent
              ? `Allow “${request.tool}” for @${request.agent}?`
              : `Allow “${request.tool}”?`,
        ),
        // What will run first (the command, the URL, the path), then the rest of the arguments, then what the tool is.
        what.length
          ? h(
              'dl',
              { class: 'approval-what', id: `${titleId}-w` },
              ...what.flatMap((w) => [h('dt', null, w.label), h('dd', null, h('code', null, w.value))]),
            )
          : null,
        request.taint?.length
          ? h('p', { class: 'approval-taint', role: 'note' }, h('strong', null, 'Untrusted content. '), request.reason)
          : null,
        request.preview ? h('p', { class: 'approval-preview plain' }, request.preview) : null,
        h('div', { class: 'small muted' }, what.length ? 'All its arguments:' : 'It will run with these arguments:'),
        h('pre', { class: 'approval-args' }, JSON.stringify(request.args, null, 2)),
        h('p', { class: 'approval-description small', id: `${titleId}-d` }, h('strong', null, `${request.tool}: `), request.description),
        request.taint?.length ? null : h('p', { class: 'small muted' }, `Permission: ${request.permission}. ${request.reason}`),
        request.job && mins
          ? h(
              'p',
              { class: 'small muted' },
              `Unanswered within ${mins} minute${mins === 1 ? '' : 's'}, the call is refused` +
                (request.job.viaChannel ? '.' : ' and the run is marked “needs approval”.'),
            )
          : null,
        h(
          'div',
          { class: 'dialog-actions' },
          h('button', { type: 'submit', value: 'deny', class: 'secondary' }, 'Deny'),
          // A yes given because of untrusted content counts once: no standing "always".
          request.allowAlways === false
            ? null
            : h(
                'button',
                {
                  type: 'submit',
                  value: 'always',
                  class: 'secondary',
                  title: `Always allow every call of ${request.tool} in this workspace`,
                },
                'Always allow',
              ),
          // "Always allow" narrowed to this command prefix, domain or folder.
          // Named "Allow always: …" so it is told apart from the plain "Always allow" by ear and by tests.
          request.allowAlways === false || !request.rule
            ? null
            : h(
                'button',
                {
                  type: 'submit',
                  value: 'rule',
                  class: 'secondary',
                  'aria-label': `Allow always: only ${request.ruleText ?? request.rule.pattern}`,
                },
                `Allow always: ${request.rule.kind === 'command' ? `“${request.rule.pattern}”` : request.rule.pattern}`,
              ),
          h('button', { type: 'submit', value: 'once' }, 'Allow once'),
        ),
      ),
    );
    const timedOut = () => dialog.close('deny');
    request.signal?.addEventListener('abort', timedOut, { once: true });
    dialog.addEventListener('close', () => {
      request.signal?.removeEventListener('abort', timedOut);
      const v = dialog.returnValue;
      dialog.remove();
      resolve(v === 'once' || v === 'always' || v === 'rule' ? v : 'deny');
    });
    document.body.append(dialog);
    dialog.showModal();
    /** @type {HTMLButtonElement | null} */ (dialog.querySelector('button[value="deny"]'))?.focus();
  });
}

/**
 * The agent asks the user a question (ask_user tool).
 * @param {string} question
 * @param {string[]} [choices]
 * @returns {Promise<string | null>}
 */
export function askUserDialog(question, choices) {
  return new Promise((resolve) => {
    const titleId = `ask-${Math.random().toString(36).slice(2)}`;
    const input = h('textarea', { id: `${titleId}-a`, rows: 3 });
    const dialog = h(
      'dialog',
      { class: 'dialog', 'aria-labelledby': titleId },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, 'The agent asks'),
        h('p', { class: 'plain' }, question),
        choices?.length
          ? h(
              'div',
              { class: 'row' },
              choices.map((c) => h('button', { type: 'submit', value: `choice:${c}`, class: 'secondary' }, c)),
            )
          : null,
        h('label', { for: `${titleId}-a` }, 'Your answer'),
        input,
        h(
          'div',
          { class: 'dialog-actions' },
          h('button', { type: 'submit', value: 'dismiss', class: 'secondary', formNoValidate: true }, 'Dismiss'),
          h('button', { type: 'submit', value: 'answer' }, 'Answer'),
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      const v = dialog.returnValue;
      dialog.remove();
      if (v.startsWith('choice:')) resolve(v.slice(7));
      else if (v === 'answer' && input.value.trim()) resolve(input.value.trim());
      else resolve(null);
    });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
  });
}

/**
 * The agent asks the user to pick a device (serial_request): the button "Choose a device…" calls
 * `request` from the user's click (the browser's chooser needs one); "Not now" declines.
 * @template T
 * @param {string} question @param {() => Promise<T>} request
 * @returns {Promise<T | null>} the device picked, or null (declined, or none picked in the chooser)
 */
export function pickDeviceDialog(question, request) {
  return new Promise((resolve, reject) => {
    const titleId = `pick-${Math.random().toString(36).slice(2)}`;
    const state = h('p', { role: 'status', class: 'small muted' });
    /** @type {{value: T | null} | {error: unknown}} */
    let outcome = { value: null };
    const choose = h('button', { type: 'button' }, 'Choose a device…');
    const dialog = h(
      'dialog',
      { class: 'dialog', 'aria-labelledby': titleId },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, 'The agent asks to use a device'),
        h('p', { class: 'plain' }, question),
        h(
          'p',
          { class: 'small muted' },
          'Only the device you pick in the browser’s list can be used; you can revoke it in Tools → Devices.',
        ),
        state,
        h('div', { class: 'dialog-actions' }, h('button', { type: 'submit', value: 'decline', class: 'secondary' }, 'Not now'), choose),
      ),
    );
    choose.addEventListener('click', () => {
      choose.disabled = true;
      state.textContent = 'Pick the device in the browser’s list…';
      request().then(
        (value) => {
          outcome = { value };
          dialog.close('picked');
        },
        (error) => {
          if (/** @type {{code?: string}} */ (error)?.code === 'cancelled') outcome = { value: null };
          else outcome = { error };
          dialog.close('picked');
        },
      );
    });
    dialog.addEventListener('close', () => {
      dialog.remove();
      if ('error' in outcome) reject(outcome.error);
      else resolve(outcome.value);
    });
    document.body.append(dialog);
    dialog.showModal();
    choose.focus();
  });
}
