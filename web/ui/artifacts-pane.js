/** @import { ArtifactShelfSource, ArtifactShown } from './types.d.ts' */
import { h } from './dom.js';
import { ARTIFACT_FRAME_VERSION } from './artifact-frame-version.js';

/** The frame's URL: versioned, so the browser's cache keeps it for offline use (see scripts/artifact-frame.mjs). */
export const ARTIFACT_FRAME_URL = new URL(`./artifact-frame.html?v=${ARTIFACT_FRAME_VERSION}`, import.meta.url).href;

/**
 * Loads the artifact frame once, hidden, so the browser's cache keeps it (a sandboxed frame's
 * navigation never reaches the service worker): an artifact then opens offline even if none was
 * shown before. The frame is removed once loaded.
 */
export function prewarmArtifactFrame() {
  const frame = h('iframe', {
    src: ARTIFACT_FRAME_URL,
    sandbox: 'allow-scripts',
    hidden: true,
    tabIndex: -1,
    'aria-hidden': 'true',
    title: 'Artifact frame (loading for offline use)',
  });
  frame.addEventListener('load', () => frame.remove(), { once: true });
  document.body.append(frame);
}

/**
 * The artifact the model made (HTML, SVG, a Mermaid diagram, a CSV table and chart), beside the
 * chat: shown in a frame of an opaque origin (sandbox="allow-scripts" without allow-same-origin,
 * web/ui/artifact-frame.html), so its scripts run but never reach Clawser's page, storage or
 * network. Its versions (‹ ›), full screen (Esc leaves it) and a download of the file. It is drawn in the app's light or
 * dark theme, and fitted to the pane's width (web/ui/artifact-frame.html).
 * @param {{shelf: ArtifactShelfSource, onClose: () => void}} props
 */
export function ArtifactsPane({ shelf, onClose }) {
  const title = h('strong', { class: 'artifact-title' });
  const status = h('span', { class: 'small muted', role: 'status' });
  const earlier = h('button', { type: 'button', class: 'secondary', on: { click: () => shelf.step(-1) } }, '‹ Earlier');
  const later = h('button', { type: 'button', class: 'secondary', on: { click: () => shelf.step(1) } }, 'Later ›');
  earlier.setAttribute('aria-label', 'Earlier version');
  later.setAttribute('aria-label', 'Later version');
  const full = h('button', { type: 'button', class: 'secondary', 'aria-pressed': 'false' }, 'Full screen');
  const download = h('button', { type: 'button', class: 'secondary' }, 'Download');
  const close = h('button', { type: 'button', class: 'secondary', on: { click: onClose } }, 'Close artifact');
  const body = h('div', { class: 'artifact-body' });
  // The conversation's other artifacts (a reply may make several).
  const pick = /** @type {HTMLSelectElement} */ (h('select', { 'aria-label': 'Artifact to show', hidden: true }));
  pick.addEventListener('change', () => shelf.open(pick.value));
  const root = h(
    'aside',
    { class: 'artifact-pane artifacts-pane', 'aria-label': 'Artifact' },
    h(
      'div',
      { class: 'artifact-bar' },
      title,
      status,
      h('span', { class: 'artifact-actions' }, pick, earlier, later, full, download, close),
    ),
    body,
  );

  /** @param {boolean} on */
  const setFull = (on) => {
    root.classList.toggle('artifact-full', on);
    full.setAttribute('aria-pressed', String(on));
    full.textContent = on ? 'Exit full screen' : 'Full screen';
  };
  full.addEventListener('click', () => setFull(!root.classList.contains('artifact-full')));
  root.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && root.classList.contains('artifact-full')) {
      e.stopPropagation();
      setFull(false);
      full.focus();
    }
  });
  download.addEventListener('click', () => {
    const a = shelf.current;
    if (!a) return;
    const url = URL.createObjectURL(new Blob([a.content], { type: a.mediaType }));
    const link = h('a', { href: url, download: a.fileName, hidden: true });
    root.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  });

  /** The app's theme (the system's): the artifact is drawn again in the new one when it changes. */
  const scheme = matchMedia('(prefers-color-scheme: dark)');
  /** @type {((e: MessageEvent) => void) | null} */
  let listening = null;
  /** A fresh frame per version: the artifact's document replaces the frame's own, which then takes no more messages. */
  /** @param {ArtifactShown} a */
  const render = (a) => {
    if (listening) removeEventListener('message', listening);
    shelf.others().then((names) => {
      pick.replaceChildren(...names.map((n) => h('option', { value: n, selected: n === a.name }, n)));
      pick.hidden = names.length < 2;
    });
    title.textContent = `${a.name} · version ${a.version} of ${a.versions}`;
    earlier.toggleAttribute('disabled', a.version <= 1);
    later.toggleAttribute('disabled', a.version >= a.versions);
    status.textContent = 'Loading…';
    const frame = /** @type {HTMLIFrameElement} */ (
      h('iframe', { title: `Artifact ${a.name}`, sandbox: 'allow-scripts', referrerPolicy: 'no-referrer', src: ARTIFACT_FRAME_URL })
    );
    frame.dataset.kind = a.kind;
    const listener = (/** @type {MessageEvent} */ e) => {
      if (e.source !== frame.contentWindow) return;
      const m = e.data ?? {};
      if (m.type === 'ready') {
        // The theme goes in the message (the frame is told nothing else of the app): the page drawn there takes it.
        const dark = scheme.matches;
        (a.kind === 'mermaid' ? shelf.library() : Promise.resolve(undefined)).then(
          (library) => frame.contentWindow?.postMessage({ type: 'render', kind: a.kind, content: a.page, library, dark }, '*'),
          (err) => {
            status.textContent = `Mermaid could not be loaded: ${/** @type {Error} */ (err).message}`;
          },
        );
      } else if (m.type === 'rendered') {
        status.textContent = '';
        frame.dataset.state = 'rendered';
      } else if (m.type === 'failed') {
        status.textContent = String(m.message ?? 'This artifact could not be shown.');
        frame.dataset.state = 'failed';
      }
    };
    listening = listener;
    addEventListener('message', listener);
    body.replaceChildren(frame);
  };

  const redraw = () => {
    if (shelf.current) render(shelf.current);
  };
  scheme.addEventListener('change', redraw);

  /** The version on screen (told again of it, the frame is not reloaded). */
  let shown = '';
  const draw = () => {
    const a = shelf.current;
    if (!a || `${a.path}\n${a.versions}` === shown) return;
    shown = `${a.path}\n${a.versions}`;
    render(a);
  };
  const unsubscribe = shelf.subscribe(draw);
  draw();
  return {
    root,
    destroy() {
      unsubscribe();
      scheme.removeEventListener('change', redraw);
      if (listening) removeEventListener('message', listening);
    },
  };
}
