import zlib from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { extractPdfText, textOperators } from './pdf-text.ts';

/** A minimal one-page PDF with one content stream, optionally Flate-compressed. */
function pdf(content: string, flate: boolean): Buffer {
  const data = flate ? zlib.deflateSync(Buffer.from(content, 'latin1')) : Buffer.from(content, 'latin1');
  const head = Buffer.from(
    `%PDF-1.4\n1 0 obj\n<< /Length ${data.length}${flate ? ' /Filter /FlateDecode' : ''} >>\nstream\n`,
    'latin1',
  );
  return Buffer.concat([head, data, Buffer.from('\nendstream\nendobj\ntrailer\n<< >>\n%%EOF\n', 'latin1')]);
}

const content =
  'BT /F1 12 Tf 72 720 Td (Credit score: 712) Tj 0 -14 Td [(Open ) -20 (accounts: 3)] TJ T* (Caf\\351 \\(Paris\\)) Tj ET';

describe('extractPdfText', () => {
  test('reads text operators from an uncompressed stream', () => {
    expect(extractPdfText(pdf(content, false))).toBe('Credit score: 712\nOpen accounts: 3\nCafé (Paris)');
  });
  test('inflates a FlateDecode stream', () => {
    expect(extractPdfText(pdf(content, true))).toBe('Credit score: 712\nOpen accounts: 3\nCafé (Paris)');
  });
  test('hex strings, including UTF-16BE with a BOM', () => {
    expect(textOperators('BT <48656C6C6F> Tj T* <FEFF00C900E9> Tj ET')).toEqual(['Hello', 'Éé']);
  });
  test('not a PDF, or a stream with an unknown filter, gives no text', () => {
    expect(extractPdfText(Buffer.from('hello'))).toBe('');
    const other = Buffer.from('%PDF-1.4\n<< /Filter /DCTDecode >>\nstream\nBT (secret) Tj ET\nendstream\n', 'latin1');
    expect(extractPdfText(other)).toBe('');
  });
});
