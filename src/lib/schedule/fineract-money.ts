import { add, cmp, type Dec, divScale, fromInt, mul, setScale, signum, sub } from './decimal.ts';
import type { RoundingMode } from './types.ts';

/**
 * Fineract's Money semantics (fineract-core/.../monetary/domain/Money.java): every amount created is
 * rounded to the currency's digits with the configured rounding mode, and — only when the currency
 * has 0 digits and `inMultiplesOf` > 0 — first to the nearest multiple (ties go up). Amounts here are
 * Decs already at the currency scale.
 */
export type MoneyContext = {
  digits: number;
  mode: RoundingMode;
  /** Currency `inMultiplesOf` (0 = off). */
  currencyMultiple: number;
  /** Product `installmentAmountInMultiplesOf` (null = off). */
  installmentMultiple: number | null;
};

/** Money.of(currency, amount): an amount rounded the way the engine rounds every amount it creates. */
export function roundMoney(ctx: MoneyContext, amount: Dec): Dec {
  let value = amount;
  if (ctx.digits === 0 && ctx.currencyMultiple > 0 && signum(value) > 0) {
    // Money.roundToMultiplesOf(double, int): nearest multiple, a tie goes to the ceiling. Done exactly here;
    // Fineract's double arithmetic gives the same result for amounts of realistic size.
    const m = fromInt(ctx.currencyMultiple);
    const floor = mul(divScale(value, m, 0, 'FLOOR'), m);
    const ceil = mul(divScale(value, m, 0, 'CEILING'), m);
    value = cmp(sub(ceil, value), sub(value, floor)) > 0 ? floor : ceil;
  }
  return setScale(value, ctx.digits, ctx.mode);
}

/** Money.roundToMultiplesOf(Money, multiple): amount / multiple rounded to 0 places, × multiple. */
export function roundToMultiple(ctx: MoneyContext, amount: Dec, multiple: number): Dec {
  if (multiple <= 0) return amount;
  const m = fromInt(multiple);
  return roundMoney(ctx, mul(divScale(amount, m, 0, ctx.mode), m));
}

export function plus(ctx: MoneyContext, a: Dec, b: Dec): Dec {
  return roundMoney(ctx, add(a, b));
}

export function minus(ctx: MoneyContext, a: Dec, b: Dec): Dec {
  return roundMoney(ctx, sub(a, b));
}

export function zero(ctx: MoneyContext): Dec {
  return setScale(fromInt(0), ctx.digits, ctx.mode);
}

/** Minor units of an amount at the currency scale. */
export function minor(ctx: MoneyContext, amount: Dec): bigint {
  return setScale(amount, ctx.digits, ctx.mode).u;
}
