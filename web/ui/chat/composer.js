/** @import { ChatViewController } from '../types.d.ts' */
import { h, clear } from '../dom.js';
import { icon } from '../icon.js';
import { ImageAttachments } from '../image-attach.js';

/**
 * The chat's composer: the message box (Enter sends, Shift+Enter a new line), attached images,
 * documents and texts (MCP resources), "@" completing to the named agents, Send and Stop.
 * @param {{controller: ChatViewController, needsSetup: boolean, onDraft: () => void}} props
 *   onDraft: the draft or its images changed (the meter's estimate follows)
 */
export function Composer({ controller, needsSetup, onDraft }) {
  const input = h('textarea', {
    class: 'composer-input',
    'aria-label': 'Message',
    placeholder: needsSetup ? 'Choose a provider above to start' : 'Message Clawser…',
    title: 'Enter sends, Shift+Enter starts a new line',
    rows: 2,
    disabled: needsSetup,
  });
  const send = h('button', { type: 'submit', class: 'send-btn', disabled: needsSetup }, 'Send');
  const stop = h(
    'button',
    { type: 'button', class: 'stop-btn danger', hidden: true, title: 'Stop the reply (Esc)', 'aria-keyshortcuts': 'Escape' },
    'Stop',
  );
  const form = h('form', { class: 'composer', 'aria-label': 'Send a message' });
  /** Documents being read: Send waits for them (their text goes with the message). */
  let reading = 0;
  const images = ImageAttachments({
    limits: () => controller.imageLimits(),
    dropTarget: form,
    pasteTarget: input,
    onChange: () => onDraft(),
    // Read one after the other, each said in the note: reading, then why one was not attached or that it was cut.
    documents: async (files) => {
      reading++;
      /** @type {string[]} */
      const said = [];
      try {
        for (const file of files) {
          images.note.textContent = `Reading ${file.name}…`;
          try {
            const doc = await controller.attachDocument(file);
            if (doc.note) said.push(`${doc.label}: ${doc.note}`);
          } catch (err) {
            said.push(`${file.name} was not attached: ${/** @type {Error} */ (err).message}.`);
          }
        }
      } finally {
        reading--;
        images.note.textContent = said.join(' ');
      }
    },
  });
  // Texts attached to the next message (documents, MCP resources), each removable.
  const texts = h('ul', { class: 'attachments text-attachments', 'aria-label': 'Attachments', hidden: true });
  /** How many texts wait to go with the next message. */
  let textCount = 0;
  // "@" at the start of a message completes to the named agents (arrows, Enter or Tab, Esc).
  const mentionList = h('ul', {
    id: 'mention-list',
    role: 'listbox',
    class: 'mention-list',
    'aria-label': 'Agents to address',
    hidden: true,
  });
  input.setAttribute('aria-autocomplete', 'list');
  input.setAttribute('aria-controls', 'mention-list');
  form.append(
    mentionList,
    images.tray,
    texts,
    input,
    images.note,
    h('div', { class: 'composer-actions' }, images.button, images.input, stop, send),
  );
  images.button.toggleAttribute('disabled', needsSetup);
  input.addEventListener('input', onDraft);

  const submit = () => {
    const text = input.value;
    if ((!text.trim() && !images.count && !textCount) || controller.busy || needsSetup || reading) return;
    input.value = '';
    const taken = images.take();
    onDraft();
    controller.send(text, taken);
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
    clear(mentionList).append(
      ...mentionOptions.map((a, i) =>
        h(
          'li',
          {
            id: `mention-${a.name}`,
            role: 'option',
            'aria-selected': String(i === mentionActive),
            class: i === mentionActive ? 'active' : '',
            on: {
              mousedown: (/** @type {MouseEvent} */ ev) => {
                ev.preventDefault();
                acceptMention(i);
              },
            },
          },
          h('strong', null, `@${a.name}`),
          a.description ? h('span', { class: 'small muted' }, ` — ${a.description.slice(0, 80)}`) : '',
        ),
      ),
    );
    if (mentionOptions.length) input.setAttribute('aria-activedescendant', `mention-${mentionOptions[mentionActive].name}`);
    else input.removeAttribute('aria-activedescendant');
  };
  /** @param {number} i */
  const acceptMention = (i) => {
    const a = mentionOptions[i];
    if (!a) return;
    input.value = `@${a.name} `;
    mentionOptions = [];
    drawMentions();
    input.focus();
  };
  let mentionAsked = 0;
  input.addEventListener('input', () => {
    const text = input.value;
    if (!text.startsWith('@') || /\s/.test(text)) {
      if (mentionOptions.length) {
        mentionOptions = [];
        drawMentions();
      }
      return;
    }
    const asked = ++mentionAsked;
    controller.mentionCompletions(text).then(
      (found) => {
        if (asked !== mentionAsked) return;
        mentionOptions = found;
        mentionActive = 0;
        drawMentions();
      },
      () => {},
    );
  });
  input.addEventListener('blur', () => {
    mentionOptions = [];
    drawMentions();
  });
  input.addEventListener('keydown', (e) => {
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

  return {
    form,
    /** The message box (the view puts a failed message back in it). */
    input,
    /** While a reply streams, Stop shows and Send waits. @param {boolean} busy */
    setBusy(busy) {
      stop.hidden = !busy;
      send.disabled = busy || needsSetup;
    },
    /**
     * The texts waiting to go with the next message, each a chip (a document's kind, pages and size) with its remove button.
     * @param {{label: string, detail?: string}[]} items
     */
    showTexts(items) {
      textCount = items.length;
      texts.replaceChildren(
        ...items.map((a, i) =>
          h(
            'li',
            { class: 'small attachment-chip' },
            icon('paperclip'),
            h('span', { class: 'chip-name' }, a.label),
            a.detail ? h('span', { class: 'chip-detail muted' }, ` · ${a.detail}`) : '',
            ' ',
            h(
              'button',
              {
                type: 'button',
                class: 'icon-btn',
                'aria-label': `Remove the attachment ${a.label}`,
                on: { click: () => controller.detach(i) },
              },
              icon('x'),
            ),
          ),
        ),
      );
      texts.hidden = items.length === 0;
    },
    destroy: () => images.destroy(),
  };
}
