import { Buffer } from 'node:buffer';
import zlib from 'node:zlib';

/**
 * A zip archive's inflated size, measured before a library (ExcelJS, through JSZip) unpacks it: an
 * upload of 1 MB may otherwise expand to gigabytes inside the one Node process (a zip bomb).
 *
 * The check reads the end-of-central-directory record and the central directory itself, refuses
 * zip64 archives (not needed for our small workbooks), more than `maxEntries` entries or a declared
 * total above `maxTotalBytes`; then, since declared sizes can lie, it inflates every entry with
 * `zlib.inflateRawSync(..., { maxOutputLength })` under what is left of the budget, so that no entry
 * and no sum of entries (overlapping ones included) can expand past the cap.
 */
export type ZipLimits = { maxEntries: number; maxTotalBytes: number };

export type ZipVerdict = { ok: true; entries: number; totalBytes: number } | { ok: false; reason: ZipRefusal };

/** malformed: not a zip we can read; zip64/method: features a small workbook never needs; the rest: over the limits. */
export type ZipRefusal = 'malformed' | 'zip64' | 'method' | 'too-many-entries' | 'too-large';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const ZIP64_LOCATOR = 0x07064b50;
const EOCD_SIZE = 22;
const CENTRAL_SIZE = 46;
const LOCAL_SIZE = 30;

/** The last end-of-central-directory record (the one readers use), searched within its largest comment. */
function findEocd(buf: Buffer): number {
  const stop = Math.max(0, buf.length - EOCD_SIZE - 0xffff);
  for (let i = buf.length - EOCD_SIZE; i >= stop; i--) if (buf.readUInt32LE(i) === EOCD) return i;
  return -1;
}

export function inspectZip(bytes: Uint8Array, limits: ZipLimits): ZipVerdict {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < EOCD_SIZE) return { ok: false, reason: 'malformed' };
  const eocd = findEocd(buf);
  if (eocd < 0) return { ok: false, reason: 'malformed' };
  if (eocd >= 20 && buf.readUInt32LE(eocd - 20) === ZIP64_LOCATOR) return { ok: false, reason: 'zip64' };
  const entriesOnDisk = buf.readUInt16LE(eocd + 8);
  const entries = buf.readUInt16LE(eocd + 10);
  const cdSize = buf.readUInt32LE(eocd + 12);
  const cdOffset = buf.readUInt32LE(eocd + 16);
  if (entries === 0xffff || entriesOnDisk === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff)
    return { ok: false, reason: 'zip64' };
  if (entries !== entriesOnDisk) return { ok: false, reason: 'malformed' };
  if (entries > limits.maxEntries) return { ok: false, reason: 'too-many-entries' };
  if (cdOffset + cdSize > eocd) return { ok: false, reason: 'malformed' };

  // Pass 1: the central directory's declared sizes.
  type Entry = { method: number; compressed: number; uncompressed: number; local: number };
  const list: Entry[] = [];
  let declared = 0;
  let at = cdOffset;
  for (let n = 0; n < entries; n++) {
    if (at + CENTRAL_SIZE > cdOffset + cdSize || buf.readUInt32LE(at) !== CENTRAL)
      return { ok: false, reason: 'malformed' };
    const method = buf.readUInt16LE(at + 10);
    const compressed = buf.readUInt32LE(at + 20);
    const uncompressed = buf.readUInt32LE(at + 24);
    const local = buf.readUInt32LE(at + 42);
    if (compressed === 0xffffffff || uncompressed === 0xffffffff || local === 0xffffffff)
      return { ok: false, reason: 'zip64' };
    declared += uncompressed;
    if (declared > limits.maxTotalBytes) return { ok: false, reason: 'too-large' };
    list.push({ method, compressed, uncompressed, local });
    at += CENTRAL_SIZE + buf.readUInt16LE(at + 28) + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
  }

  // Pass 2: what the entries really expand to, never inflating past the budget left.
  let total = 0;
  for (const e of list) {
    if (e.local + LOCAL_SIZE > buf.length || buf.readUInt32LE(e.local) !== LOCAL)
      return { ok: false, reason: 'malformed' };
    const start = e.local + LOCAL_SIZE + buf.readUInt16LE(e.local + 26) + buf.readUInt16LE(e.local + 28);
    if (start + e.compressed > buf.length) return { ok: false, reason: 'malformed' };
    const data = buf.subarray(start, start + e.compressed);
    const left = limits.maxTotalBytes - total;
    if (e.method === 0) {
      if (e.compressed > left) return { ok: false, reason: 'too-large' };
      total += e.compressed;
    } else if (e.method === 8) {
      let out: Buffer;
      try {
        // One byte more than the budget lets us tell "exactly the budget" from "past it".
        out = zlib.inflateRawSync(data, { maxOutputLength: Math.max(1, left + 1) });
      } catch (error) {
        if (error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
          return { ok: false, reason: 'too-large' };
        return { ok: false, reason: 'malformed' };
      }
      if (out.length > left) return { ok: false, reason: 'too-large' };
      total += out.length;
    } else return { ok: false, reason: 'method' };
  }
  return { ok: true, entries, totalBytes: total };
}
