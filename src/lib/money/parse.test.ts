import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAmountText, formatMinorPlain, MAX_AMOUNT_MINOR, parseAmount, type AmountOptions } from './parse.ts';
import { validationMessage } from '../errors/messages.ts';

const INT8_MAX = 9_223_372_036_854_775_807n;
const keyOf = (value: unknown, options: AmountOptions = { digits: 2 }) => {
  const result = parseAmount(value, options);
  return result.ok ? `ok:${result.minor}` : result.problem.key;
};

describe('parseAmount: the one money parser', () => {
  it('reads plain decimals exactly, from text or a JSON number', () => {
    expect(keyOf('1234.5')).toBe('ok:123450');
    expect(keyOf('0.07')).toBe('ok:7');
    expect(keyOf(10.1)).toBe('ok:1010');
    expect(keyOf(' 10.00\t')).toBe('ok:1000');
    expect(keyOf('1500', { digits: 0 })).toBe('ok:1500');
    expect(keyOf('1.125', { digits: 3 })).toBe('ok:1125');
    expect(keyOf('9999999999999.99')).toBe(`ok:${MAX_AMOUNT_MINOR}`);
  });

  const cases: [unknown, string][] = [
    // [input, expected key]
    [undefined, 'required'],
    [null, 'required'],
    ['', 'required'],
    ['   ', 'required'],
    ['abc', 'money.invalid'],
    ['1e20', 'money.invalid'],
    [1e21, 'money.invalid'],
    ['1E3', 'money.invalid'],
    ['0x10', 'money.invalid'],
    ['١٢٣', 'money.invalid'],
    ['１２', 'money.invalid'],
    ['+10', 'money.invalid'],
    ['.5', 'money.invalid'],
    ['5.', 'money.invalid'],
    ['NaN', 'money.invalid'],
    [Number.NaN, 'money.invalid'],
    ['Infinity', 'money.invalid'],
    [Number.POSITIVE_INFINITY, 'money.invalid'],
    [true, 'money.invalid'],
    [[10], 'money.invalid'],
    [{ amount: 10 }, 'money.invalid'],
    [10n, 'money.invalid'],
    ['1 000', 'money.separators'],
    ['1\u00a0000', 'money.separators'],
    ['1\u202f000,50', 'money.separators'],
    ["1'000", 'money.separators'],
    ['1_000', 'money.separators'],
    ['1,000.50', 'money.separators'],
    ['1,000', 'money.separators'],
    ['10,50', 'money.separators'],
    ['-10', 'money.mustBePositive'],
    [-10, 'money.mustBePositive'],
    ['0', 'money.mustBePositive'],
    ['0.00', 'money.mustBePositive'],
    ['-0', 'money.mustBePositive'],
    ['10.005', 'money.tooManyDecimals'],
    [0.1 + 0.2, 'money.tooManyDecimals'],
    ['10.5', 'ok:1050'],
    ['99999999999999', 'money.tooLarge'],
    ['10000000000000.00', 'money.tooLarge'],
    ['92233720368547758.07', 'money.tooLarge'],
    ['9223372036854775807', 'money.tooLarge'],
    ['9223372036854775808', 'money.tooLarge'],
    [2 ** 53 + 1, 'money.tooLarge'],
    ['9'.repeat(41), 'money.tooLarge'],
    ['1'.repeat(100_000), 'money.tooLarge'],
    ['0'.repeat(60) + '1', 'money.tooLarge'],
    ['1.' + '0'.repeat(60), 'money.tooLarge'],
  ];
  it('answers each hostile input with its reason', () => {
    for (const [input, key] of cases)
      expect(keyOf(input), typeof input === 'string' ? input.slice(0, 40) : String(input)).toBe(key);
  });

  it('follows the field: zero, negative, whole-unit currencies, a decimal comma in French forms', () => {
    expect(keyOf('0', { digits: 2, allowZero: true })).toBe('ok:0');
    expect(keyOf('-1', { digits: 2, allowZero: true })).toBe('money.mustNotBeNegative');
    expect(keyOf('-12.30', { digits: 2, allowNegative: true })).toBe('ok:-1230');
    expect(keyOf('10.5', { digits: 0 })).toBe('money.wholeOnly');
    expect(keyOf('10,50', { digits: 2, decimalComma: true })).toBe('ok:1050');
    expect(keyOf('1,000.50', { digits: 2, decimalComma: true })).toBe('money.separators');
    expect(keyOf('1.000,50', { digits: 2, decimalComma: true })).toBe('money.separators');
    expect(keyOf('1,2,3', { digits: 2, decimalComma: true })).toBe('money.separators');
    expect(keyOf('150.00', { digits: 2, max: 10000n })).toBe('money.tooLarge');
  });

  it('says what is allowed, in English and French, with the field label', () => {
    const r = parseAmount('99999999999999', { digits: 2 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(validationMessage('en', r.problem.key, r.problem.params, 'amount')).toBe(
      'Amount must be at most 9,999,999,999,999.99.',
    );
    expect(validationMessage('fr', r.problem.key, r.problem.params, 'amount')).toBe(
      'Montant doit être au plus 9\u202f999\u202f999\u202f999\u202f999,99.',
    );
    const decimals = parseAmount('10.005', { digits: 2 });
    if (decimals.ok) throw new Error('accepted');
    expect(validationMessage('fr', decimals.problem.key, decimals.problem.params, 'principal')).toBe(
      'Montant peut avoir au plus 2 décimales.',
    );
  });

  it('property: every amount within the bound round-trips through its text, for every currency', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: MAX_AMOUNT_MINOR }), fc.integer({ min: 0, max: 6 }), (minor, digits) => {
        const text = formatMinorPlain(minor, digits);
        expect(parseAmount(text, { digits })).toEqual({ ok: true, minor });
        expect(checkAmountText(text)).toEqual({ ok: true, text });
      }),
    );
  });

  it('property: nothing above the bound is accepted, and a sum of 9,000 accepted amounts fits in int8', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: MAX_AMOUNT_MINOR + 1n, max: 10n ** 30n }),
        fc.integer({ min: 0, max: 6 }),
        (minor, digits) => {
          const result = parseAmount(formatMinorPlain(minor, digits), { digits });
          expect(result.ok ? 'accepted' : result.problem.key).toMatch(/^money\.(tooLarge)$/);
        },
      ),
    );
    expect(MAX_AMOUNT_MINOR * 9_000n < INT8_MAX).toBe(true);
    expect(MAX_AMOUNT_MINOR < BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
  });

  it('property: any string is answered (accepted or a known reason), never thrown, and accepted ones are plain decimals', () => {
    const keys = new Set([
      'required',
      'money.invalid',
      'money.separators',
      'money.tooManyDecimals',
      'money.wholeOnly',
      'money.mustBePositive',
      'money.tooLarge',
    ]);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[-+ 0-9.,eE_x]{0,45}$/)), (text) => {
        const result = parseAmount(text, { digits: 2 });
        if (result.ok) {
          expect(text.trim()).toMatch(/^[0-9]+(\.[0-9]{1,2})?$/);
          expect(result.minor > 0n && result.minor <= MAX_AMOUNT_MINOR).toBe(true);
        } else {
          expect(keys.has(result.problem.key)).toBe(true);
        }
      }),
    );
  });

  it('the edge check refuses the form without knowing the currency', () => {
    expect(checkAmountText('10.005')).toEqual({ ok: true, text: '10.005' });
    expect(checkAmountText(12.5)).toEqual({ ok: true, text: '12.5' });
    expect(checkAmountText('1e5')).toMatchObject({ ok: false, problem: { key: 'money.invalid' } });
    expect(checkAmountText('9'.repeat(50))).toMatchObject({ ok: false, problem: { key: 'money.tooLong' } });
    expect(checkAmountText('-1')).toMatchObject({ ok: false, problem: { key: 'money.mustBePositive' } });
  });
});
