import { h } from './dom.js';

const MIN = 20;
const MAX = 80;
/** @param {number} v */
const clamp = (v) => Math.min(MAX, Math.max(MIN, Math.round(v)));

/**
 * A separator the pointer drags and the keyboard moves (arrows by 5%, Home and End to the
 * limits): `value` is the share (20–80%) of `container()`'s width that the pane before it takes
 * (or, `after`, the pane after it). `onChange` applies each step; `onCommit` remembers the last.
 * @param {{label: string, value: number, container: () => HTMLElement, after?: boolean, onChange: (v: number) => void,
 *   onCommit: (v: number) => void}} props
 */
export function ResizeHandle(props) {
  let value = clamp(props.value);
  const handle = h('div', {
    class: 'resize-handle',
    role: 'separator',
    tabindex: 0,
    'aria-orientation': 'vertical',
    'aria-label': props.label,
    'aria-valuemin': MIN,
    'aria-valuemax': MAX,
    'aria-valuenow': value,
    title: 'Drag, or use the arrow keys, to resize',
  });
  /** @param {number} v */
  const set = (v) => {
    value = clamp(v);
    handle.setAttribute('aria-valuenow', String(value));
    props.onChange(value);
  };
  handle.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    handle.setPointerCapture(e.pointerId);
    handle.classList.add('dragging');
    const box = props.container().getBoundingClientRect();
    /** @param {PointerEvent} m */
    const move = (m) => {
      const share = ((m.clientX - box.left) / box.width) * 100;
      set(props.after ? 100 - share : share);
    };
    const up = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      handle.removeEventListener('pointercancel', up);
      handle.classList.remove('dragging');
      props.onCommit(value);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
    handle.addEventListener('pointercancel', up);
  });
  handle.addEventListener('keydown', (e) => {
    const step = { ArrowLeft: -5, ArrowRight: 5 }[e.key];
    const grow = props.after ? -1 : 1;
    if (step !== undefined) set(value + step * grow);
    else if (e.key === 'Home') set(props.after ? MAX : MIN);
    else if (e.key === 'End') set(props.after ? MIN : MAX);
    else return;
    e.preventDefault();
    props.onCommit(value);
  });
  props.onChange(value);
  return handle;
}

/**
 * The chat beside a panel (Files, Git) on wide screens, with a resizable divider; on narrow
 * screens only the panel shows (CSS), so a phone never gets two cramped halves.
 * @param {{chat: HTMLElement, panel: HTMLElement, panelLabel: string, ratio: number, onRatio: (ratio: number) => void}} props
 */
export function SplitView(props) {
  const chatPane = h('div', { class: 'split-pane split-chat' }, props.chat);
  const panelPane = h('div', { class: 'split-pane split-panel' }, props.panel);
  const root = h('div', { class: 'split' });
  const handle = ResizeHandle({
    label: `Resize the chat and ${props.panelLabel}`,
    value: props.ratio,
    container: () => root,
    onChange: (v) => root.style.setProperty('--split', `${v}%`),
    onCommit: props.onRatio,
  });
  root.append(chatPane, handle, panelPane);
  return root;
}
