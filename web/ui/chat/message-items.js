// Why this file is long: how every item of the message list looks (messages, tool calls and
//  results, failures, approvals, notices, and the notices the transcript opens with); each renderer
//  is short, and one file keeps the list of looks complete next to each other.
/** @import { ClawserEvent, EventOf } from '../../agent/types.d.ts' */
/** @import { ImageRef } from '../../providers/types.d.ts' */
/** @import { ChatState, ChatViewController } from '../types.d.ts' */
import { h, formatTime } from '../dom.js';
import { icon } from '../icon.js';
import { renderMarkdown } from '../../safety/markdown.js';
import { versionSwitcher } from './versions.js';

/** Shows a short result on a button, then its label again. @param {HTMLElement} button @param {string} text @param {string} label */
function flash(button, text, label) {
  button.textContent = text;
  setTimeout(() => (button.textContent = label), 1500);
}

/**
 * A button that copies `text()` to the clipboard and says whether it worked.
 * @param {string} label @param {string} name its accessible name @param {() => string} text
 */
function copyButton(label, name, text) {
  const button = h('button', { type: 'button', class: 'copy-btn', 'aria-label': name }, label);
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text());
      flash(button, 'Copied', label);
    } catch {
      flash(button, 'Copy failed', label);
    }
  });
  return button;
}

/** The editor module (fence names, highlighting): loaded with the first code block, not with the chat. */
const editorModule = () => import('../editor-module.js');

/**
 * Adds a bar to each code block of rendered Markdown: its language, Copy, and (when the chat can
 * save files) Save to workspace; a finished reply's code is also highlighted.
 * @param {HTMLElement} container
 * @param {{highlight: boolean, onSave?: (code: string, ext: string) => Promise<string | null>}} options
 *   onSave: resolves to the saved path, or null when the user cancelled
 */
function enhanceCodeBlocks(container, { highlight, onSave }) {
  for (const pre of container.querySelectorAll('pre')) {
    if (pre.parentElement?.classList.contains('code-block')) continue;
    const code = pre.querySelector('code');
    const lang = code?.className.match(/language-([\w+#-]+)/)?.[1];
    const buttons = h(
      'span',
      { class: 'row code-actions' },
      copyButton('Copy', 'Copy code', () => pre.textContent ?? ''),
    );
    if (onSave) {
      const save = h('button', { type: 'button', class: 'copy-btn', 'aria-label': 'Save code to the workspace' }, 'Save');
      save.addEventListener('click', async () => {
        try {
          const path = await onSave(pre.textContent ?? '', (await editorModule()).extensionForFence(lang));
          if (path) flash(save, `Saved to ${path}`, 'Save');
        } catch (err) {
          flash(save, `Not saved: ${/** @type {Error} */ (err).message}`, 'Save');
        }
      });
      buttons.append(save);
    }
    const wrapper = h(
      'div',
      { class: 'code-block' },
      h('div', { class: 'code-bar' }, h('span', { class: 'small muted' }, lang ?? 'code'), buttons),
    );
    pre.replaceWith(wrapper);
    wrapper.append(pre);
    // A long line scrolls the block sideways: reachable by keyboard (Tab, then the arrow keys).
    pre.tabIndex = 0;
    // Plain text stays when the bundle cannot load.
    if (highlight && code)
      editorModule()
        .then((m) => m.highlightElement(code, m.extensionForFence(lang)))
        .catch(() => {});
  }
}

/**
 * The text a message shows, without the code blocks' bars (their language name and buttons).
 * @param {HTMLElement} body
 */
function plainTextOf(body) {
  const copy = /** @type {HTMLElement} */ (body.cloneNode(true));
  for (const bar of copy.querySelectorAll('.code-bar')) bar.remove();
  // A detached copy has no layout, so mark where blocks end (what innerText would do on screen).
  for (const block of copy.querySelectorAll('p, li, pre, h1, h2, h3, h4, h5, h6, blockquote, tr')) block.append('\n');
  return (copy.textContent ?? '').replace(/\n{3,}/g, '\n\n').trim();
}

/** "840 ms", "12.4 s", "3 min 5 s". @param {number} ms */
function formatDuration(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const OUTCOME_WORDS = /** @type {Record<string, string>} */ ({
  ok: 'answered',
  failed: 'failed',
  cut: 'failed after starting',
  skipped: 'skipped',
  aborted: 'stopped',
});

/**
 * The tries of one model call, folded: which provider answered, and what the others did; a run
 * the user stopped reads as stopped, not as a failure of the providers.
 * @param {EventOf<'provider_attempt'>[]} run
 */
function attemptsNotice(run) {
  const answered = run.findLast((a) => a.data.outcome === 'ok');
  const failures = run.filter((a) => a.data.outcome === 'failed' || a.data.outcome === 'cut').length;
  const failed = failures ? ` after ${failures} failed ${failures === 1 ? 'try' : 'tries'}` : '';
  const who = (/** @type {EventOf<'provider_attempt'>} */ a) => `${a.data.provider} (${a.data.model})`;
  const summary = answered
    ? `Answered by ${who(answered)}${failed}${run.some((a) => a.data.outcome === 'skipped') ? ', skipping a provider' : ''}`
    : run.at(-1)?.data.outcome === 'aborted'
      ? `Stopped by you${failed}`
      : `No provider answered (${run.length} ${run.length === 1 ? 'try' : 'tries'})`;
  return h(
    'li',
    { class: 'notice small muted attempts' },
    h(
      'details',
      null,
      h('summary', null, summary),
      h(
        'ol',
        null,
        ...run.map((a) =>
          h(
            'li',
            null,
            `${who(a)}: ${OUTCOME_WORDS[String(a.data.outcome)] ?? String(a.data.outcome)}`,
            a.data.outcome !== 'skipped' ? ` after ${formatDuration(Number(a.data.latencyMs ?? 0))}` : '',
            a.data.message ? ` — ${String(a.data.message)}` : '',
            a.data.retryInMs ? ` Retried after ${formatDuration(Number(a.data.retryInMs))}.` : '',
          ),
        ),
      ),
    ),
  );
}

/** @param {'user' | 'assistant' | 'error'} kind @param {string} who @param {number | null} ts */
export function bubble(kind, who, ts) {
  const body = h('div', { class: 'msg-body' });
  const li = h(
    'li',
    { class: `msg ${kind}` },
    h(
      'div',
      { class: 'msg-meta small muted' },
      h('span', { class: 'who' }, who),
      ts ? h('time', { dateTime: new Date(ts).toISOString() }, formatTime(ts)) : null,
    ),
    body,
  );
  return { li, body };
}

/**
 * How each event of a transcript looks in the chat's message list: the user's messages (images,
 * attachments, Copy, Edit), replies (Markdown with code bars, Copy, Regenerate, Continue; a
 * continued reply is one message), the
 * versions of either (‹ 1/2 ›), tool cards ("Run again" for code), provider tries, errors and the
 * notices of what the agent did, and what the transcript opens with (`opening`). Thumbnails of attached
 * images are kept for the view's lifetime.
 * @param {{controller: ChatViewController, list: HTMLElement, onEdit: (e: EventOf<'user_message'>, li: HTMLElement) => void,
 *   onSaveCode?: (code: string, ext: string) => Promise<string | null>}} props
 *   list: the message list (a tool result completes its call's card there); onEdit: a message's Edit button
 */
export function MessageItems({ controller, list, onEdit, onSaveCode }) {
  /**
   * Renders sanitized Markdown into `el`; `final` text (not a reply still streaming) gets highlighted
   * code.
   * @param {HTMLElement} el
   * @param {string} markdown
   * @param {boolean} [final]
   */
  const setMarkdown = (el, markdown, final = true) => {
    el.innerHTML = renderMarkdown(markdown); // renderMarkdown's output is sanitized (web/safety/markdown.js)
    enhanceCodeBlocks(el, { highlight: final, onSave: onSaveCode });
  };
  /** Thumbnails of attached images by path, for the view's lifetime (revoked on destroy). @type {Map<string, Promise<string>>} */
  const thumbs = new Map();
  /** @param {ImageRef} ref @param {HTMLImageElement} img */
  const showThumb = (ref, img) => {
    let url = thumbs.get(ref.path);
    if (!url) thumbs.set(ref.path, (url = controller.imageUrl(ref)));
    url.then(
      (u) => {
        img.src = u;
      },
      () => {
        img.alt = `${img.alt} (missing)`;
      },
    );
  };

  /**
   * Copy a message as written (Markdown) or as the plain text on screen.
   * @param {string} markdown @param {HTMLElement} body
   */
  const messageActions = (markdown, body) =>
    h(
      'div',
      { class: 'row msg-actions' },
      copyButton('Copy', 'Copy message as Markdown', () => markdown),
      copyButton('Copy text', 'Copy text of the message (plain text)', () => plainTextOf(body)),
    );

  /**
   * "Run again" on a code card: runs through the same gates, with a Stop of its own; the output is
   * shown, not recorded.
   * @param {string} code
   */
  const runAgainButton = (code) => {
    const out = h('pre', { class: 'tool-output', hidden: true, 'aria-live': 'polite' });
    const button = h('button', { type: 'button', class: 'secondary small-btn' }, 'Run again');
    const stop = h('button', { type: 'button', class: 'secondary small-btn', hidden: true, 'aria-label': 'Stop this run' }, 'Stop');
    /** @type {AbortController | null} */
    let abort = null;
    stop.addEventListener('click', () => abort?.abort());
    button.addEventListener('click', async () => {
      button.disabled = true;
      stop.hidden = false;
      abort = new AbortController();
      out.hidden = false;
      out.textContent = 'Running…';
      try {
        const r = await controller.runAgain(code, abort.signal);
        out.textContent = `${r.ok ? '✓' : '✗'} ${Math.round(r.durationMs)} ms (not added to the conversation)\n${r.output}`;
      } catch (err) {
        out.textContent = `✗ ${/** @type {Error} */ (err).message}`;
      } finally {
        abort = null;
        stop.hidden = true;
        button.disabled = false;
      }
    });
    return h('div', { class: 'run-again' }, button, stop, out);
  };

  /** @param {EventOf<'user_message'>} e @param {{index: number, count: number} | undefined} versions @param {boolean} idle */
  const userMessage = (e, versions, idle) => {
    if (e.data.continues) {
      return h(
        'li',
        { class: 'notice small muted' },
        'You asked the model to continue its stopped reply.',
        versions ? versionSwitcher(controller, e.id, versions, 'message') : '',
      );
    }
    const { li, body } = bubble('user', 'You', e.timestamp);
    li.dataset.eventId = e.id;
    const refs = Array.isArray(e.data.images) ? e.data.images : [];
    if (refs.length) {
      body.append(
        h(
          'div',
          { class: 'msg-images' },
          ...refs.map((/** @type {ImageRef} */ ref, /** @type {number} */ i) => {
            const img = /** @type {HTMLImageElement} */ (h('img', { alt: `Image ${i + 1} you attached`, loading: 'lazy' }));
            showThumb(ref, img);
            return img;
          }),
        ),
      );
    }
    if (e.data.text) body.append(h('p', { class: 'plain' }, String(e.data.text ?? '')));
    // What went with the message: an MCP prompt's text, attached resources (shown folded).
    const prompt = e.data.prompt;
    if (prompt && typeof prompt.text === 'string')
      body.append(
        h(
          'details',
          { class: 'msg-attachment' },
          h('summary', null, `Prompt ${String(prompt.name ?? '')} of the MCP server “${String(prompt.server ?? '')}”`),
          h('pre', null, prompt.text),
        ),
      );
    for (const a of Array.isArray(e.data.attachments) ? e.data.attachments : []) {
      body.append(
        h(
          'details',
          { class: 'msg-attachment' },
          h('summary', null, icon('paperclip'), String(a?.label ?? 'attachment')),
          h('pre', null, String(a?.text ?? '')),
        ),
      );
    }
    const actions = messageActions(String(e.data.text ?? ''), body);
    if (idle)
      actions.append(
        h(
          'button',
          {
            type: 'button',
            class: 'copy-btn',
            'aria-label': 'Edit this message',
            title: 'Edit and send again (the current version is kept)',
            on: { click: () => onEdit(e, li) },
          },
          'Edit',
        ),
      );
    if (versions) actions.append(versionSwitcher(controller, e.id, versions, 'message'));
    li.append(actions);
    return li;
  };

  /**
   * A reply, with the continuations that join it (the user stopped it and asked the model to go
   * on): one message of their text, saying what its last part says (stopped, refused, cached).
   * @param {EventOf<'agent_message'>} e @param {boolean} idle @param {boolean} continuable
   * @param {EventOf<'agent_message'>[]} parts
   */
  const reply = (e, idle, continuable, parts) => {
    if (!e.data.text && e.data.toolCalls?.length) return null; // only tool calls: their cards follow
    const text = parts.length
      ? controller.rules.joinReplyText([e, ...parts].map((p) => String(p.data.text ?? '')))
      : String(e.data.text ?? '');
    const end = parts.at(-1) ?? e;
    // A named agent's reply carries its name (and the model that wrote it).
    const { li, body } = bubble(
      'assistant',
      e.data.agent ? `@${String(e.data.agent)} · ${String(e.data.model ?? '')}` : String(e.data.model ?? 'Assistant'),
      e.timestamp,
    );
    if (e.data.agent) li.dataset.agent = String(e.data.agent);
    li.dataset.eventId = e.id;
    if (parts.length) li.dataset.continued = String(parts.length);
    setMarkdown(body, text);
    const actions = messageActions(text, body);
    if (idle && controller.rules.regenerable(e))
      actions.append(
        h(
          'button',
          {
            type: 'button',
            class: 'copy-btn',
            'aria-label': 'Regenerate this reply (the current one is kept as a version)',
            on: { click: () => controller.regenerate(e.id) },
          },
          'Regenerate',
        ),
      );
    if (idle && continuable)
      actions.append(
        h(
          'button',
          {
            type: 'button',
            class: 'copy-btn call-to-action',
            'aria-label': 'Continue this reply',
            title: 'Ask the model to go on from where you stopped it',
            on: { click: () => controller.continueReply() },
          },
          'Continue',
        ),
      );
    li.append(actions);
    if (end.data.stopped) li.append(h('p', { class: 'small muted stopped-note' }, 'Stopped — the reply above is incomplete.'));
    if (end.data.stopReason === 'refusal') li.append(h('p', { class: 'small muted' }, 'Refusal — the model declined this request.'));
    if (end.data.cached)
      li.append(
        h(
          'p',
          { class: 'small muted' },
          'From the response cache: the same request was answered moments ago (no cost). Regenerate asks the model again.',
        ),
      );
    return li;
  };

  /** A tool call's card; its result completes the card already in the list. @param {EventOf<'tool_call'> | EventOf<'tool_result'>} e */
  const toolCard = (e) => {
    if (e.type === 'tool_call') {
      const isPython = e.data.name === 'run_python';
      const isCode = (e.data.name === 'run_js' || isPython) && typeof e.data.arguments?.code === 'string';
      const codeName = isPython ? (e.data.codex ? 'python' : 'run_python') : e.data.codex ? 'code' : 'run_js';
      const card = h(
        'details',
        { class: `tool-card${isCode ? ' code-card' : ''}`, 'data-tool-call': String(e.data.id ?? ''), open: isCode },
        h(
          'summary',
          null,
          h('span', { class: 'tool-name' }, isCode ? codeName : String(e.data.name ?? 'tool')),
          h('span', { class: 'tool-state small muted' }, 'running…'),
        ),
        isCode
          ? h(
              'div',
              { class: 'tool-section' },
              h(
                'pre',
                { class: 'tool-code' },
                h('code', { class: `language-${isPython ? 'python' : 'js'}` }, String(e.data.arguments.code)),
              ),
              // "Run again" reruns JavaScript (a Python block is run again by asking the agent).
              isPython ? null : runAgainButton(String(e.data.arguments.code)),
            )
          : h(
              'div',
              { class: 'tool-section' },
              h('div', { class: 'small muted' }, 'Arguments'),
              h('pre', { class: 'tool-args' }, JSON.stringify(e.data.arguments ?? {}, null, 2)),
            ),
      );
      return h('li', { class: 'msg tool' }, card);
    }
    const card = list.querySelector(`details[data-tool-call="${CSS.escape(String(e.data.toolCallId ?? ''))}"]`);
    if (card) {
      const state = card.querySelector('.tool-state');
      if (state) {
        const waited = e.data.approvalMs ? ` (after ${formatDuration(Number(e.data.approvalMs))} waiting for approval)` : '';
        state.textContent =
          `${e.data.ok ? '✓' : e.data.blocked ? `✗ ${e.data.blocked}` : '✗ failed'} ` +
          `· ${formatDuration(Number(e.data.durationMs ?? 0))}${waited}`;
        state.classList.toggle('bad', !e.data.ok);
      }
      if (e.data.arguments)
        card.append(
          h(
            'div',
            { class: 'tool-section' },
            h('div', { class: 'small muted' }, 'Arguments as run (rewritten by a hook)'),
            h('pre', null, JSON.stringify(e.data.arguments, null, 2)),
          ),
        );
      card.append(
        h(
          'div',
          { class: 'tool-section' },
          h('div', { class: 'small muted' }, 'Result'),
          h('pre', { class: 'tool-output' }, String(e.data.result ?? '')),
        ),
      );
    }
    return null;
  };

  /**
   * An error the reply ended with, or self-repair stopping a stuck run.
   * @param {EventOf<'self_repair'> | EventOf<'provider_error'> | EventOf<'stream_error'>} e
   */
  const failure = (e) => {
    if (e.type === 'self_repair') {
      if (e.data.action !== 'stopped')
        return h(
          'li',
          { class: 'notice small muted' },
          `Self-repair: ${String(e.data.message ?? '')} The agent was told to change course.`,
        );
      const { li, body } = bubble('error', 'Self-repair', e.timestamp);
      li.dataset.eventId = e.id;
      body.append(h('p', null, String(e.data.message ?? 'Stopped: the run looked stuck.')));
      return li;
    }
    const { li, body } = bubble('error', 'Error', e.timestamp);
    li.dataset.eventId = e.id;
    if (e.data.partialText) {
      const partial = h('div', { class: 'partial' });
      setMarkdown(partial, String(e.data.partialText));
      body.append(partial);
    }
    body.append(h('p', null, h('strong', null, 'The reply failed. '), String(e.data.message ?? '')));
    return li;
  };

  /**
   * The list item of one event (null: nothing of its own to show). A reply's other versions
   * start above it.
   * @param {ClawserEvent} e @param {ChatState} s
   * @param {{continuable: boolean, tries: Map<string, EventOf<'provider_attempt'>[]>, joined?: EventOf<'agent_message'>[]}} transcript
   *   continuable: the stopped reply the transcript ends with; tries: the runs of provider tries worth showing; joined: a
   *   reply's continuations, drawn in it
   * @returns {Node | null}
   */
  const item = (e, s, { continuable, tries, joined = [] }) => {
    const idle = !s.streaming;
    const versions = s.versions.get(e.id);
    if (e.type === 'user_message') return userMessage(e, versions, idle);
    // Another version of a reply starts here (whatever the turn shows first).
    const replyVersions = versions
      ? h('li', { class: 'notice small muted versions-row' }, versionSwitcher(controller, e.id, versions, 'reply'))
      : null;
    const run = e.type === 'provider_attempt' ? tries.get(e.id) : undefined;
    const shown =
      e.type === 'provider_attempt'
        ? run
          ? attemptsNotice(run)
          : null
        : e.type === 'agent_message'
          ? reply(e, idle, continuable, joined)
          : e.type === 'tool_call' || e.type === 'tool_result'
            ? toolCard(e)
            : e.type === 'self_repair' || e.type === 'provider_error' || e.type === 'stream_error'
              ? failure(e)
              : recordNotice(e, controller);
    if (!replyVersions) return shown;
    const group = document.createDocumentFragment();
    group.append(replyVersions);
    if (shown) group.append(shown);
    return group;
  };

  const destroy = () => {
    for (const url of thumbs.values())
      url.then(
        (u) => URL.revokeObjectURL(u),
        () => {},
      );
  };
  /**
   * The versions of an event the transcript draws inside another (a continuation).
   * @param {string} id @param {{index: number, count: number}} versions
   */
  const versionsRow = (id, versions) =>
    h('li', { class: 'notice small muted versions-row' }, versionSwitcher(controller, id, versions, 'reply'));
  return { item, versionsRow, opening: (/** @type {ChatState} */ s) => opening(s, controller), setMarkdown, destroy };
}

/**
 * What the transcript opens with: whose task a sub-agent's conversation is and which
 * conversation a fork came from (each with the way back), and "Show earlier messages".
 * @param {ChatState} s @param {Pick<ChatViewController, 'select' | 'loadEarlier' | 'busy'>} controller
 * @returns {HTMLElement[]}
 */
function opening(s, controller) {
  const items = [];
  // A sub-agent's conversation says whose task it is, with the way back.
  const parent = s.conversations.find((c) => c.id === s.activeId)?.parent;
  if (parent) {
    const from = s.conversations.find((c) => c.id === parent.conversationId);
    items.push(
      h(
        'li',
        { class: 'notice small muted sub-agent-of' },
        `Sub-agent @${parent.agent}'s conversation: a task delegated from “${from?.title ?? 'a deleted conversation'}”` +
          `${controller.busy ? ' — it is working here now ' + '(messages can be ' + 'sent once it is done)' : ''}. `,
        from
          ? h(
              'button',
              { type: 'button', class: 'secondary small-btn', on: { click: () => controller.select(parent.conversationId) } },
              'Open the delegating conversation',
            )
          : '',
      ),
    );
  }
  // A fork says which conversation it came from, with the way back while that one exists.
  const forkOf = s.conversations.find((c) => c.id === s.activeId)?.forkOf;
  if (forkOf) {
    const from = s.conversations.find((c) => c.id === forkOf.conversationId);
    items.push(
      h(
        'li',
        { class: 'notice small muted fork-of' },
        `A fork of “${from?.title ?? forkOf.title}”${from ? '' : ' (since deleted)'}: its messages up to the fork, continued here. `,
        from
          ? h(
              'button',
              { type: 'button', class: 'secondary small-btn', on: { click: () => controller.select(forkOf.conversationId) } },
              'Open the original conversation',
            )
          : '',
      ),
    );
  }
  if (s.hasEarlier) {
    items.push(
      h(
        'li',
        { class: 'earlier' },
        h('button', { type: 'button', class: 'secondary', on: { click: () => controller.loadEarlier() } }, 'Show earlier messages'),
      ),
    );
  }
  return items;
}

/**
 * The notice of what the agent (or the user) did: memories, skills, goals, jobs, compaction,
 * redaction, undo, sub-agents; null for events that are records only.
 * @param {ClawserEvent} e @param {Pick<ChatViewController, 'select'>} controller
 */
function recordNotice(e, controller) {
  if (e.type === 'autonomy_blocked' || e.type === 'error')
    return h('li', { class: 'notice warn', role: 'status' }, String((e.type === 'error' ? e.data.message : e.data.reason) ?? 'Stopped.'));
  if (e.type === 'memory_recalled') {
    const keys = (e.data.memories ?? []).map((/** @type {{key: string}} */ m) => m.key);
    return h('li', { class: 'notice small muted' }, `Memories used: ${keys.join(', ')}`);
  }
  if (e.type === 'skill_activated' || e.type === 'skill_installed') {
    const name = String(e.data.name ?? '');
    return h(
      'li',
      { class: 'notice small muted' },
      e.type === 'skill_installed'
        ? `Skill installed: ${name}`
        : `Skill “${name}” activated${e.data.by === 'user' ? ' (by you)' : ''}: its instructions are in use.`,
    );
  }
  if (e.type === 'memory_stored' || e.type === 'memory_forgotten') {
    return h('li', { class: 'notice small muted' }, `${e.type === 'memory_stored' ? 'Remembered' : 'Forgot'}: ${String(e.data.key ?? '')}`);
  }
  if (e.type === 'goal_added' || e.type === 'goal_updated') {
    return h(
      'li',
      { class: 'notice small muted' },
      e.type === 'goal_added'
        ? `Goal added: ${String(e.data.description ?? '')}`
        : `Goal ${String(e.data.id ?? '')} is now ${String(e.data.status ?? '')}${e.data.progress ? ` — ${String(e.data.progress)}` : ''}`,
    );
  }
  if (e.type === 'scheduler_added' || e.type === 'scheduler_removed') {
    return h(
      'li',
      { class: 'notice small muted' },
      `${e.type === 'scheduler_added' ? 'Scheduled' : 'Deleted the scheduled job'}: ${String(e.data.name ?? '')}`,
    );
  }
  if (e.type === 'channel_message' || e.type === 'channel_ignored') {
    const who = e.data.sender ? `${e.data.sender.name} (${e.data.sender.id})` : 'someone';
    return h(
      'li',
      { class: 'notice small muted' },
      e.type === 'channel_message'
        ? `Through the channel “${e.data.channel}”, from ${who}:`
        : `The channel “${e.data.channel}” ignored a message from ${who} (${e.data.reason.replaceAll('_', ' ')}).`,
    );
  }
  if (e.type === 'scheduler_fired') {
    const missed = Number(e.data.missed) || 0;
    const late = e.data.why
      ? ` (due ${new Date(Number(e.data.scheduledFor)).toLocaleString()}, ran late: ${String(e.data.why)}` +
        `${missed ? `; ${missed} more missed time${missed === 1 ? '' : 's'} not run separately` : ''})`
      : missed
        ? ` (it was due ` + `while Clawser was closed; ${missed + 1} runs were missed, run once)`
        : '';
    const head = `Scheduled job “${String(e.data.name ?? '')}” ${e.data.manual ? 'run now' : 'ran'}${late}`;
    if ((e.data.kind === 'prompt' || e.data.kind === 'heartbeat') && e.data.ok === undefined)
      return h('li', { class: 'notice small muted scheduled' }, icon('clock'), `${head}.`);
    return h(
      'li',
      { class: `notice scheduled${e.data.ok === false ? ' warn' : ''}`, role: 'status' },
      h('div', null, icon('clock'), `${head}: ${e.data.ok ? 'done' : 'failed'}.`),
      e.data.summary ? h('pre', { class: 'tool-output' }, String(e.data.summary)) : '',
    );
  }
  if (e.type === 'context_compacted') {
    return h(
      'li',
      { class: 'notice small muted' },
      `Earlier messages were summarized to keep the conversation within the model's context (${e.data.replacedMessages} ` +
        `messages${
          e.data.method === 'truncation'
            ? ', by truncation because the summary ' + 'call failed'
            : e.data.method === 'on-device'
              ? ", on this device by Chrome's " + 'built-in summarizer'
              : ''
        }).`,
    );
  }
  if (e.type === 'safety_output_redacted') {
    return h(
      'li',
      { class: 'notice small muted' },
      `A secret-looking value (${(e.data.kinds ?? []).join(', ')}) was redacted from the reply.`,
    );
  }
  if (e.type === 'turn_undone' || e.type === 'turn_redone') {
    const summary = String(e.data.summary ?? '');
    // A turn that changed nothing has nothing put back to name.
    const changed = !!summary && !summary.startsWith('no files');
    return h(
      'li',
      { class: 'notice small muted turn-undone', 'data-event-id': e.id },
      e.type === 'turn_undone'
        ? `Turn undone: ${changed ? `${summary} put back; its` : 'its'} messages are hidden from the model (kept in the event log).`
        : `Turn redone${changed ? `: ${summary}` : ''}.`,
      Array.isArray(e.data.kept) && e.data.kept.length ? ` Kept as changed since: ${e.data.kept.join(', ')}.` : '',
      Array.isArray(e.data.failed) && e.data.failed.length ? ` Could not put back: ${e.data.failed.join('; ')}.` : '',
    );
  }
  if (e.type === 'agent_delegated') {
    const who = `@${String(e.data.agent ?? 'sub-agent')}`;
    const id = String(e.data.conversationId ?? '');
    return h(
      'li',
      { class: 'notice small muted delegation-done' },
      `Sub-agent ${who} ${e.data.status === 'done' ? 'finished' : e.data.status === 'cancelled' ? 'was cancelled' : 'failed'}` +
        `${Array.isArray(e.data.files) && e.data.files.length ? ` · changed ${e.data.files.join(', ')}` : ''}${
          e.data.costCents ? ` ` + `· ${Number(e.data.costCents).toFixed(2)}¢` : ''
        } `,
      id
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary small-btn',
              'aria-label': `Open the conversation of ${who}`,
              on: { click: () => controller.select(id) },
            },
            'Open the conversation',
          )
        : '',
    );
  }
  return null; // safety_tool_blocked shows on its tool card; the rest are records only
}
