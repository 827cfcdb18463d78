/**
 * The JSON bodies of the delinquency and vintage APIs (src/pages/v1/analytics/risk/*): the same
 * parameters and queries as the boards, amounts as decimal strings, rates as fractions.
 */
import type { Tx } from '../db/index.ts';
import type { ScopeSubject } from '../tenancy/scope.ts';
import { boardScope } from '../boards/scope-picker.ts';
import { tenantMoneyDay } from '../tenancy/tenant.ts';
import { fromMinor, toDecimalString } from '../money/money.ts';
import { bucketKey, loadBuckets, loadCellLoans, loadMatrix, parseCell } from './delinquency.ts';
import { loadVintages } from './vintage.ts';
import { DRILL_PAGE_SIZE, readMeasure, readPage, readRiskParams } from './risk-params.ts';
import { AppError } from '../errors/app-error.ts';

const month = (date: string) => date.slice(0, 7);

export async function delinquencyMatrixBody(tx: Tx, subject: ScopeSubject, tenantId: string, params: URLSearchParams) {
  const { currency: tenantCurrency } = await tenantMoneyDay(tx, tenantId);
  const { scope } = await boardScope(tx, subject, params.get('scope'));
  const f = await readRiskParams(tx, params, tenantCurrency, { defaultMonths: 6, minSpan: 1 });
  const m = await loadMatrix(tx, subject, scope, f);
  const money = (minor: bigint) => toDecimalString(fromMinor(minor, f.currency));
  return {
    from: month(f.from),
    to: month(f.to),
    currency: f.currency,
    monthEnds: m.monthEnds,
    buckets: m.buckets.map((b) => ({ key: b.key, name: b.name, minDays: b.minDays, maxDays: b.maxDays })),
    columns: m.columns.map(bucketKey),
    rows: m.rows.map((r) => ({
      from: r.from.key,
      loans: r.loans,
      principal: money(r.principal),
      cells: r.cells.map((c) => ({
        to: bucketKey(c.to),
        loans: c.loans,
        principal: money(c.principal),
        countRate: c.countRate,
        amountRate: c.amountRate,
      })),
    })),
  };
}

export async function delinquencyLoansBody(tx: Tx, subject: ScopeSubject, tenantId: string, params: URLSearchParams) {
  const { currency: tenantCurrency } = await tenantMoneyDay(tx, tenantId);
  const { scope } = await boardScope(tx, subject, params.get('scope'));
  const f = await readRiskParams(tx, params, tenantCurrency, { defaultMonths: 6, minSpan: 1 });
  const buckets = await loadBuckets(tx);
  const cell = parseCell(params.get('cell'), buckets);
  if (!cell) throw new AppError('BAD_REQUEST', 'cell is required: <from>:<to>', { field: 'cell' });
  const page = readPage(params);
  const result = await loadCellLoans(tx, subject, scope, f, cell, {
    limit: DRILL_PAGE_SIZE,
    offset: (page - 1) * DRILL_PAGE_SIZE,
  });
  const money = (minor: bigint | null) => (minor === null ? null : toDecimalString(fromMinor(minor, f.currency)));
  return {
    from: month(f.from),
    to: month(f.to),
    currency: f.currency,
    cell: `${bucketKey(cell.from)}:${bucketKey(cell.to)}`,
    page,
    pageSize: DRILL_PAGE_SIZE,
    total: result.total,
    items: result.items.map((l) => ({
      loanId: l.loanId,
      accountNo: l.accountNo,
      customerName: l.customerName,
      fromMonthEnd: l.fromMonthEnd,
      monthEnd: l.monthEnd,
      principalStart: money(l.principalStart),
      principalEnd: money(l.principalEnd),
      pastDueDaysStart: l.pastDueDaysStart,
      pastDueDaysEnd: l.pastDueDaysEnd,
      statusEnd: l.statusEnd,
    })),
  };
}

export async function vintageBody(tx: Tx, subject: ScopeSubject, tenantId: string, params: URLSearchParams) {
  const { currency: tenantCurrency } = await tenantMoneyDay(tx, tenantId);
  const { scope } = await boardScope(tx, subject, params.get('scope'));
  const f = {
    ...(await readRiskParams(tx, params, tenantCurrency, { defaultMonths: 24, minSpan: 0 })),
    measure: readMeasure(params),
  };
  const cohorts = await loadVintages(tx, subject, scope, f);
  return {
    from: month(f.from),
    to: month(f.to),
    currency: f.currency,
    measure: f.measure,
    cohorts: cohorts.map((c) => ({
      cohort: month(c.cohort),
      loans: c.loans,
      disbursed: toDecimalString(fromMinor(c.disbursed, f.currency)),
      shares: Array.from(c.shares, (s) => s ?? null),
      amounts: Array.from(c.amounts, (a) => (a === undefined ? null : toDecimalString(fromMinor(a, f.currency)))),
    })),
  };
}
