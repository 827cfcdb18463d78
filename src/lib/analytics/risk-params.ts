/**
 * The URL parameters of the delinquency and vintage boards and their APIs (one reading for both):
 * from / to (YYYY-MM), product (uuid), branch (uuid), currency (the tenant's by default), scope
 * (level:id, read by boardScope), measure (vintages), cell and page (drill-down). A malformed value
 * is a 400 naming its field.
 */
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { isUuid } from '../http/query-params.ts';
import { defaultPeriod, parseMonth } from './delinquency.ts';
import { VINTAGE_MEASURES, type VintageMeasure } from './vintage.ts';

export type RiskParams = {
  from: string;
  to: string;
  productId: string | null;
  branchId: string | null;
  currency: string;
};

function uuidParam(params: URLSearchParams, field: string): string | null {
  const v = params.get(field);
  if (v === null || v === '') return null;
  if (!isUuid(v)) throw new AppError('BAD_REQUEST', `${field} must be an id`, { field });
  return v;
}

/** Month YYYY-MM-01 shifted by `n` months. */
export function shiftMonth(month: string, n: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1 + n, 1)).toISOString().slice(0, 10);
}

/**
 * The period and filters. Default period: the six month-end pairs up to the latest snapshot (matrix),
 * or the last 24 cohorts (vintages, `defaultMonths`).
 */
export async function readRiskParams(
  tx: Tx,
  params: URLSearchParams,
  tenantCurrency: string,
  options: { defaultMonths: number; minSpan: number },
): Promise<RiskParams> {
  const fromRaw = parseMonth(params.get('from'), 'from');
  const toRaw = parseMonth(params.get('to'), 'to');
  const fallback = (await defaultPeriod(tx, options.defaultMonths)) ?? {
    from: shiftMonth(`${new Date().toISOString().slice(0, 7)}-01`, -options.defaultMonths),
    to: `${new Date().toISOString().slice(0, 7)}-01`,
  };
  const to = toRaw ?? (fromRaw && fromRaw > fallback.to ? shiftMonth(fromRaw, options.minSpan) : fallback.to);
  const from = fromRaw ?? (toRaw ? shiftMonth(toRaw, -options.defaultMonths) : fallback.from);
  if (shiftMonth(from, options.minSpan) > to)
    throw new AppError('BAD_REQUEST', options.minSpan ? 'to must be after from' : 'to must not be before from', {
      field: 'to',
    });
  if (shiftMonth(from, 120) < to)
    throw new AppError('BAD_REQUEST', 'the period is at most ten years', { field: 'from' });
  const currency = (params.get('currency') ?? tenantCurrency).toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency))
    throw new AppError('BAD_REQUEST', 'currency must be a currency code', { field: 'currency' });
  return { from, to, productId: uuidParam(params, 'product'), branchId: uuidParam(params, 'branch'), currency };
}

export function readMeasure(params: URLSearchParams): VintageMeasure {
  const v = params.get('measure') ?? 'ever30';
  if (!(VINTAGE_MEASURES as readonly string[]).includes(v))
    throw new AppError('BAD_REQUEST', `measure must be one of ${VINTAGE_MEASURES.join(', ')}`, { field: 'measure' });
  return v as VintageMeasure;
}

export const DRILL_PAGE_SIZE = 50;

export function readPage(params: URLSearchParams): number {
  const raw = params.get('page') ?? '1';
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 100000)
    throw new AppError('BAD_REQUEST', 'page must be a page number', { field: 'page' });
  return n;
}

/** The products a filter offers (id, name), by name. */
export async function productOptions(tx: Tx): Promise<{ id: string; name: string }[]> {
  return tx.query<{ id: string; name: string }>('select id::text as id, name from loan_products order by name');
}

/** A month (YYYY-MM-DD, any day) as "Jan 2026" / "janv. 2026". */
export function formatMonth(date: string, language: string): string {
  return new Intl.DateTimeFormat(language, { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${date.slice(0, 7)}-01T00:00:00Z`),
  );
}

/** A share 0..1 as a shading step 0..10 (CSS classes `shade-0` … `shade-10`). */
export function shadeOf(rate: number | null): number {
  return rate === null ? 0 : Math.min(10, Math.max(0, Math.ceil(rate * 10)));
}

/** A link to the board at `path` with the current parameters changed (null removes one; `format` never kept). */
export function boardLink(path: string, params: URLSearchParams, changes: Record<string, string | null>): string {
  const next = new URLSearchParams(params);
  next.delete('format');
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) next.delete(k);
    else next.set(k, v);
  }
  const text = next.toString().replace(/%2C/g, ',').replace(/%3A/g, ':');
  return text ? `${path}?${text}` : path;
}
