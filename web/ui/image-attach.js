import { h } from './dom.js';
import { icon } from './icon.js';

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
export async function fitImage(file, limits) {
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
export function ImageAttachments(props) {
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
