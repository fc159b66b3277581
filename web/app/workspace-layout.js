/**
 * The workspace screen's layout: which panels can show beside the chat, whether they do, the
 * chat's share of the split and the artifact pane's share, remembered across reloads; and the
 * artifact pane itself, shown beside the chat once the agent draws something.
 */
/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { ArtifactDocument } from './artifact.js' */
/** @import { ArtifactShelf } from './artifacts.js' */
import { h } from '../ui/dom.js';
import { ArtifactView } from '../ui/artifact-view.js';
import { ArtifactsPane } from '../ui/artifacts-pane.js';
import { ResizeHandle } from '../ui/split-view.js';

/** The split view's state: chat beside Files or Git, the chat's share, the artifact pane's share. */
const LAYOUT_KEY = 'clawser_ui_layout';

/** @typedef {{split: boolean, ratio: number, artifact: number}} Layout */

/** The remembered layout as stored (defaults when unset or damaged). @param {unknown} raw @returns {Layout} */
export function parseLayout(raw) {
  const v = raw && typeof raw === 'object' ? /** @type {Record<string, unknown>} */ (raw) : null;
  /** @param {unknown} n @param {number} d */
  const share = (n, d) => (typeof n === 'number' && n >= 20 && n <= 80 ? n : d);
  return { split: v?.split === true, ratio: share(v?.ratio, 50), artifact: share(v?.artifact, 45) };
}

/** The layout kept in config. */
export class LayoutPreference {
  /** @param {ConfigStore} config */
  constructor(config) {
    this.config = config;
  }

  /** @returns {Layout} */
  load() {
    return parseLayout(this.config.get(LAYOUT_KEY, null));
  }

  /** @param {Partial<Layout>} change */
  save(change) {
    this.config.set(LAYOUT_KEY, { ...this.load(), ...change });
  }
}

/**
 * The slot beside the chat where the workspace's artifact shows (with a handle to resize it
 * against the chat), filled when the artifact has something to show: the page the agent's
 * browser tools write (`artifact`), or what a reply made (`shelf`: HTML, SVG, Mermaid, CSV) —
 * one at a time, the newest.
 * @param {{artifact: ArtifactDocument, shelf?: ArtifactShelf, share: number, onShare: (share: number) => void}} deps
 *   share: the pane's width in percent; onShare: the user resized it
 * @returns {{root: HTMLElement, destroy: () => void}}
 */
export function artifactSlot({ artifact, shelf, share, onShare }) {
  const side = h('div', { class: 'artifact-slot' });
  /** @type {{root: HTMLElement, destroy: () => void, kind: 'page' | 'shelf'} | null} */
  let artifactView = null;
  /** @type {HTMLElement | null} */
  let artifactHandle = null;
  const closeView = () => {
    artifactView?.destroy();
    artifactView?.root.remove();
    artifactHandle?.remove();
    artifactView = null;
  };
  /** @param {'page' | 'shelf'} kind */
  const showArtifact = (kind = 'page') => {
    if (artifactView?.kind === kind) return;
    if (kind === 'page' ? !artifact.html : !shelf?.current) return;
    closeView();
    const pane =
      kind === 'shelf' && shelf
        ? { ...ArtifactsPane({ shelf, onClose: () => shelf.close() }), kind }
        : { ...ArtifactView({ artifact, onClose: closeView }), kind };
    artifactView = pane;
    // Resizable against the chat, the width remembered.
    artifactHandle = ResizeHandle({
      label: 'Resize the chat and the artifact',
      value: share,
      after: true,
      container: () => /** @type {HTMLElement} */ (side.parentElement),
      onChange: (v) => pane.root.style.setProperty('width', `${v}%`),
      onCommit: onShare,
    });
    artifactHandle.classList.add('artifact-handle');
    side.append(artifactHandle, pane.root);
  };
  const unsubscribe = artifact.subscribe(() => showArtifact('page'));
  // The shelf closed (its Close button) or showing something: the pane follows.
  const unsubscribeShelf = shelf?.subscribe(() => {
    if (shelf.current) showArtifact('shelf');
    else if (artifactView?.kind === 'shelf') closeView();
  });
  if (shelf?.current) showArtifact('shelf');
  else showArtifact('page');
  return {
    root: side,
    destroy: () => {
      unsubscribe();
      unsubscribeShelf?.();
      artifactView?.destroy();
    },
  };
}
