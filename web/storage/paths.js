/** @param {...string} parts */
export function joinPath(...parts) {
  return parts.flatMap((p) => p.split('/')).filter(Boolean).join('/');
}
/** @param {string} path */
export function dirname(path) {
  const parts = path.split('/').filter(Boolean);
  parts.pop();
  return parts.join('/');
}
/** @param {string} path */
export function basename(path) {
  return path.split('/').filter(Boolean).pop() ?? '';
}
