import { describe, expect, it } from 'vitest';
import { assertProductDigits } from '#lib/lending/products.ts';
import { describeError } from '#lib/errors/messages.ts';

describe('a product’s digits are its currency’s', () => {
  it('accepts the currency table’s digits', () => {
    expect(() => assertProductDigits('EUR', 2)).not.toThrow();
    expect(() => assertProductDigits('xof', 0)).not.toThrow();
    expect(() => assertProductDigits('KWD', 3)).not.toThrow();
  });

  it('refuses any other number of decimals, naming the field, in English and French', () => {
    let error: unknown;
    try {
      assertProductDigits('eur', 0);
    } catch (e) {
      error = e;
    }
    expect(describeError(error, 'en')).toEqual({
      status: 400,
      body: expect.objectContaining({
        field: 'digitsAfterDecimal',
        key: 'money.currencyDigits',
        message: 'Decimal places must be 2: the number of decimals of EUR.',
      }),
    });
    expect(describeError(error, 'fr')?.body.message).toBe(
      'Nombre de décimales doit être 2 : le nombre de décimales de EUR.',
    );
    expect(() => assertProductDigits('JPY', 2)).toThrow(
      expect.objectContaining({ key: 'money.currencyDigits', params: { digits: 0, currency: 'JPY' } }),
    );
  });
});
