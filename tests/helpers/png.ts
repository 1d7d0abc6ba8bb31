import { deflateSync } from "node:zlib";

/**
 * A real 1×1 PNG (one opaque white RGB pixel), built here rather than kept as bytes: a statement's image that
 * problemtools' LaTeX must load (a truncated header made libpng stop: "Read Error").
 */
export function onePixelPng(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header.set([8, 2, 0, 0, 0], 8); // 8 bits a sample, RGB, deflate, adaptive filtering, not interlaced
  // One scanline: filter type 0, then the pixel's red, green and blue.
  const pixels = deflateSync(Buffer.from([0, 0xff, 0xff, 0xff]));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", pixels), chunk("IEND", Buffer.alloc(0))]);
}

/** A PNG chunk: its length, type, data, and the CRC-32 of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
