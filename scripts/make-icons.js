/**
 * Draws the add-in's ribbon and store icons (a teal tile with a white tick) as PNGs into assets/.
 * Kept as a script so the icons can be regenerated at any size without an image editor: `node scripts/make-icons.js`.
 */
const fs = require("fs");
const path = require("path");
const zlib = require("zlib");

const SIZES = [16, 32, 64, 80, 128, 192];
const TILE = [0x0f, 0x6c, 0xbd]; // Fluent "themePrimary" blue, the colour Office uses for add-in tiles
const TICK = [0xff, 0xff, 0xff];

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
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
function distToSegment(px, py, ax, ay, bx, by) {
  const dx = bx - ax,
    dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}
/** Coverage of the tile and the tick at a point in unit coordinates (0..1). */
function sample(x, y) {
  const r = 0.18,
    m = 0.04;
  const cx = Math.min(Math.max(x, m + r), 1 - m - r),
    cy = Math.min(Math.max(y, m + r), 1 - m - r);
  const inTile = Math.hypot(x - cx, y - cy) <= r && x >= m && x <= 1 - m && y >= m && y <= 1 - m;
  const w = 0.075;
  const inTick = distToSegment(x, y, 0.26, 0.52, 0.43, 0.69) <= w || distToSegment(x, y, 0.43, 0.69, 0.76, 0.33) <= w;
  return { inTile, inTick };
}
function png(size) {
  const ss = 4; // supersampling for smooth edges at 16 px
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    for (let x = 0; x < size; x++) {
      let tile = 0,
        tick = 0;
      for (let sy = 0; sy < ss; sy++)
        for (let sx = 0; sx < ss; sx++) {
          const s = sample((x + (sx + 0.5) / ss) / size, (y + (sy + 0.5) / ss) / size);
          if (s.inTile) {
            tile++;
            if (s.inTick) tick++;
          }
        }
      const n = ss * ss,
        a = tile / n,
        t = tile ? tick / tile : 0;
      const o = y * (size * 4 + 1) + 1 + x * 4;
      for (let c = 0; c < 3; c++) raw[o + c] = Math.round(TILE[c] * (1 - t) + TICK[c] * t);
      raw[o + 3] = Math.round(a * 255);
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
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", zlib.deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
const out = path.join(__dirname, "..", "assets");
fs.mkdirSync(out, { recursive: true });
for (const size of SIZES) fs.writeFileSync(path.join(out, `icon-${size}.png`), png(size));
console.log(`wrote ${SIZES.map((s) => `icon-${s}.png`).join(", ")} to ${out}`);
