/**
 * What the performance pages and APIs share: the URL parameters they read, links keeping the other
 * parameters, month labels, and the JSON forms of each board (amounts as decimal strings).
 */
import { AppError } from '../../errors/app-error.ts';
import type { Language } from '../../i18n/index.ts';
import { INTL_LOCALE } from '../../i18n/intl-locale.ts';
import { fromMinor, toDecimalString } from '../../money/money.ts';
import { BULLET_AMOUNTS, type Bullet, type BulletAmount } from './bullet.ts';
import type { Portfolio } from './portfolio.ts';
import { INCOME_TYPES, type Revenue, type RevenueCell } from './revenue.ts';

/** The `by` parameter: one of `allowed`, default the first; anything else is a 400 naming 'by'. */
export function readDimension<T extends string>(params: URLSearchParams, allowed: readonly T[], message: string): T {
  const raw = params.get('by');
  if (raw === null || raw === '') return allowed[0]!;
  if (!(allowed as readonly string[]).includes(raw)) throw new AppError('BAD_REQUEST', message, { field: 'by' });
  return raw as T;
}

/** The page's URL with some parameters changed (null removes one); `format` never kept. */
export function linkWith(path: string, params: URLSearchParams, changes: Record<string, string | null>): string {
  const next = new URLSearchParams(params);
  next.delete('format');
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) next.delete(k);
    else next.set(k, v);
  }
  const text = next.toString().replace(/%2C/g, ',').replace(/%3A/g, ':');
  return text ? `${path}?${text}` : path;
}

/** "Mar 2026" / "mars 2026". */
export function monthLabel(month: string, language: Language): string {
  return new Intl.DateTimeFormat(INTL_LOCALE[language], { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${month}-01T00:00:00Z`),
  );
}

/** A minor-unit amount as a plain number of major units, for chart geometry only (never for sums). */
export function chartValue(minor: bigint, currency: string): number {
  return Number(toDecimalString(fromMinor(minor, currency)));
}

const dec = (minor: bigint, currency: string) => toDecimalString(fromMinor(minor, currency));
const cellJson = (c: RevenueCell, currency: string) => ({
  ...Object.fromEntries(INCOME_TYPES.map((k) => [k, dec(c[k], currency)])),
  total: dec(c.interest + c.fees + c.penalties, currency),
});

export function revenueJson(r: Revenue, extra: Record<string, unknown>) {
  return {
    ...extra,
    currency: r.currency,
    by: r.dimension,
    months: r.months,
    liveMonths: r.liveMonths,
    totals: r.months.map((month, i) => ({ month, ...cellJson(r.totals[i]!, r.currency) })),
    total: cellJson(r.total, r.currency),
    groups: r.groups.map((g) => ({
      key: g.key,
      name: g.name,
      total: cellJson(g.total, r.currency),
      months: r.months.map((month, i) => ({ month, ...cellJson(g.months[i]!, r.currency) })),
    })),
  };
}

export function portfolioJson(p: Portfolio, extra: Record<string, unknown>) {
  const share = (part: bigint, whole: bigint) => (whole > 0n ? Number((part * 1_000_000n) / whole) / 1_000_000 : null);
  return {
    ...extra,
    currency: p.currency,
    by: p.dimension,
    months: p.months.map((month, i) => ({
      month,
      asOf: p.asOf[i],
      live: p.live[i],
      loans: p.totals[i]!.loans,
      principalOutstanding: dec(p.totals[i]!.principal, p.currency),
    })),
    groups: p.groups.map((g) => ({
      key: g.key,
      name: g.name,
      months: p.months.map((month, i) => ({
        month,
        loans: g.months[i]!.loans,
        principalOutstanding: dec(g.months[i]!.principal, p.currency),
        share: share(g.months[i]!.principal, p.totals[i]!.principal),
      })),
    })),
  };
}

export function bulletJson(b: Bullet, extra: Record<string, unknown>) {
  const amounts = (a: Record<BulletAmount, bigint>) =>
    Object.fromEntries(BULLET_AMOUNTS.map((k) => [k, dec(a[k], b.currency)]));
  const places = (o: Record<string, bigint>) =>
    Object.fromEntries(b.places.map((p) => [p, dec(o[p] ?? 0n, b.currency)]));
  return {
    ...extra,
    currency: b.currency,
    from: b.from,
    to: b.to,
    places: b.places,
    weeks: b.weeks.map((w) => ({
      week: w.week,
      monday: w.monday,
      loans: w.loans,
      ...amounts(w.amounts),
      outstandingBy: places(w.outstandingBy),
    })),
    total: { loans: b.total.loans, ...amounts(b.total.amounts), outstandingBy: places(b.total.outstandingBy) },
  };
}
