/** @import { ChatViewController } from '../types.d.ts' */
import { h, clear } from '../dom.js';
import { icon } from '../icon.js';

/**
 * The chat's composer: the message box (Enter sends, Shift+Enter a new line), attached images,
 * documents and texts (MCP resources), "@" completing to the named agents and "/" to the skills and
 * MCP prompts (a listbox the message box points into with aria-activedescendant), Send and Stop.
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
  // "@" at the start of a message completes to the named agents, "/" to the skills and MCP prompts
  // (arrows, Enter or Tab, Esc, or the pointer).
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

  /** What the list offers now: the text shown, a description, what choosing it puts in the message box. */
  /** @type {{label: string, description: string, insert: string}[]} */
  let mentionOptions = [];
  let mentionActive = 0;
  /** Agents ("@") or commands ("/"): the list's name says which. */
  let completing = '@';
  const drawMentions = () => {
    mentionList.hidden = !mentionOptions.length;
    mentionList.setAttribute('aria-label', completing === '/' ? 'Commands: skills and MCP prompts' : 'Agents to address');
    clear(mentionList).append(
      ...mentionOptions.map((o, i) =>
        h(
          'li',
          {
            id: `completion-${i}`,
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
          h('strong', null, o.label),
          o.description ? h('span', { class: 'small muted' }, ` — ${o.description.slice(0, 80)}`) : '',
        ),
      ),
    );
    if (mentionOptions.length) {
      input.setAttribute('aria-activedescendant', `completion-${mentionActive}`);
      mentionList.children[mentionActive]?.scrollIntoView?.({ block: 'nearest' });
    } else input.removeAttribute('aria-activedescendant');
  };
  /** @param {number} i */
  const acceptMention = (i) => {
    const o = mentionOptions[i];
    if (!o) return;
    input.value = o.insert;
    mentionOptions = [];
    drawMentions();
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
    onDraft();
  };
  let mentionAsked = 0;
  input.addEventListener('input', () => {
    const text = input.value;
    const kind = text[0];
    if ((kind !== '@' && kind !== '/') || /\s/.test(text)) {
      mentionAsked++; // an answer still on its way is not shown
      if (mentionOptions.length) {
        mentionOptions = [];
        drawMentions();
      }
      return;
    }
    const asked = ++mentionAsked;
    /** @type {Promise<{label: string, description: string, insert: string}[]>} */
    const found =
      kind === '@'
        ? controller
            .mentionCompletions(text)
            .then((agents) => agents.map((a) => ({ label: `@${a.name}`, description: a.description, insert: `@${a.name} ` })))
        : controller.slashCompletions(text).then((commands) =>
            commands.map((c) => ({
              label: c.args ? `${c.command} ${c.args}` : c.command,
              description: `${c.kind === 'skill' ? 'Skill' : 'MCP prompt'}${c.description ? `: ${c.description}` : ''}`,
              insert: `${c.command} `,
            })),
          );
    found.then(
      (options) => {
        if (asked !== mentionAsked) return;
        completing = kind;
        mentionOptions = options;
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

// The composer's attachments (images kept here, documents handed on): in the composer's file, their
// only user, so the first view of a workspace's chat loads one module fewer (tests/unit/app.test.mjs
// keeps that list short).

/** The image types every provider takes. */
const TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];
const MAX_ATTACHED = 8;

/**
 * Fits an image file to a provider's limits in the browser: scaled down to the longest edge
 * (never up) and re-encoded when it is scaled or too large (PNG stays PNG when it fits, the
 * rest becomes JPEG). An unscaled image within the size limit is sent as it is.
 * @param {Blob} file @param {{maxEdge: number, maxBytes: number}} limits
 * @returns {Promise<{bytes: Uint8Array, mediaType: string, width: number, height: number}>}
 */
async function fitImage(file, limits) {
  if (!TYPES.includes(file.type))
    throw new Error(`Only PNG, JPEG, WebP and GIF images can be attached (this is ${file.type || 'not an image'}).`);
  let bitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw new Error('This image could not be read (damaged or an unsupported variant).');
  }
  const scale = Math.min(1, limits.maxEdge / Math.max(bitmap.width, bitmap.height, 1));
  const width = Math.max(1, Math.round(bitmap.width * scale));
  const height = Math.max(1, Math.round(bitmap.height * scale));
  if (scale === 1 && file.size <= limits.maxBytes) {
    bitmap.close();
    return { bytes: new Uint8Array(await file.arrayBuffer()), mediaType: file.type, width, height };
  }
  const canvas = new OffscreenCanvas(width, height);
  const ctx = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext('2d'));
  ctx.drawImage(bitmap, 0, 0, width, height);
  bitmap.close();
  let blob = file.type === 'image/png' ? await canvas.convertToBlob({ type: 'image/png' }) : null;
  for (const quality of [0.85, 0.7, 0.5]) {
    if (blob && blob.size <= limits.maxBytes) break;
    blob = await canvas.convertToBlob({ type: 'image/jpeg', quality });
  }
  if (!blob || blob.size > limits.maxBytes) throw new Error('This image is too large for the model even after scaling it down.');
  return { bytes: new Uint8Array(await blob.arrayBuffer()), mediaType: blob.type, width, height };
}

/**
 * The composer's attachments: a button that picks files, pasting or dropping them on the
 * composer, thumbnails of images with a remove button each, and a line that says why a file
 * was not taken. Images stay here; any other file goes to `documents` (read as a document).
 * `take()` hands the fitted images over (and empties the tray).
 * @param {{limits: () => {accepts: boolean, maxEdge: number, maxBytes: number, why?: string}, dropTarget: HTMLElement,
 *   pasteTarget: HTMLElement, onChange?: () => void, documents?: (files: File[]) => void}} props
 */
function ImageAttachments(props) {
  /** @type {{bytes: Uint8Array, mediaType: string, url: string}[]} */
  let items = [];
  const docs = props.documents;
  const input = /** @type {HTMLInputElement} */ (
    h('input', {
      type: 'file',
      // With documents any file may be picked: one that has no text to read is refused with a reason.
      ...(docs ? {} : { accept: TYPES.join(',') }),
      multiple: true,
      hidden: true,
      'aria-hidden': 'true',
      tabIndex: -1,
    })
  );
  const button = h(
    'button',
    {
      type: 'button',
      class: 'secondary attach-btn',
      title: docs
        ? 'Attach images or documents: PDF, Word, Excel, CSV, Markdown, code, text (or paste or drop them on the message box)'
        : 'Attach images (or paste or drop them on the message box)',
    },
    docs ? 'Attach file' : 'Attach image',
  );
  const tray = h('ul', { class: 'attachments', 'aria-label': 'Attached images', hidden: true });
  const note = h('p', { class: 'small muted attach-note', role: 'status' });

  const draw = () => {
    tray.replaceChildren(
      ...items.map((item, i) =>
        h(
          'li',
          null,
          h('img', { src: item.url, alt: `Attached image ${i + 1}`, width: 56, height: 56 }),
          h(
            'button',
            {
              type: 'button',
              class: 'icon-btn',
              'aria-label': `Remove attached image ${i + 1}`,
              on: {
                click: () => {
                  URL.revokeObjectURL(item.url);
                  items.splice(i, 1);
                  draw();
                  button.focus();
                },
              },
            },
            icon('x'),
          ),
        ),
      ),
    );
    tray.hidden = items.length === 0;
    props.onChange?.();
  };

  /** @param {Iterable<File>} files */
  const add = async (files) => {
    const isImage = (/** @type {File} */ f) => TYPES.includes(f.type) || (!docs && f.type.startsWith('image/'));
    const others = docs ? [...files].filter((f) => !isImage(f)) : [];
    if (others.length) docs?.(others);
    const images = [...files].filter(isImage);
    if (!images.length) return others.length > 0;
    const limits = props.limits();
    if (!limits.accepts) {
      note.textContent = `Images not attached: ${limits.why ?? 'this model does not accept images.'}`;
      return true;
    }
    note.textContent = '';
    for (const file of images) {
      if (items.length >= MAX_ATTACHED) {
        note.textContent = `At most ${MAX_ATTACHED} images per message.`;
        break;
      }
      try {
        const fitted = await fitImage(file, limits);
        items.push({
          ...fitted,
          url: URL.createObjectURL(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (fitted.bytes)], { type: fitted.mediaType })),
        });
      } catch (err) {
        note.textContent = `${file.name || 'An image'}: ${/** @type {Error} */ (err).message}`;
      }
    }
    draw();
    return true;
  };

  button.addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    if (input.files)
      add(input.files).finally(() => {
        input.value = '';
      });
  });
  props.pasteTarget.addEventListener('paste', (e) => {
    const files = /** @type {ClipboardEvent} */ (e).clipboardData?.files;
    // Pasted text is the message box's; pasted files are attached.
    if (files && [...files].some((f) => f.type.startsWith('image/') || (docs && f.name))) {
      e.preventDefault();
      add(files);
    }
  });
  props.dropTarget.addEventListener('dragover', (e) => {
    if (/** @type {DragEvent} */ (e).dataTransfer?.types.includes('Files')) e.preventDefault();
  });
  props.dropTarget.addEventListener('drop', (e) => {
    const files = /** @type {DragEvent} */ (e).dataTransfer?.files;
    if (files?.length) {
      e.preventDefault();
      add(files);
    }
  });

  return {
    button,
    input,
    tray,
    note,
    get count() {
      return items.length;
    },
    /** Hands over the attached images and empties the tray. */
    take() {
      const out = items.map(({ bytes, mediaType }) => ({ bytes, mediaType }));
      for (const item of items) URL.revokeObjectURL(item.url);
      items = [];
      draw();
      return out;
    },
    /** @param {Iterable<File>} files */
    add,
    destroy() {
      for (const item of items) URL.revokeObjectURL(item.url);
      items = [];
    },
  };
}
