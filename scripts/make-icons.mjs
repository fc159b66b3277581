#!/usr/bin/env node
// Draws the app icons (PNG, no image tools needed). Run once; the PNGs are committed.
import { deflateSync } from 'node:zlib';
import { writeFileSync } from 'node:fs';

/** @param {Buffer} buf */
function crc32(buf) {
  let c,
    crc = 0xffffffff;
  for (let n = 0; n < buf.length; n++) {
    c = (crc ^ buf[n]) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
/** @param {string} type @param {Buffer} data */
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
/** @param {number} size @param {boolean} maskable */
function icon(size, maskable) {
  const raw = Buffer.alloc((size * 4 + 1) * size);
  const c = size / 2;
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    for (let x = 0; x < size; x++) {
      const u = x / size,
        v = y / size;
      const dx = x - c,
        dy = y - c,
        r = Math.hypot(dx, dy) / size;
      // Background: full bleed for maskable, a rounded tile otherwise.
      const corner = 0.2,
        inTile =
          maskable ||
          (() => {
            const qx = Math.max(Math.abs(u - 0.5) - (0.5 - corner), 0),
              qy = Math.max(Math.abs(v - 0.5) - (0.5 - corner), 0);
            return Math.hypot(qx, qy) <= corner;
          })();
      let [R, G, B, A] = [0, 0, 0, 0];
      if (inTile) {
        R = 30 + 40 * v;
        G = 27 + 20 * v;
        B = 75 + 80 * u;
        A = 255;
      }
      // Three claw marks, kept inside the maskable safe zone (radius 0.4).
      const scale = maskable ? 0.7 : 0.85;
      const su = (u - 0.5) / scale + 0.5,
        sv = (v - 0.5) / scale + 0.5;
      for (let i = 0; i < 3; i++) {
        const x0 = 0.3 + i * 0.17,
          t = (sv - 0.2) / 0.6;
        if (t < 0 || t > 1) continue;
        const cx = x0 + 0.12 * Math.sin(t * Math.PI * 0.9) - 0.06;
        const w = 0.055 * Math.sin(Math.PI * Math.min(1, Math.max(0, t)));
        if (Math.abs(su - cx) < w && inTile) {
          R = 255;
          G = 122 + 60 * t;
          B = 89;
          A = 255;
        }
      }
      void r;
      const o = y * (size * 4 + 1) + 1 + x * 4;
      raw[o] = R;
      raw[o + 1] = G;
      raw[o + 2] = B;
      raw[o + 3] = A;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
for (const size of [192, 512]) {
  writeFileSync(new URL(`../icons/icon-${size}.png`, import.meta.url), icon(size, false));
  writeFileSync(new URL(`../icons/maskable-${size}.png`, import.meta.url), icon(size, true));
}
