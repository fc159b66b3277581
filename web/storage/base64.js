/** Base64 of bytes (sealed secrets, backup key material). @param {Uint8Array} bytes */
export function toBase64(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** @param {string} b64 @returns {Uint8Array<ArrayBuffer>} */
export function fromBase64(b64) {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
