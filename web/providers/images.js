/** @import { CatalogEntry } from './types.d.ts' */

/**
 * What each wire format takes as images (from the providers' documentation): the longest edge
 * an image is scaled down to before sending (larger ones are scaled by the provider anyway, at
 * the user's cost in tokens and upload time) and the largest encoded size accepted.
 * - Anthropic: 5 MB per image; images over 1568 px on the long edge are scaled down.
 * - OpenAI (both APIs): 20 MB; fitted within 2048 × 2048 for high detail.
 * - Gemini: 20 MB per request inline; up to 3072 px is kept.
 * - Ollama: local vision models work on small inputs (most at 336–1120 px).
 */
/** @type {Record<string, {maxEdge: number, maxBytes: number}>} */
export const IMAGE_LIMITS = {
  // Anthropic's 5 MB is of the base64 text: three quarters of it in bytes.
  anthropic: { maxEdge: 1568, maxBytes: Math.floor((5 * 1024 * 1024 * 3) / 4) },
  openai: { maxEdge: 2048, maxBytes: 20 * 1024 * 1024 },
  'openai-responses': { maxEdge: 2048, maxBytes: 20 * 1024 * 1024 },
  gemini: { maxEdge: 3072, maxBytes: 15 * 1024 * 1024 },
  ollama: { maxEdge: 1120, maxBytes: 10 * 1024 * 1024 },
};

/** The image types every format takes. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/**
 * @param {CatalogEntry | undefined} entry @param {string} [model]
 * @returns {{accepts: boolean, maxEdge: number, maxBytes: number, why?: string}}
 */
export function imageLimitsFor(entry, model = '') {
  const limits = IMAGE_LIMITS[entry?.wire ?? ''] ?? { maxEdge: 1568, maxBytes: 5 * 1024 * 1024 };
  if (!entry) return { accepts: false, ...limits, why: 'Choose a provider in Settings first.' };
  if (!seesImages(entry, model)) return { accepts: false, ...limits, why: `${entry.label}${model ? ` (${model})` : ''} does not accept images here.` };
  return { accepts: true, ...limits };
}

/** Local model families that take images (Ollama's library names). */
const LOCAL_VISION = /llava|vision|\bvl\b|-vl|vl:|qwen2\.5vl|gemma3|minicpm-v|moondream|pixtral|mistral-small3\.[12]|llama4|granite3\.2-vision/i;

/**
 * Whether a model takes images: per model on a local server (most local models are text only),
 * per host elsewhere (the catalog's `vision`).
 * @param {CatalogEntry} entry @param {string} [model]
 */
export function seesImages(entry, model = '') {
  if (entry.wire === 'ollama') return LOCAL_VISION.test(model || entry.defaultModel);
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
