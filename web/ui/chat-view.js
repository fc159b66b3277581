/** @import { ChatState, ChatViewController } from './types.d.ts' */
/** @import { ClawserEvent } from '../agent/types.d.ts' */
import { ImageAttachments } from './image-attach.js';
import { h, clear, formatTime } from './dom.js';
import { choiceDialog } from './dialogs.js';
import { renderMarkdown } from '../safety/markdown.js';
import { extensionForFence, highlightElement } from './editor-module.js';

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
    const ext = extensionForFence(lang);
    const buttons = h('span', { class: 'row code-actions' }, copyButton('Copy', 'Copy code', () => pre.textContent ?? ''));
    if (onSave) {
      const save = h('button', { type: 'button', class: 'copy-btn', 'aria-label': 'Save code to the workspace' }, 'Save');
      save.addEventListener('click', async () => {
        try {
          const path = await onSave(pre.textContent ?? '', ext);
          if (path) flash(save, `Saved to ${path}`, 'Save');
        } catch (err) {
          flash(save, `Not saved: ${/** @type {Error} */ (err).message}`, 'Save');
        }
      });
      buttons.append(save);
    }
    const wrapper = h('div', { class: 'code-block' }, h('div', { class: 'code-bar' }, h('span', { class: 'small muted' }, lang ?? 'code'), buttons));
    pre.replaceWith(wrapper);
    wrapper.append(pre);
    if (highlight && code) highlightElement(code, ext).catch(() => {}); // plain text stays when the bundle cannot load
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

const OUTCOME_WORDS = /** @type {Record<string, string>} */ ({ ok: 'answered', failed: 'failed', cut: 'failed after starting', skipped: 'skipped', aborted: 'stopped' });

/** The tries of one model call, folded: which provider answered, and what the others did. @param {ClawserEvent[]} run */
function attemptsNotice(run) {
  const answered = run.findLast((a) => a.data.outcome === 'ok');
  const failures = run.filter((a) => a.data.outcome === 'failed' || a.data.outcome === 'cut').length;
  const who = (/** @type {ClawserEvent} */ a) => `${a.data.provider} (${a.data.model})`;
  const summary = answered
    ? `Answered by ${who(answered)}${failures ? ` after ${failures} failed ${failures === 1 ? 'try' : 'tries'}` : ''}${run.some((a) => a.data.outcome === 'skipped') ? ', skipping a provider' : ''}`
    : `No provider answered (${run.length} ${run.length === 1 ? 'try' : 'tries'})`;
  return h('li', { class: 'notice small muted attempts' },
    h('details', null,
      h('summary', null, summary),
      h('ol', null, ...run.map((a) => h('li', null,
        `${who(a)}: ${OUTCOME_WORDS[String(a.data.outcome)] ?? String(a.data.outcome)}`,
        a.data.outcome !== 'skipped' ? ` after ${formatDuration(Number(a.data.latencyMs ?? 0))}` : '',
        a.data.message ? ` — ${String(a.data.message)}` : '',
        a.data.retryInMs ? ` Retried after ${formatDuration(Number(a.data.retryInMs))}.` : '')))));
}

/** "840 ms", "12.4 s", "3 min 5 s". @param {number} ms */
export function formatDuration(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/**
 * The chat panel: transcript, streaming reply, inline errors, composer.
 * @param {{controller: ChatViewController, needsSetup: boolean, setupCard: () => HTMLElement, onOpenSettings: () => void, onConversationChange: (id: string | null) => void, onSaveCode?: (code: string, ext: string) => Promise<string | null>}} props
 *   onSaveCode: saves a code block as a workspace file; resolves to its path, or null when cancelled
 */
export function ChatView({ controller, needsSetup, setupCard, onOpenSettings, onConversationChange, onSaveCode }) {
  /** Renders sanitized Markdown into `el`; `final` text (not a reply still streaming) gets highlighted code. @param {HTMLElement} el @param {string} markdown @param {boolean} [final] */
  const setMarkdown = (el, markdown, final = true) => {
    el.innerHTML = renderMarkdown(markdown); // renderMarkdown's output is sanitized (web/safety/markdown.js)
    enhanceCodeBlocks(el, { highlight: final, onSave: onSaveCode });
  };
  // The live region wraps the list, so the list keeps its list semantics (a role on the <ol> would drop them).
  const list = h('ol', { class: 'messages', 'aria-label': 'Messages' });
  const log = h('div', { role: 'log', 'aria-label': 'Conversation', 'aria-live': 'polite' }, list);
  const scroller = h('div', { class: 'scroller' }, log);
  const composer = h('textarea', { class: 'composer-input', 'aria-label': 'Message', placeholder: needsSetup ? 'Choose a provider above to start' : 'Message Clawser…', title: 'Enter sends, Shift+Enter starts a new line', rows: 2, disabled: needsSetup });
  const send = h('button', { type: 'submit', class: 'send-btn', disabled: needsSetup }, 'Send');
  const stop = h('button', { type: 'button', class: 'stop-btn danger', hidden: true, title: 'Stop the reply (Esc)', 'aria-keyshortcuts': 'Escape' }, 'Stop');
  const form = h('form', { class: 'composer', 'aria-label': 'Send a message' });
  const attachments = ImageAttachments({ limits: () => controller.imageLimits(), dropTarget: form, pasteTarget: composer, onChange: () => drawMeter() });
  // Texts attached to the next message (MCP resources), each removable.
  const textAttachments = h('ul', { class: 'attachments text-attachments', 'aria-label': 'Attached resources', hidden: true });
  // "@" at the start of a message completes to the named agents (arrows, Enter or Tab, Esc).
  const mentionList = h('ul', { id: 'mention-list', role: 'listbox', class: 'mention-list', 'aria-label': 'Agents to address', hidden: true });
  composer.setAttribute('aria-autocomplete', 'list');
  composer.setAttribute('aria-controls', 'mention-list');
  form.append(mentionList, attachments.tray, textAttachments, composer, attachments.note, h('div', { class: 'composer-actions' }, attachments.button, attachments.input, stop, send));
  attachments.button.toggleAttribute('disabled', needsSetup);
  /** Thumbnails of attached images by path, for the view's lifetime (revoked on destroy). @type {Map<string, Promise<string>>} */
  const thumbs = new Map();
  /** @param {import('../providers/types.d.ts').ImageRef} ref @param {HTMLImageElement} img */
  const showThumb = (ref, img) => {
    let url = thumbs.get(ref.path);
    if (!url) thumbs.set(ref.path, (url = controller.imageUrl(ref)));
    url.then((u) => { img.src = u; }, () => { img.alt = `${img.alt} (missing)`; });
  };
  // One-off notices (storage repaired, changes committed) live outside the transcript, so one
  // arriving late never rebuilds the messages (and loses e.g. a "Run again" output).
  const noticeBar = h('p', { class: 'notice chat-notice', role: 'status', hidden: true });
  // The cost and token meter: this conversation's spend, the workspace's today, the context size with the draft.
  const meter = h('p', { class: 'chat-meter small muted', role: 'group', 'aria-label': 'Cost and tokens' });
  // The conversation's model: the workspace's, or one of its routing hints (shown when any is set).
  const routeSelect = /** @type {HTMLSelectElement} */ (h('select', { id: 'chat-route' }));
  const routeModel = h('span', { id: 'chat-route-model', class: 'muted' });
  routeSelect.setAttribute('aria-describedby', routeModel.id);
  const routeRow = h('div', { class: 'chat-route row small', hidden: true }, h('label', { for: routeSelect.id }, 'Model for this conversation'), routeSelect, routeModel);
  routeSelect.addEventListener('change', () => {
    controller.pinRoute(/** @type {import('../agent/types.d.ts').RouteHint | null} */ (routeSelect.value || null)).catch(() => {});
  });
  const costWarning = h('p', { class: 'notice warn chat-cost-warning', role: 'status', hidden: true });
  // Providers the circuit breaker skips for now (after repeated failures).
  const pausedNotice = h('p', { class: 'notice warn chat-paused', role: 'status', hidden: true });
  let pausedTimer = 0;
  const root = h('section', { class: 'chat', 'aria-label': 'Chat' }, h('div', { class: 'chat-bar' }, routeRow, meter), costWarning, pausedNotice, scroller, noticeBar, form);
  const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
  /** "$0.0042", "$1.23". @param {number} cents */
  const usd = (cents) => (cents === 0 ? '$0' : cents < 0.01 ? '< $0.0001' : cents < 1 ? `$${(cents / 100).toFixed(4)}` : cents < 100 ? `$${(cents / 100).toFixed(3)}` : `$${(cents / 100).toFixed(2)}`);
  const drawMeter = () => {
    const m = last?.meter;
    if (!m) {
      meter.hidden = true;
      return;
    }
    const draft = controller.estimateTokens(composer.value);
    const context = m.spend.contextTokens + draft;
    const parts = [];
    if (context > 0) parts.push(`≈ ${compact.format(context)} tokens in context${draft ? ' with your message' : ''}`);
    if (m.spend.calls > 0) {
      const known = m.spend.unpricedCalls === m.spend.calls ? 'cost unknown' : `${m.spend.partial ? 'at least ' : ''}${usd(m.spend.costCents)}${m.spend.unpricedCalls ? ' + unknown' : ''}`;
      parts.push(`this conversation ${known} (${compact.format(m.spend.inputTokens + m.spend.outputTokens)} tokens)`);
    }
    if (m.todayCents) parts.push(`today ${usd(m.todayCents)}`);
    if (m.monthCents && m.monthCents !== m.todayCents) parts.push(`this month ${usd(m.monthCents)}`);
    meter.textContent = parts.join(' · ');
    meter.hidden = parts.length === 0;
    costWarning.textContent = m.warning ? `${m.warning} Limits are in Settings.` : '';
    costWarning.hidden = !m.warning;
    const paused = (m.paused ?? []).filter((p) => p.retryAt > Date.now());
    pausedNotice.textContent = paused.map((p) => `${p.provider} is paused after ${p.failures} failed requests in a row; it is tried again at ${new Date(p.retryAt).toLocaleTimeString()} (the next provider of your fallback chain answers meanwhile).`).join(' ');
    pausedNotice.hidden = paused.length === 0;
    // The notice goes when the pause ends, even if nothing else redraws the chat.
    clearTimeout(pausedTimer);
    if (paused.length) pausedTimer = /** @type {any} */ (setTimeout(drawMeter, Math.min(...paused.map((p) => p.retryAt)) - Date.now() + 100)); // timer id (number in browsers)
    const routes = m.routes ?? [];
    routeRow.hidden = routes.length === 0;
    const wanted = [['', 'Workspace default'], ...routes.map((r) => [r.hint, r.label])];
    if (routeSelect.options.length !== wanted.length || wanted.some(([v, l], i) => routeSelect.options[i].value !== v || routeSelect.options[i].text !== l)) {
      routeSelect.replaceChildren(...wanted.map(([v, l]) => h('option', { value: v }, l)));
    }
    routeSelect.value = m.route && routes.some((r) => r.hint === m.route) ? m.route : '';
    routeModel.textContent = routes.find((r) => r.hint === routeSelect.value)?.model ?? '';
  };
  composer.addEventListener('input', drawMeter);

  /** @type {HTMLElement | null} */ let streamBody = null;
  /** @type {HTMLElement | null} */ let streamStatus = null;
  let renderQueued = false;
  /** @type {ChatState | null} */ let last = null;
  let lastEvents = /** @type {readonly ClawserEvent[] | null} */ (null);

  const nearBottom = () => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
  // Again after layout: the view may not be in the document yet, or images and code still settling.
  const toBottom = () => {
    if (pinned) return;
    scroller.scrollTop = scroller.scrollHeight;
    requestAnimationFrame(() => { if (!pinned) scroller.scrollTop = scroller.scrollHeight; });
  };
  /** A message brought into view (a search hit) stays there until the transcript changes. @type {HTMLElement | null} */
  let pinned = null;
  // Content that grows after it is drawn (highlighted code, images, a narrow split pane) keeps
  // the latest message in view while the reader is at the bottom.
  let atBottom = true;
  scroller.addEventListener('scroll', () => { atBottom = nearBottom(); }, { passive: true });
  const grown = new ResizeObserver(() => { if (atBottom && !pinned) scroller.scrollTop = scroller.scrollHeight; });
  grown.observe(list);

  /** @param {'user' | 'assistant' | 'error'} kind @param {string} who @param {number | null} ts */
  const bubble = (kind, who, ts) => {
    const body = h('div', { class: 'msg-body' });
    const li = h('li', { class: `msg ${kind}` }, h('div', { class: 'msg-meta small muted' }, h('span', { class: 'who' }, who), ts ? h('time', { dateTime: new Date(ts).toISOString() }, formatTime(ts)) : null), body);
    return { li, body };
  };

  /**
   * Copy a message as written (Markdown) or as the plain text on screen.
   * @param {string} markdown @param {HTMLElement} body
   */
  const messageActions = (markdown, body) => h('div', { class: 'row msg-actions' },
    copyButton('Copy', 'Copy message as Markdown', () => markdown),
    copyButton('Copy text', 'Copy text of the message (plain text)', () => plainTextOf(body)),
  );

  /** "Run again" on a code card: runs through the same gates, with a Stop of its own; the output is shown, not recorded. @param {string} code */
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

  /**
   * ‹ 2/3 ›: which version of a message or reply is shown, and the way to the others.
   * @param {string} eventId @param {{index: number, count: number}} v @param {string} what "message" or "reply"
   */
  const versionSwitcher = (eventId, v, what) => h('span', { class: 'row versions', role: 'group', 'aria-label': `Versions of this ${what}` },
    h('button', { type: 'button', class: 'icon-btn', 'aria-label': `Previous version of this ${what}`, disabled: v.index === 0, on: { click: () => controller.switchVersion(eventId, -1) } }, '‹'),
    h('span', { class: 'small', 'aria-live': 'polite' }, `${v.index + 1}/${v.count}`),
    h('button', { type: 'button', class: 'icon-btn', 'aria-label': `Next version of this ${what}`, disabled: v.index === v.count - 1, on: { click: () => controller.switchVersion(eventId, 1) } }, '›'),
  );

  /** The message being edited and its draft: kept when the transcript is drawn again meanwhile. @type {{eventId: string, draft: string} | null} */
  let editing = null;
  /** A message control that had the focus when the transcript was drawn again. @type {{eventId: string | null, index: number, label: string} | null} */
  let refocus = null;
  /**
   * Turns a sent message's bubble into an editor; sending the edit makes a new version.
   * @param {ClawserEvent} e @param {HTMLElement} li @param {boolean} [focus] false: drawn again, the focus was elsewhere
   */
  const startEdit = (e, li, focus = true) => {
    const original = String(e.data.text ?? '');
    const field = /** @type {HTMLTextAreaElement} */ (h('textarea', { class: 'composer-input', 'aria-label': 'Edit message', rows: 3 }));
    const draft = editing?.eventId === e.id ? editing.draft : original;
    field.value = draft;
    const mine = { eventId: e.id, draft };
    editing = mine;
    field.addEventListener('input', () => { mine.draft = field.value; });
    const restore = () => {
      editing = null;
      renderTranscript(/** @type {ChatState} */ (last));
      // Back on the message's Edit button, not lost at the top of the page.
      /** @type {HTMLElement | null} */ (list.querySelector(`li[data-event-id="${CSS.escape(e.id)}"] button[aria-label="Edit this message"]`))?.focus();
    };
    const submitEdit = () => {
      // A message of images alone may be sent again without text (its images stay).
      if (!field.value.trim() && !(Array.isArray(e.data.images) && e.data.images.length)) return;
      editing = null;
      controller.edit(e.id, field.value);
    };
    const editor = h('form', { class: 'edit-form', 'aria-label': 'Edit message' }, field,
      h('div', { class: 'row' },
        h('button', { type: 'submit' }, 'Send edited message'),
        h('button', { type: 'button', class: 'secondary', on: { click: restore } }, 'Cancel'),
      ),
      h('p', { class: 'small muted' }, 'The conversation continues from the edited message; the earlier version is kept (‹ › switches).'),
    );
    editor.addEventListener('submit', (ev) => { ev.preventDefault(); submitEdit(); });
    field.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) { ev.preventDefault(); submitEdit(); }
      else if (ev.key === 'Escape') { ev.preventDefault(); ev.stopPropagation(); restore(); }
    });
    li.querySelector('.msg-body')?.replaceChildren(editor);
    li.querySelector('.msg-actions')?.remove();
    if (focus) {
      field.focus();
      field.setSelectionRange(field.value.length, field.value.length);
    }
  };

  /** @param {ClawserEvent} e @param {ChatState} s @param {boolean} continuable the stopped reply the transcript ends with */
  const renderEvent = (e, s, continuable) => {
    const idle = !s.streaming;
    const versions = s.versions.get(e.id);
    if (e.type === 'user_message') {
      if (e.data.continues) {
        return h('li', { class: 'notice small muted' }, 'You asked the model to continue its stopped reply.', versions ? versionSwitcher(e.id, versions, 'message') : '');
      }
      const { li, body } = bubble('user', 'You', e.timestamp);
      li.dataset.eventId = e.id;
      const refs = Array.isArray(e.data.images) ? e.data.images : [];
      if (refs.length) {
        body.append(h('div', { class: 'msg-images' }, ...refs.map((/** @type {import('../providers/types.d.ts').ImageRef} */ ref, /** @type {number} */ i) => {
          const img = /** @type {HTMLImageElement} */ (h('img', { alt: `Image ${i + 1} you attached`, loading: 'lazy' }));
          showThumb(ref, img);
          return img;
        })));
      }
      if (e.data.text) body.append(h('p', { class: 'plain' }, String(e.data.text ?? '')));
      // What went with the message: an MCP prompt's text, attached resources (shown folded).
      const prompt = e.data.prompt;
      if (prompt && typeof prompt.text === 'string') body.append(h('details', { class: 'msg-attachment' }, h('summary', null, `Prompt ${String(prompt.name ?? '')} of the MCP server “${String(prompt.server ?? '')}”`), h('pre', null, prompt.text)));
      for (const a of Array.isArray(e.data.attachments) ? e.data.attachments : []) {
        body.append(h('details', { class: 'msg-attachment' }, h('summary', null, `📎 ${String(a?.label ?? 'attachment')}`), h('pre', null, String(a?.text ?? ''))));
      }
      const actions = messageActions(String(e.data.text ?? ''), body);
      if (idle) actions.append(h('button', { type: 'button', class: 'copy-btn', 'aria-label': 'Edit this message', title: 'Edit and send again (the current version is kept)', on: { click: () => startEdit(e, li) } }, 'Edit'));
      if (versions) actions.append(versionSwitcher(e.id, versions, 'message'));
      li.append(actions);
      return li;
    }
    // Another version of a reply starts here (whatever the turn shows first).
    const replyVersions = versions ? h('li', { class: 'notice small muted versions-row' }, versionSwitcher(e.id, versions, 'reply')) : null;
    const shown = renderRecord(e, s, idle, continuable);
    if (!replyVersions) return shown;
    const group = document.createDocumentFragment();
    group.append(replyVersions);
    if (shown) group.append(shown);
    return group;
  };

  /** The runs of provider tries worth showing, of the transcript being drawn. @type {Map<string, ClawserEvent[]>} */
  let tries = new Map();

  /** @param {ClawserEvent} e @param {ChatState} s @param {boolean} idle @param {boolean} continuable */
  const renderRecord = (e, s, idle, continuable) => {
    if (e.type === 'provider_attempt') {
      const run = tries.get(e.id);
      return run ? attemptsNotice(run) : null;
    }
    if (e.type === 'agent_message') {
      if (!e.data.text && e.data.toolCalls?.length) return null; // only tool calls: their cards follow
      // A named agent's reply carries its name (and the model that wrote it).
      const { li, body } = bubble('assistant', e.data.agent ? `@${String(e.data.agent)} · ${String(e.data.model ?? '')}` : String(e.data.model ?? 'Assistant'), e.timestamp);
      if (e.data.agent) li.dataset.agent = String(e.data.agent);
      li.dataset.eventId = e.id;
      setMarkdown(body, String(e.data.text ?? ''));
      const actions = messageActions(String(e.data.text ?? ''), body);
      if (idle && controller.rules.regenerable(e)) actions.append(h('button', { type: 'button', class: 'copy-btn', 'aria-label': 'Regenerate this reply (the current one is kept as a version)', on: { click: () => controller.regenerate(e.id) } }, 'Regenerate'));
      if (idle && continuable) actions.append(h('button', { type: 'button', class: 'copy-btn', 'aria-label': 'Continue this reply', title: 'Ask the model to go on from where you stopped it', on: { click: () => controller.continueReply() } }, 'Continue'));
      li.append(actions);
      if (e.data.stopped) li.append(h('p', { class: 'small muted' }, 'Stopped — the reply above is incomplete.'));
      if (e.data.stopReason === 'refusal') li.append(h('p', { class: 'small muted' }, 'Refusal — the model declined this request.'));
      if (e.data.cached) li.append(h('p', { class: 'small muted' }, 'From the response cache: the same request was answered moments ago (no cost). Regenerate asks the model again.'));
      return li;
    }
    if (e.type === 'tool_call') {
      const isCode = e.data.name === 'run_js' && typeof e.data.arguments?.code === 'string';
      const card = h('details', { class: `tool-card${isCode ? ' code-card' : ''}`, 'data-tool-call': String(e.data.id ?? ''), open: isCode },
        h('summary', null, h('span', { class: 'tool-name' }, isCode ? (e.data.codex ? 'code' : 'run_js') : String(e.data.name ?? 'tool')), h('span', { class: 'tool-state small muted' }, 'running…')),
        isCode
          ? h('div', { class: 'tool-section' }, h('pre', { class: 'tool-code' }, h('code', { class: 'language-js' }, String(e.data.arguments.code))), runAgainButton(String(e.data.arguments.code)))
          : h('div', { class: 'tool-section' }, h('div', { class: 'small muted' }, 'Arguments'), h('pre', { class: 'tool-args' }, JSON.stringify(e.data.arguments ?? {}, null, 2))),
      );
      return h('li', { class: 'msg tool' }, card);
    }
    if (e.type === 'tool_result') {
      const card = list.querySelector(`details[data-tool-call="${CSS.escape(String(e.data.toolCallId ?? ''))}"]`);
      if (card) {
        const state = card.querySelector('.tool-state');
        if (state) {
          const waited = e.data.approvalMs ? ` (after ${formatDuration(Number(e.data.approvalMs))} waiting for approval)` : '';
          state.textContent = `${e.data.ok ? '✓' : e.data.blocked ? `✗ ${e.data.blocked}` : '✗ failed'} · ${formatDuration(Number(e.data.durationMs ?? 0))}${waited}`;
          state.classList.toggle('bad', !e.data.ok);
        }
        if (e.data.arguments) card.append(h('div', { class: 'tool-section' }, h('div', { class: 'small muted' }, 'Arguments as run (rewritten by a hook)'), h('pre', null, JSON.stringify(e.data.arguments, null, 2))));
        card.append(h('div', { class: 'tool-section' }, h('div', { class: 'small muted' }, 'Result'), h('pre', { class: 'tool-output' }, String(e.data.result ?? ''))));
      }
      return null;
    }
    if (e.type === 'autonomy_blocked' || e.type === 'safety_tool_blocked' || e.type === 'error') {
      if (e.type === 'safety_tool_blocked') return null; // shown on the tool card
      return h('li', { class: 'notice warn', role: 'status' }, String(e.data.reason ?? e.data.message ?? 'Stopped.'));
    }
    if (e.type === 'memory_recalled') {
      const keys = (e.data.memories ?? []).map((/** @type {{key: string}} */ m) => m.key);
      return h('li', { class: 'notice small muted' }, `Memories used: ${keys.join(', ')}`);
    }
    if (e.type === 'skill_activated' || e.type === 'skill_installed') {
      const name = String(e.data.name ?? '');
      return h('li', { class: 'notice small muted' }, e.type === 'skill_installed' ? `Skill installed: ${name}` : `Skill “${name}” activated${e.data.by === 'user' ? ' (by you)' : ''}: its instructions are in use.`);
    }
    if (e.type === 'memory_stored' || e.type === 'memory_forgotten') {
      return h('li', { class: 'notice small muted' }, `${e.type === 'memory_stored' ? 'Remembered' : 'Forgot'}: ${String(e.data.key ?? '')}`);
    }
    if (e.type === 'goal_added' || e.type === 'goal_updated') {
      return h('li', { class: 'notice small muted' }, e.type === 'goal_added' ? `Goal added: ${String(e.data.description ?? '')}` : `Goal ${String(e.data.id ?? '')} is now ${String(e.data.status ?? '')}${e.data.progress ? ` — ${String(e.data.progress)}` : ''}`);
    }
    if (e.type === 'scheduler_added' || e.type === 'scheduler_removed') {
      return h('li', { class: 'notice small muted' }, `${e.type === 'scheduler_added' ? 'Scheduled' : 'Deleted the scheduled job'}: ${String(e.data.name ?? '')}`);
    }
    if (e.type === 'scheduler_fired') {
      const head = `Scheduled job “${String(e.data.name ?? '')}” ${e.data.manual ? 'run now' : 'ran'}${e.data.missed ? ` (it was due while Clawser was closed; ${Number(e.data.missed) + 1} runs were missed, run once)` : ''}`;
      if ((e.data.kind === 'prompt' || e.data.kind === 'heartbeat') && e.data.ok === undefined) return h('li', { class: 'notice small muted scheduled' }, `⏰ ${head}.`);
      return h('li', { class: `notice scheduled${e.data.ok === false ? ' warn' : ''}`, role: 'status' }, h('div', null, `⏰ ${head}: ${e.data.ok ? 'done' : 'failed'}.`), e.data.summary ? h('pre', { class: 'tool-output' }, String(e.data.summary)) : '');
    }
    if (e.type === 'context_compacted') {
      return h('li', { class: 'notice small muted' }, `Earlier messages were summarized to keep the conversation within the model's context (${e.data.replacedMessages} messages${e.data.method === 'truncation' ? ', by truncation because the summary call failed' : e.data.method === 'on-device' ? ', on this device by Chrome\'s built-in summarizer' : ''}).`);
    }
    if (e.type === 'safety_output_redacted') {
      return h('li', { class: 'notice small muted' }, `A secret-looking value (${(e.data.kinds ?? []).join(', ')}) was redacted from the reply.`);
    }
    if (e.type === 'turn_undone' || e.type === 'turn_redone') {
      const li = h('li', { class: 'notice small muted turn-undone', 'data-event-id': e.id },
        e.type === 'turn_undone'
          ? `Turn undone: ${String(e.data.summary ?? '')} put back; its messages are hidden from the model (kept in the event log).`
          : `Turn redone: ${String(e.data.summary ?? '')}.`,
        Array.isArray(e.data.kept) && e.data.kept.length ? ` Kept as changed since: ${e.data.kept.join(', ')}.` : '',
        Array.isArray(e.data.failed) && e.data.failed.length ? ` Could not put back: ${e.data.failed.join('; ')}.` : '');
      return li;
    }
    if (e.type === 'agent_delegated') {
      const who = `@${String(e.data.agent ?? 'sub-agent')}`;
      const id = String(e.data.conversationId ?? '');
      return h('li', { class: 'notice small muted delegation-done' },
        `Sub-agent ${who} ${e.data.status === 'done' ? 'finished' : e.data.status === 'cancelled' ? 'was cancelled' : 'failed'}${Array.isArray(e.data.files) && e.data.files.length ? ` · changed ${e.data.files.join(', ')}` : ''}${e.data.costCents ? ` · ${Number(e.data.costCents).toFixed(2)}¢` : ''} `,
        id ? h('button', { type: 'button', class: 'secondary small-btn', 'aria-label': `Open the conversation of ${who}`, on: { click: () => controller.select(id) } }, 'Open its conversation') : '');
    }
    if (e.type === 'self_repair') {
      if (e.data.action !== 'stopped') return h('li', { class: 'notice small muted' }, `Self-repair: ${String(e.data.message ?? '')} The agent was told to change course.`);
      const { li, body } = bubble('error', 'Self-repair', e.timestamp);
      li.dataset.eventId = e.id;
      body.append(h('p', null, String(e.data.message ?? 'Stopped: the run looked stuck.')));
      return li;
    }
    if (e.type === 'provider_error' || e.type === 'stream_error') {
      const { li, body } = bubble('error', 'Error', e.timestamp);
      li.dataset.eventId = e.id;
      if (e.data.partialText) {
        const partial = h('div', { class: 'partial' });
        setMarkdown(partial, String(e.data.partialText));
        body.append(partial);
      }
      body.append(h('p', null, h('strong', null, 'The reply failed. '), String(e.data.message ?? '')));
      return li;
    }
    return null;
  };

  const renderTranscript = (/** @type {ChatState} */ s) => {
    // A conversation opened (or reloaded) shows its latest message; one being read stays put.
    const stick = nearBottom() || lastEvents === null || s.activeId !== last?.activeId;
    // The focus was on a control of a message (Regenerate, ‹ ›, Copy…): it comes back to the
    // same control of that message (or of the message now in its place), not to the page's top.
    const focused = /** @type {HTMLElement | null} */ (document.activeElement);
    const focusedLi = focused && list.contains(focused) && focused.tagName === 'BUTTON' ? focused.closest('li') : null;
    const wasEditing = focused?.getAttribute('aria-label') === 'Edit message' && list.contains(focused);
    // Kept until the control exists again (Regenerate's buttons are hidden while the reply streams).
    if (focusedLi && focused) refocus = { eventId: focusedLi.getAttribute('data-event-id'), index: [...list.children].indexOf(focusedLi), label: focused.getAttribute('aria-label') ?? focused.textContent ?? '' };
    else if (focused && focused !== document.body && !list.contains(focused)) refocus = null;
    if (s.activeId !== last?.activeId) editing = null;
    clear(list);
    if (needsSetup) list.append(h('li', { class: 'setup' }, setupCard()));
    // A sub-agent's conversation says whose task it is, with the way back.
    const parent = s.conversations.find((c) => c.id === s.activeId)?.parent;
    if (parent) {
      const from = s.conversations.find((c) => c.id === parent.conversationId);
      list.append(h('li', { class: 'notice small muted sub-agent-of' }, `Sub-agent @${parent.agent}'s conversation: a task delegated from “${from?.title ?? 'a deleted conversation'}”${controller.busy ? ' — it is working here now (messages can be sent once it is done)' : ''}. `,
        from ? h('button', { type: 'button', class: 'secondary small-btn', on: { click: () => controller.select(parent.conversationId) } }, 'Open the delegating conversation') : ''));
    }
    if (s.hasEarlier) {
      list.append(h('li', { class: 'earlier' }, h('button', { type: 'button', class: 'secondary', on: { click: () => controller.loadEarlier() } }, 'Show earlier messages')));
    }
    const retried = controller.rules.retriedAttempts(s.events);
    const continuable = controller.rules.stoppedLastReply(s.events);
    tries = controller.rules.providerAttemptRuns(s.events);
    for (const e of s.events) {
      if (retried.has(e.id)) continue;
      const el = renderEvent(e, s, e.id === continuable);
      if (el) list.append(el);
    }
    // Cards whose call never got a result (the tab closed mid-tool) must not spin forever.
    for (const st of list.querySelectorAll('.tool-state')) if (st.textContent === 'running…' && !s.streaming) st.textContent = 'no result recorded';
    if (!needsSetup && s.events.length === 0 && !s.streaming) {
      list.append(h('li', { class: 'empty muted' }, 'Start the conversation: type a message below.'));
    }
    if (editing) {
      const li = /** @type {HTMLElement | null} */ (list.querySelector(`li[data-event-id="${CSS.escape(editing.eventId)}"]`));
      const ev = s.events.find((x) => x.id === editing?.eventId);
      if (li && ev && !s.streaming) startEdit(ev, li, wasEditing);
      else if (!li || !ev) editing = null;
    } else if (refocus && !s.streaming) {
      const want = refocus;
      // The same message, or for a reply that was regenerated the reply now last in the list.
      const candidates = /** @type {HTMLElement[]} */ ([
        want.eventId ? list.querySelector(`li[data-event-id="${CSS.escape(want.eventId)}"]`) : null,
        list.children[want.index],
        [...list.querySelectorAll('li.msg.assistant')].at(-1),
      ].filter(Boolean));
      /** @param {HTMLElement} li */
      const enabled = (li) => /** @type {HTMLElement[]} */ ([...li.querySelectorAll('button')]).filter((b) => !b.hasAttribute('disabled'));
      const same = (/** @type {HTMLElement} */ b) => (b.getAttribute('aria-label') ?? b.textContent ?? '') === want.label;
      const sibling = (/** @type {HTMLElement} */ b) => /^(Previous|Next) version/.test(want.label) && /^(Previous|Next) version/.test(b.getAttribute('aria-label') ?? '');
      const again = candidates.map((li) => enabled(li).find(same)).find(Boolean)
        ?? candidates.map((li) => enabled(li).find(sibling)).find(Boolean)
        ?? (candidates[0] ? enabled(candidates[0])[0] : null) ?? null;
      if (again) {
        again.focus({ preventScroll: true });
        refocus = null;
      }
    }
    pinned = null;
    if (s.focus) {
      // A search hit: that message, centred and marked, instead of the latest one.
      const target = /** @type {HTMLElement | null} */ (list.querySelector(`li[data-event-id="${CSS.escape(s.focus)}"]`));
      if (target) {
        pinned = target;
        target.classList.add('found');
        target.tabIndex = -1;
        target.scrollIntoView({ block: 'center' });
        target.focus({ preventScroll: true });
        requestAnimationFrame(() => { if (pinned === target) target.scrollIntoView({ block: 'center' }); });
        return;
      }
    }
    if (stick) toBottom();
  };

  const renderStreaming = (/** @type {ChatState} */ s) => {
    if (!s.streaming) {
      streamBody?.closest('li')?.remove();
      streamBody = null;
      streamStatus = null;
      return;
    }
    const stick = nearBottom();
    if (!streamBody || !streamBody.isConnected) {
      const { li, body } = bubble('assistant', 'Assistant', null);
      li.classList.add('streaming');
      streamStatus = h('p', { class: 'small muted status' });
      li.append(streamStatus);
      list.append(li);
      streamBody = body;
    }
    setMarkdown(streamBody, s.streaming.text || '', false);
    if (streamStatus) streamStatus.textContent = s.streaming.status || (s.streaming.text ? '' : 'Thinking…');
    if (stick) toBottom();
  };

  const renderFailure = (/** @type {ChatState} */ s, /** @type {boolean} */ isNew) => {
    // One display per failure: the failed turn's error message carries the actions, or (when
    // nothing was recorded, e.g. no provider configured) a notice of its own does.
    list.querySelector('li.failure:not(.msg)')?.remove();
    for (const el of list.querySelectorAll('li.msg.failure')) {
      el.classList.remove('failure');
      el.querySelector('.msg-body')?.removeAttribute('role');
      el.querySelector('.failure-actions')?.remove();
    }
    if (!s.failure) return;
    const f = s.failure;
    const actions = h('div', { class: 'row failure-actions' });
    // After self-repair stopped a stuck run, going on is the user's call (the run is watched afresh).
    if (f.selfRepair) actions.append(h('button', { type: 'button', on: { click: () => controller.retry() } }, 'Continue anyway'));
    else actions.append(h('button', { type: 'button', on: { click: () => { if (composer.value.trim() === f.text.trim()) composer.value = ''; controller.retry(); } } }, 'Retry'));
    if (!f.selfRepair && (f.code === 'auth' || f.code === 'client' || f.code === 'cors' || f.code === 'network')) {
      actions.append(h('button', { type: 'button', class: 'secondary', on: { click: onOpenSettings } }, 'Open settings'));
    }
    const lastEvent = s.events.at(-1);
    const recorded = lastEvent && (lastEvent.type === 'provider_error' || lastEvent.type === 'stream_error' || lastEvent.type === 'self_repair')
      ? list.querySelector(`li.msg.error[data-event-id="${CSS.escape(lastEvent.id)}"]`)
      : null;
    // The alert is inside the list item: a list holds only list items, for screen readers too.
    if (recorded) {
      recorded.classList.add('failure');
      const body = recorded.querySelector('.msg-body');
      body?.setAttribute('role', 'alert');
      body?.append(actions);
    } else {
      list.append(h('li', { class: 'failure' }, h('div', { role: 'alert' }, h('p', null, h('strong', null, 'The reply failed. '), f.message), actions)));
    }
    // The message the user wrote is kept for them to edit or resend.
    if (isNew && !f.resume && !composer.value.trim()) composer.value = f.text;
    toBottom();
  };

  const render = (/** @type {ChatState} */ s) => {
    const busy = !!s.streaming;
    log.setAttribute('aria-busy', busy ? 'true' : 'false');
    stop.hidden = !busy;
    send.disabled = busy || needsSetup;
    let rerendered = false;
    if (s.notice !== last?.notice) {
      noticeBar.textContent = s.notice ?? '';
      noticeBar.hidden = !s.notice;
    }
    if (s.events !== lastEvents || s.hasEarlier !== last?.hasEarlier || !!last?.streaming !== !!s.streaming) {
      lastEvents = s.events;
      streamBody = null;
      renderTranscript(s);
      rerendered = true;
    }
    if (!renderQueued) {
      renderQueued = true;
      requestAnimationFrame(() => {
        renderQueued = false;
        if (last) renderStreaming(last);
      });
    }
    if (rerendered || s.failure !== last?.failure) renderFailure(s, s.failure !== last?.failure);
    if (rerendered) drawDelegations(s);
    if (rerendered || s.undo !== last?.undo || s.redo !== last?.redo || !!s.streaming !== !!last?.streaming) drawTurnActions(s);
    if (s.activeId !== last?.activeId) onConversationChange(s.activeId);
    const meterChanged = s.meter !== last?.meter;
    if (s.attachments !== last?.attachments) {
      const items = s.attachments ?? [];
      textAttachments.replaceChildren(...items.map((a, i) => h('li', { class: 'small' }, `📎 ${a.label} `, h('button', { type: 'button', class: 'icon-btn', 'aria-label': `Remove the attachment ${a.label}`, on: { click: () => controller.detach(i) } }, '×'))));
      textAttachments.hidden = items.length === 0;
    }
    last = s;
    if (meterChanged) drawMeter();
  };

  /**
   * Live cards of the sub-agents this conversation's turn started (agent_delegate): status,
   * current step, cost, Cancel, and a way to their conversation. Under their tool cards.
   * @param {ChatState | null} s
   */
  function drawDelegations(s) {
    const board = controller.delegations;
    if (!board || !s) return;
    const live = board.list().filter((d) => d.parentConversationId === s.activeId);
    for (const el of list.querySelectorAll('.delegation-live')) {
      if (!live.some((d) => d.id === /** @type {HTMLElement} */ (el).dataset.delegation)) el.remove();
    }
    for (const d of live) {
      const card = list.querySelector(`details[data-tool-call="${CSS.escape(d.callId)}"]`);
      const host = card?.parentElement;
      if (!host) continue;
      let el = /** @type {HTMLElement | null} */ (host.querySelector('.delegation-live'));
      if (!el) {
        // Built once and updated in place: a button replaced under the pointer would lose the click.
        el = h('div', { class: 'delegation-live row', role: 'group', 'aria-label': `Sub-agent @${d.agent}`, 'data-delegation': d.id },
          h('span', { class: 'small delegation-text' }),
          h('button', { type: 'button', class: 'secondary small-btn delegation-open', hidden: true, 'aria-label': `Open the conversation of @${d.agent}`, on: { click: () => { const id = controller.delegations?.get(d.id)?.conversationId; if (id) controller.select(id); } } }, 'Open'),
          h('button', { type: 'button', class: 'secondary small-btn danger delegation-cancel', 'aria-label': `Cancel sub-agent @${d.agent}`, on: { click: () => controller.cancelDelegation(d.id) } }, 'Cancel'));
        host.append(el);
      }
      const label = { waiting: 'waiting', running: 'running', done: 'done', failed: 'failed', cancelled: 'cancelled' }[d.status];
      const text = /** @type {HTMLElement} */ (el.querySelector('.delegation-text'));
      clear(text).append(h('strong', null, `@${d.agent}`), ` — ${label} · ${d.step} · ${d.steps} tool call${d.steps === 1 ? '' : 's'}${d.costCents ? ` · ${d.costCents.toFixed(2)}¢` : ''}`);
      /** @type {HTMLButtonElement} */ (el.querySelector('.delegation-open')).hidden = !d.conversationId;
      /** @type {HTMLButtonElement} */ (el.querySelector('.delegation-cancel')).hidden = !(d.status === 'waiting' || d.status === 'running');
    }
  }
  const offDelegations = controller.delegations?.subscribe(() => drawDelegations(last)) ?? (() => {});

  /**
   * Undo a turn, or redo it; something changed by someone else since is shown, and the user
   * chooses to overwrite it or keep it (or to leave everything as it is).
   * @param {'undo' | 'redo'} direction
   */
  const takeBack = async (direction) => {
    const act = (/** @type {{conflicts?: 'ask' | 'overwrite' | 'keep'}} */ o) => (direction === 'undo' ? controller.undoTurn(o) : controller.redoTurn(o));
    // The controller says every outcome (a notice); only a conflict needs the user here.
    const r = await act({});
    if (!r.conflicts) return;
    const choice = await choiceDialog({
      title: direction === 'undo' ? 'Undo: changed since the turn' : 'Redo: changed since the undo',
      message: `These were changed by someone else after the ${direction === 'undo' ? 'turn' : 'undo'} (you, another tab, or a job). Overwrite them too, or ${direction} everything else and keep them as they are now?`,
      items: r.conflicts,
      choices: [{ value: 'keep', label: 'Keep their changes' }, { value: 'overwrite', label: 'Overwrite them', danger: true }],
    });
    if (choice) await act({ conflicts: choice });
  };

  /** The Undo button on the latest turn, and Redo on the notice of the turn undone last. @param {ChatState} s */
  function drawTurnActions(s) {
    list.querySelector('li.turn-undo')?.remove();
    for (const b of list.querySelectorAll('button.redo-turn')) b.remove();
    if (s.streaming) return;
    if (s.undo) {
      const changed = s.undo.changes > 0;
      list.append(h('li', { class: 'notice small muted turn-undo row' },
        h('span', null, `${s.events.at(-1)?.id === s.undo.last ? 'This turn' : 'The turn before'} changed ${changed ? `${s.undo.summary}.` : 'no files, memories, goals or jobs; undo takes it out of the conversation.'}`),
        h('button', { type: 'button', class: 'secondary small-btn', 'aria-keyshortcuts': 'Alt+Z', title: 'Undo the latest turn (Alt+Z)', on: { click: () => takeBack('undo') } }, 'Undo turn')));
    }
    if (s.redo) {
      list.querySelector(`li.turn-undone[data-event-id="${CSS.escape(s.redo.event)}"]`)?.append(' ',
        h('button', { type: 'button', class: 'secondary small-btn redo-turn', 'aria-keyshortcuts': 'Alt+Shift+Z', title: 'Redo the turn (Alt+Shift+Z)', on: { click: () => takeBack('redo') } }, 'Redo turn'));
    }
  }
  // Alt+Z undoes the latest turn, Alt+Shift+Z redoes it (when no dialog is open).
  /** @param {KeyboardEvent} e */
  const onUndoKey = (e) => {
    if (!e.altKey || e.ctrlKey || e.metaKey || e.code !== 'KeyZ' || !root.isConnected || document.querySelector('dialog[open]')) return;
    e.preventDefault();
    takeBack(e.shiftKey ? 'redo' : 'undo').catch(() => {}); // the controller turns failures into its notice
  };
  document.addEventListener('keydown', onUndoKey);

  const submit = () => {
    const text = composer.value;
    if ((!text.trim() && !attachments.count && !last?.attachments?.length) || controller.busy || needsSetup) return;
    composer.value = '';
    const images = attachments.take();
    drawMeter();
    controller.send(text, images);
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    submit();
  });
  /** @type {{name: string, description: string}[]} */
  let mentionOptions = [];
  let mentionActive = 0;
  const drawMentions = () => {
    mentionList.hidden = !mentionOptions.length;
    clear(mentionList).append(...mentionOptions.map((a, i) => h('li', {
      id: `mention-${a.name}`, role: 'option', 'aria-selected': String(i === mentionActive), class: i === mentionActive ? 'active' : '',
      on: { mousedown: (/** @type {MouseEvent} */ ev) => { ev.preventDefault(); acceptMention(i); } },
    }, h('strong', null, `@${a.name}`), a.description ? h('span', { class: 'small muted' }, ` — ${a.description.slice(0, 80)}`) : '')));
    if (mentionOptions.length) composer.setAttribute('aria-activedescendant', `mention-${mentionOptions[mentionActive].name}`);
    else composer.removeAttribute('aria-activedescendant');
  };
  /** @param {number} i */
  const acceptMention = (i) => {
    const a = mentionOptions[i];
    if (!a) return;
    composer.value = `@${a.name} `;
    mentionOptions = [];
    drawMentions();
    composer.focus();
  };
  let mentionAsked = 0;
  composer.addEventListener('input', () => {
    const text = composer.value;
    if (!text.startsWith('@') || /\s/.test(text)) {
      if (mentionOptions.length) { mentionOptions = []; drawMentions(); }
      return;
    }
    const asked = ++mentionAsked;
    controller.mentionCompletions(text).then((found) => {
      if (asked !== mentionAsked) return;
      mentionOptions = found;
      mentionActive = 0;
      drawMentions();
    }, () => {});
  });
  composer.addEventListener('blur', () => { mentionOptions = []; drawMentions(); });
  composer.addEventListener('keydown', (e) => {
    if (mentionOptions.length) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        mentionActive = (mentionActive + (e.key === 'ArrowDown' ? 1 : mentionOptions.length - 1)) % mentionOptions.length;
        drawMentions();
        return;
      }
      if ((e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        acceptMention(mentionActive);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        mentionOptions = [];
        drawMentions();
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    }
  });
  stop.addEventListener('click', () => controller.stop());
  // Esc stops a streaming reply, wherever the focus is in the chat — unless a dialog is open (Esc closes that).
  /** @param {KeyboardEvent} e */
  const onKey = (e) => {
    if (e.key !== 'Escape' || e.defaultPrevented || !last?.streaming || !root.isConnected || document.querySelector('dialog[open]')) return;
    // Beside a panel, Esc in the panel (e.g. its editor) is the panel's.
    if (/** @type {HTMLElement | null} */ (e.target)?.closest?.('.split-panel')) return;
    e.preventDefault();
    controller.stop();
  };
  document.addEventListener('keydown', onKey);

  const unsubscribe = controller.subscribe(render);
  if (!needsSetup) queueMicrotask(() => composer.focus());
  const destroy = () => {
    unsubscribe();
    offDelegations();
    document.removeEventListener('keydown', onUndoKey);
    grown.disconnect();
    document.removeEventListener('keydown', onKey);
    attachments.destroy();
    clearTimeout(pausedTimer);
    for (const url of thumbs.values()) url.then((u) => URL.revokeObjectURL(u), () => {});
  };
  return {
    root, destroy, focusComposer: () => composer.focus(),
    /** What Alt+Z and Alt+Shift+Z do (for the command palette): conflicts are asked about the same way. */
    undoTurn: () => takeBack('undo'),
    redoTurn: () => takeBack('redo'),
    /**
     * What a sent message's Edit button does (for the command palette): its bubble becomes the
     * editor, focused. Nothing while a reply is written (the button is not there then).
     * @param {string} eventId
     */
    editMessage: (eventId) => {
      const e = last?.events.find((x) => x.id === eventId);
      const li = /** @type {HTMLElement | null} */ (list.querySelector(`li[data-event-id="${CSS.escape(eventId)}"]`));
      if (e && li && !last?.streaming) startEdit(e, li);
    },
  };
}
