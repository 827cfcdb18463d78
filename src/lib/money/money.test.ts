import { describe, expect, it } from 'vitest';
import { formatMinor, parseMinor } from './money.ts';

describe('money edges', () => {
  it('parses and formats exactly', () => {
    expect(parseMinor('1234.5', 2)).toBe(123450n);
    expect(parseMinor('-0.07', 2)).toBe(-7n);
    expect(parseMinor('1500', 0)).toBe(1500n);
    expect(formatMinor(123450n, 2)).toBe('1234.50');
    expect(formatMinor(-7n, 2)).toBe('-0.07');
    expect(formatMinor(5n, 3)).toBe('0.005');
    expect(formatMinor(1500n, 0)).toBe('1500');
  });
  it('refuses excess precision and garbage, naming the field', () => {
    expect(() => parseMinor('10.005', 2, 'principal')).toThrow('Amount can have at most 2 decimal places.');
    expect(() => parseMinor('1e3', 2)).toThrow('Amount must be an amount written with digits, such as 10.50.');
    expect(() => parseMinor('1e3', 2)).toThrow(expect.objectContaining({ field: 'amount', key: 'money.invalid', status: 400 }));
  });
});
