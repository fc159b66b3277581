/** @import { ArtifactSource } from './types.d.ts' */
import { h } from './dom.js';

/**
 * Shows the agent's artifact in a sandboxed iframe: no scripts, opaque origin — it cannot
 * reach Clawser's page, storage or network.
 * @param {{artifact: ArtifactSource, onClose: () => void}} props
 */
export function ArtifactView({ artifact, onClose }) {
  const frame = h('iframe', { title: 'Agent artifact', sandbox: '', referrerPolicy: 'no-referrer' });
  const set = (/** @type {string} */ html) => {
    frame.srcdoc =
      `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src ` +
      `'none'; img-src data:; style-src 'unsafe-inline'"></head><body>${html}</body></html>`;
  };
  set(artifact.html);
  const unsubscribe = artifact.subscribe(set);
  const root = h(
    'aside',
    { class: 'artifact-pane', 'aria-label': 'Artifact' },
    h(
      'div',
      { class: 'artifact-bar' },
      h('strong', null, 'Artifact'),
      h('button', { type: 'button', class: 'secondary', on: { click: onClose } }, 'Close artifact'),
    ),
    frame,
  );
  return { root, destroy: unsubscribe };
}
