/** @import { CatalogEntry } from './types.d.ts' */
import { LOCAL_VISION, modelSeesImages } from './model-facts.js';

/**
 * Where a wire takes no images. Each wire declares what it takes (its registry entry in
 * catalog.js: the longest edge an image is scaled down to before sending — larger ones are
 * scaled by the provider anyway, at the user's cost in tokens and upload time — and the
 * largest encoded size accepted).
 */
const DEFAULT_LIMITS = { maxEdge: 1568, maxBytes: 5 * 1024 * 1024 };

/** The image types every format takes. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/**
 * @param {CatalogEntry | undefined} entry @param {string} [model]
 * @returns {{accepts: boolean, maxEdge: number, maxBytes: number, why?: string}}
 */
export function imageLimitsFor(entry, model = '') {
  const images = entry?.capabilities.images;
  const limits = images ? { maxEdge: images.maxEdge, maxBytes: images.maxBytes } : DEFAULT_LIMITS;
  if (!entry) return { accepts: false, ...limits, why: 'Choose a provider in Settings first.' };
  if (!seesImages(entry, model))
    return { accepts: false, ...limits, why: `${entry.label}${model ? ` (${model})` : ''} does not accept images here.` };
  return { accepts: true, ...limits };
}

/**
 * Whether a model takes images: as its record in model-facts.js says where it has one (a router's
 * `deepseek/deepseek-chat` takes none though the router takes images); else by name where the
 * wire says the model decides (a local server: most local models are text only), else as the
 * host says (its `vision`).
 * @param {CatalogEntry} entry @param {string} [model]
 */
export function seesImages(entry, model = '') {
  if (!entry.capabilities.images) return false;
  const name = model || entry.defaultModel || '';
  const known = entry.capabilities.images.decidedBy === 'model' ? undefined : modelSeesImages(name);
  if (known !== undefined) return known;
  if (entry.capabilities.images.decidedBy === 'model') return LOCAL_VISION.test(name);
  return !!entry.vision;
}

/**
 * The size an image is drawn at to fit the longest-edge limit (never enlarged).
 * @param {number} width @param {number} height @param {number} maxEdge
 */
export function fitWithin(width, height, maxEdge) {
  const scale = Math.min(1, maxEdge / Math.max(width, height, 1));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)), scaled: scale < 1 };
}
