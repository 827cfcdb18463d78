import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  add,
  compare,
  currencyCode,
  currencyDigits,
  decodeMinor,
  formatMinor,
  formatMoney,
  fromDecimalString,
  fromMinor,
  isZero,
  MAX_AMOUNT_MINOR,
  parseMinor,
  parseMoney,
  sub,
  toDecimalString,
  zeroOf,
} from './money.ts';

/** Intl puts narrow and ordinary no-break spaces in French amounts; compare with plain spaces. */
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

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
    expect(() => parseMinor('1e3', 2)).toThrow(
      expect.objectContaining({ field: 'amount', key: 'money.invalid', status: 400 }),
    );
  });
});

describe('the Money value', () => {
  it('takes its digits from the currency table, and cleans the code once', () => {
    expect(fromMinor(1050n, 'EUR')).toEqual({ minor: 1050n, currency: 'EUR', digits: 2 });
    expect(fromMinor(1500n, 'xof')).toEqual({ minor: 1500n, currency: 'XOF', digits: 0 });
    expect(fromMinor(1n, 'KWD ')).toEqual({ minor: 1n, currency: 'KWD', digits: 3 });
    expect(currencyDigits('JPY')).toBe(0);
    expect(currencyDigits('TND')).toBe(3);
    expect(currencyDigits('CHF')).toBe(2);
    expect(currencyCode(' usd ')).toBe('USD');
    expect(() => currencyCode('EURO')).toThrow(
      expect.objectContaining({ field: 'currency', key: 'text.format', status: 400 }),
    );
    expect(() => fromMinor(1n, '')).toThrow('Currency is not in the expected form.');
  });

  it('parses input in its currency, with the parser’s rules and words', () => {
    expect(parseMoney('12.30', 'eur')).toEqual({ minor: 1230n, currency: 'EUR', digits: 2 });
    expect(parseMoney('1500', 'XOF')).toEqual({ minor: 1500n, currency: 'XOF', digits: 0 });
    expect(parseMoney('1.125', 'KWD')).toEqual({ minor: 1125n, currency: 'KWD', digits: 3 });
    expect(() => parseMoney('10.5', 'XOF', 'principal')).toThrow('Amount must be a whole amount, without decimals.');
    expect(() => parseMoney('0', 'EUR', 'amount', {})).toThrow(
      expect.objectContaining({ key: 'money.mustBePositive', field: 'amount' }),
    );
  });

  it('reads back the decimal strings the API writes, without the input bound', () => {
    expect(fromDecimalString('9350.00', 'EUR')).toEqual({ minor: 935000n, currency: 'EUR', digits: 2 });
    expect(fromDecimalString('-0.07', 'USD').minor).toBe(-7n);
    expect(fromDecimalString('92233720368547758.07', 'EUR').minor).toBe(9223372036854775807n);
    expect(decodeMinor('1500', 0)).toBe(1500n);
    expect(() => fromDecimalString('1,50', 'EUR')).toThrow('not a decimal amount');
  });

  it('adds, subtracts and compares in one currency only', () => {
    const a = fromMinor(1050n, 'EUR');
    const b = fromMinor(25n, 'EUR');
    expect(add(a, b)).toEqual({ minor: 1075n, currency: 'EUR', digits: 2 });
    expect(sub(b, a)).toEqual({ minor: -1025n, currency: 'EUR', digits: 2 });
    expect(compare(a, b)).toBe(1);
    expect(compare(b, a)).toBe(-1);
    expect(compare(a, fromMinor(1050n, 'eur'))).toBe(0);
    expect(isZero(sub(a, a))).toBe(true);
    expect(isZero(a)).toBe(false);
    expect(zeroOf('JPY')).toEqual({ minor: 0n, currency: 'JPY', digits: 0 });
    expect(() => add(a, fromMinor(1n, 'USD'))).toThrow('currency mismatch: EUR vs USD');
    expect(() => compare(a, fromMinor(1n, 'USD'))).toThrow('currency mismatch');
  });

  it('writes JSON amounts as today: plain decimals with the currency’s digits', () => {
    expect(toDecimalString(fromMinor(123450n, 'EUR'))).toBe('1234.50');
    expect(toDecimalString(fromMinor(5n, 'EUR'))).toBe('0.05');
    expect(toDecimalString(fromMinor(-7n, 'USD'))).toBe('-0.07');
    expect(toDecimalString(fromMinor(1500n, 'XOF'))).toBe('1500');
    expect(toDecimalString(fromMinor(5n, 'KWD'))).toBe('0.005');
    expect(toDecimalString(fromMinor(0n, 'EUR'))).toBe('0.00');
  });

  it('formats for people in each language, to the last minor unit', () => {
    expect(formatMoney(fromMinor(123450n, 'EUR'), 'en')).toBe('€1,234.50');
    expect(plain(formatMoney(fromMinor(123450n, 'EUR'), 'fr'))).toBe('1 234,50 €');
    expect(formatMoney(fromMinor(-1050n, 'USD'), 'en')).toBe('-$10.50');
    expect(plain(formatMoney(fromMinor(1500n, 'XOF'), 'fr'))).toBe('1 500 F CFA');
    expect(plain(formatMoney(fromMinor(1234567n, 'KWD'), 'en'))).toBe('KWD 1,234.567');
    // Beyond 2^53: a float would round the last digits.
    expect(formatMoney(fromMinor(900719925474099312n, 'EUR'), 'en')).toBe('€9,007,199,254,740,993.12');
  });
});

describe('properties', () => {
  const currencies = fc.constantFrom('EUR', 'USD', 'XOF', 'JPY', 'KWD', 'TND', 'CHF');

  it('parse ∘ toDecimalString is the identity on every amount within the bound, in every currency', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -MAX_AMOUNT_MINOR, max: MAX_AMOUNT_MINOR }), currencies, (minor, currency) => {
        const m = fromMinor(minor, currency);
        expect(parseMoney(toDecimalString(m), currency)).toEqual(m);
        expect(fromDecimalString(toDecimalString(m), currency)).toEqual(m);
      }),
    );
  });

  it('the formatted amount, stripped of its grouping and symbol, is the decimal string (no float on the way)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: MAX_AMOUNT_MINOR }),
        fc.constantFrom('EUR', 'USD', 'KWD'),
        (minor, currency) => {
          const m = fromMinor(minor, currency);
          const digitsOnly = formatMoney(m, 'en').replace(/[^0-9.]/g, '');
          expect(digitsOnly).toBe(toDecimalString(m));
          expect(parseMoney(digitsOnly, currency)).toEqual(m);
        },
      ),
    );
  });

  it('nothing above the bound parses; the bound itself does', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: MAX_AMOUNT_MINOR + 1n, max: 10n ** 25n }), currencies, (minor, currency) => {
        const text = toDecimalString(fromMinor(minor, currency));
        expect(() => parseMoney(text, currency)).toThrow(expect.objectContaining({ key: 'money.tooLarge' }));
        expect(() => parseMoney(`-${text}`, currency)).toThrow(expect.objectContaining({ key: 'money.tooLarge' }));
      }),
    );
    expect(parseMoney(toDecimalString(fromMinor(MAX_AMOUNT_MINOR, 'EUR')), 'EUR').minor).toBe(MAX_AMOUNT_MINOR);
  });

  it('add and sub are exact inverses, and compare agrees with the sign of the difference', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -MAX_AMOUNT_MINOR, max: MAX_AMOUNT_MINOR }),
        fc.bigInt({ min: -MAX_AMOUNT_MINOR, max: MAX_AMOUNT_MINOR }),
        (x, y) => {
          const a = fromMinor(x, 'EUR');
          const b = fromMinor(y, 'EUR');
          expect(sub(add(a, b), b)).toEqual(a);
          const d = sub(a, b).minor;
          expect(compare(a, b)).toBe(d < 0n ? -1 : d > 0n ? 1 : 0);
        },
      ),
    );
  });
});
