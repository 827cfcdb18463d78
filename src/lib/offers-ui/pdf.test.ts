import { describe, expect, it } from 'vitest';
import { textPdf } from './pdf.ts';

describe('textPdf', () => {
  const bytes = textPdf([{ text: 'Lettre d’offre (n° 1)', size: 16, isBold: true }, { text: 'Montant : 1 200,00 €' }], {
    title: 'Offre ABC',
  });
  const text = Buffer.from(bytes).toString('latin1');

  it('is a PDF whose xref offsets point at each object', () => {
    expect(text.startsWith('%PDF-1.4')).toBe(true);
    expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
    const startxref = Number(/startxref\n(\d+)/.exec(text)![1]);
    expect(text.slice(startxref, startxref + 4)).toBe('xref');
    const offsets = [...text.slice(startxref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    expect(offsets).toHaveLength(7);
    offsets.forEach((offset, i) => expect(text.slice(offset, offset + `${i + 1} 0 obj`.length)).toBe(`${i + 1} 0 obj`));
  });

  it('writes French text in Latin-1, escapes parentheses and states the stream length exactly', () => {
    expect(text).toContain("(Lettre d'offre \\(n\xb0 1\\)) Tj");
    expect(text).toContain('Montant : 1 200,00 EUR');
    const length = Number(/<< \/Length (\d+) >>\nstream\n/.exec(text)![1]);
    const start = text.indexOf('stream\n') + 'stream\n'.length;
    expect(text.slice(start + length, start + length + '\nendstream'.length)).toBe('\nendstream');
  });
});
