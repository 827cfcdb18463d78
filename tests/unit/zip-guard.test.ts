// The XLSX import's zip bomb guard: archives built here with zlib, one entry highly compressible.
import zlib from 'node:zlib';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { inspectZip } from '#lib/http/zip-guard.ts';
import { getT } from '#lib/i18n/index.ts';
import { IMPORT_XLSX_MAX_BYTES, parseImportFile } from '#lib/i18n/overrides.ts';

type Entry = { name: string; data: Buffer; declaredSize?: number; stored?: boolean };

/** A minimal zip: local headers with their data, the central directory, the end record. */
function buildZip(entries: Entry[], eocdPatch?: (eocd: Buffer) => void): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const body = e.stored ? e.data : zlib.deflateRawSync(e.data, { level: 9 });
    const size = e.declaredSize ?? e.data.length;
    const crc = zlib.crc32(e.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.stored ? 0 : 8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(e.stored ? 0 : 8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  eocdPatch?.(eocd);
  return Buffer.concat([...locals, cd, eocd]);
}

const LIMITS = { maxEntries: 200, maxTotalBytes: 20 * 1024 * 1024 };
/** 64 MB of one letter: deflates to a few tens of KB, inflates far past the 20 MB cap. */
const BOMB = Buffer.alloc(64 * 1024 * 1024, 0x61);

describe('inspectZip (the XLSX import’s zip bomb guard)', () => {
  it('accepts a real workbook and measures it', async () => {
    const book = new ExcelJS.Workbook();
    book.addWorksheet('x').addRow(['language', 'namespace', 'key', 'value']);
    const bytes = new Uint8Array(await book.xlsx.writeBuffer());
    const verdict = inspectZip(bytes, LIMITS);
    expect(verdict).toMatchObject({ ok: true });
    expect(verdict.ok && verdict.totalBytes).toBeGreaterThan(0);
  });

  it('refuses an entry that declares its true inflated size past the cap', () => {
    const zip = buildZip([{ name: 'xl/sharedStrings.xml', data: BOMB }]);
    expect(zip.length).toBeLessThan(IMPORT_XLSX_MAX_BYTES);
    expect(inspectZip(zip, LIMITS)).toEqual({ ok: false, reason: 'too-large' });
  });

  it('refuses an entry that lies about its size: the inflation itself stops at the cap', () => {
    const zip = buildZip([
      { name: '[Content_Types].xml', data: Buffer.from('<Types/>') },
      { name: 'xl/sharedStrings.xml', data: BOMB, declaredSize: 100 },
    ]);
    expect(zip.length).toBeLessThan(IMPORT_XLSX_MAX_BYTES);
    expect(inspectZip(zip, LIMITS)).toEqual({ ok: false, reason: 'too-large' });
    // Under a cap that fits, the same archive passes: the refusal is the size, not the lie.
    const small = buildZip([{ name: 'a.xml', data: Buffer.alloc(1000, 0x61), declaredSize: 10 }]);
    expect(inspectZip(small, LIMITS)).toEqual({ ok: true, entries: 1, totalBytes: 1000 });
  });

  it('counts every entry together, stored ones included', () => {
    const five = Buffer.alloc(5 * 1024 * 1024, 0x62);
    const zip = buildZip([1, 2, 3, 4, 5].map((n) => ({ name: `p${n}.xml`, data: five, declaredSize: 1 })));
    expect(inspectZip(zip, LIMITS)).toEqual({ ok: false, reason: 'too-large' });
    const stored = buildZip([{ name: 's.bin', data: Buffer.alloc(2048), stored: true }]);
    expect(inspectZip(stored, { maxEntries: 10, maxTotalBytes: 1024 })).toEqual({ ok: false, reason: 'too-large' });
  });

  it('refuses too many entries, zip64 markers and what is not a zip', () => {
    const many = buildZip(Array.from({ length: 201 }, (_, i) => ({ name: `e${i}`, data: Buffer.from('x') })));
    expect(inspectZip(many, LIMITS)).toEqual({ ok: false, reason: 'too-many-entries' });
    const zip64 = buildZip([{ name: 'a', data: Buffer.from('x'), declaredSize: 0xffffffff }]);
    expect(inspectZip(zip64, LIMITS)).toEqual({ ok: false, reason: 'zip64' });
    const zip64Eocd = buildZip([{ name: 'a', data: Buffer.from('x') }], (e) => e.writeUInt32LE(0xffffffff, 16));
    expect(inspectZip(zip64Eocd, LIMITS)).toEqual({ ok: false, reason: 'zip64' });
    expect(inspectZip(Buffer.from('PK not really a zip'), LIMITS)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('the translation import answers 400 on the file field, in the reader’s language, before ExcelJS', async () => {
    const zip = buildZip([{ name: 'xl/sharedStrings.xml', data: BOMB, declaredSize: 100 }]);
    const refused = parseImportFile(await getT('fr'), { format: 'xlsx', bytes: new Uint8Array(zip) });
    await expect(refused).rejects.toMatchObject({ status: 400, field: 'file' });
    await expect(refused).rejects.toThrow(/trop volumineux une fois décompressé.*200 parties et 20 Mo/);
    const en = parseImportFile(await getT('en'), { format: 'xlsx', bytes: new Uint8Array(zip) });
    await expect(en).rejects.toThrow(/too large once unpacked: at most 200 parts and 20 MB/);
  });
});
