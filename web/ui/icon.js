import { ICONS } from '@clawser/icons';

const SVG = 'http://www.w3.org/2000/svg';

/**
 * An icon of the vendored set (web/ui/icon-names.js lists them) as an inline SVG drawn in the
 * current text colour. Decorative: hidden from assistive technology, so the control it sits in
 * keeps its accessible name from its text or its aria-label. An unknown name draws an empty
 * square of the same size (a plugin's panel naming an icon the app lacks still lines up).
 * @param {string} name a Lucide icon name
 * @param {string} [className] classes besides `icon`
 * @returns {SVGSVGElement}
 */
export function icon(name, className) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', className ? `icon ${className}` : 'icon');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.dataset.icon = name;
  for (const [tag, attrs] of ICONS[name] ?? [['rect', { x: '4', y: '4', width: '16', height: '16', rx: '2' }]]) {
    const part = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs)) part.setAttribute(key, value);
    svg.append(part);
  }
  return svg;
}
