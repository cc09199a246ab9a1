// Writes the app icons (public/icon-*.png, public/icon.svg): a white drop on
// blue. Run once with `node scripts/icons.mjs`; the output is committed, so
// the build needs no image tool.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const BLUE = [0x0b, 0x5c, 0xad];
const WHITE = [0xff, 0xff, 0xff];

function crc32(buf) {
  let c;
  let crc = 0xffffffff;
  for (const b of buf) {
    c = (crc ^ b) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

// inDrop: a circle in the lower part with a triangle on top, in unit square coordinates.
function inDrop(x, y) {
  const cx = 0.5, cy = 0.6, r = 0.2;
  if ((x - cx) ** 2 + (y - cy) ** 2 <= r * r) return true;
  const top = 0.22;
  if (y >= top && y <= cy) {
    const half = ((y - top) / (cy - top)) * r * 0.98;
    return Math.abs(x - cx) <= half;
  }
  return false;
}

function png(size, safeZone) {
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) {
      let u = (x + 0.5) / size, v = (y + 0.5) / size;
      if (safeZone) { u = (u - 0.5) / 0.8 + 0.5; v = (v - 0.5) / 0.8 + 0.5; }
      const px = inDrop(u, v) ? WHITE : BLUE;
      row.set(px, 1 + x * 3);
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; ihdr[9] = 2; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const out = new URL('../public/', import.meta.url);
writeFileSync(new URL('icon-192.png', out), png(192, false));
writeFileSync(new URL('icon-512.png', out), png(512, false));
writeFileSync(new URL('icon-maskable-512.png', out), png(512, true));
writeFileSync(new URL('icon.svg', out),
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" rx="18" fill="#0b5cad"/>' +
  '<path d="M50 22 L69.6 60 A20 20 0 1 1 30.4 60 Z" fill="#fff"/></svg>\n');
