import type { Tx } from '../db/index.ts';

/**
 * The customer profile's computed views: transaction metrics by month, repayment behaviour,
 * the risk-class history and the credit analysis (affordability). Money stays in bigint minor units;
 * averages are rounded down to the minor unit; rates are whole basis points (10000 = 100 %).
 */

export type MonthMetrics = {
  month: string;
  currency: string;
  inflow: bigint;
  outflow: bigint;
  net_flow: bigint;
  closing_balance: bigint;
  min_balance: bigint;
  transaction_count: number;
  isRegular: boolean;
};

export type MetricsSummary = {
  months: MonthMetrics[];
  averageInflow: bigint;
  averageOutflow: bigint;
  averageNetFlow: bigint;
  lastBalance: bigint | null;
  /** Months whose inflow reached half the median monthly inflow, over all months, in basis points. */
  regularityBp: number;
};

function median(values: bigint[]): bigint {
  if (!values.length) return 0n;
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2n;
}

/** The last `monthCount` months of metrics that end on or before `untilMonth` (a 'YYYY-MM-01'), oldest first. */
export async function transactionMetrics(
  tx: Tx,
  customerId: string,
  options: { monthCount?: number; untilDate?: string } = {},
): Promise<MetricsSummary> {
  const rows = await tx.query<Omit<MonthMetrics, 'isRegular'>>(
    `select to_char(month, 'YYYY-MM-DD') as month, trim(currency) as currency, inflow, outflow, net_flow, closing_balance, min_balance, transaction_count
       from customer_transaction_metrics
      where customer_id = $1 and ($2::date is null or month <= date_trunc('month', $2::date)::date)
      order by month desc limit $3`,
    [customerId, options.untilDate ?? null, options.monthCount ?? 12],
  );
  rows.reverse();
  const threshold = median(rows.map((r) => r.inflow)) / 2n;
  const months = rows.map((r) => ({ ...r, isRegular: r.inflow > 0n && r.inflow >= threshold }));
  const n = BigInt(months.length || 1);
  const sum = (pick: (m: MonthMetrics) => bigint) => months.reduce((s, m) => s + pick(m), 0n);
  return {
    months,
    averageInflow: sum((m) => m.inflow) / n,
    averageOutflow: sum((m) => m.outflow) / n,
    averageNetFlow: floorDiv(
      sum((m) => m.net_flow),
      n,
    ),
    lastBalance: months.length ? months[months.length - 1].closing_balance : null,
    regularityBp: months.length ? Math.floor((months.filter((m) => m.isRegular).length * 10000) / months.length) : 0,
  };
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

export type RepaymentMonth = {
  month: string;
  dueCount: number;
  onTimeCount: number;
  lateCount: number;
  averageDaysLate: number;
};
export type RepaymentBehaviour = {
  dueCount: number;
  onTimeCount: number;
  lateCount: number;
  openLateCount: number;
  /** On-time installments over installments due, basis points; null with nothing due yet. */
  onTimeRateBp: number | null;
  /** Average days late over the late installments (settled late, or still unpaid past due), one decimal. */
  averageDaysLate: number;
  maxDaysLate: number;
  byMonth: RepaymentMonth[];
};

/**
 * Repayment behaviour over every installment of the customer's disbursed loans that fell due on or before
 * the business date (down payments excluded). An installment is on time when its obligations were met on
 * or before its due date; otherwise it is late by (met date, or the business date when still open) − due date.
 */
export async function repaymentBehaviour(
  tx: Tx,
  customerId: string,
  businessDate: string,
): Promise<RepaymentBehaviour> {
  const rows = await tx.query<{
    month: string;
    due_count: number;
    on_time: number;
    late: number;
    open_late: number;
    days_late_sum: number;
    max_late: number;
  }>(
    `select to_char(date_trunc('month', i.due_date), 'YYYY-MM-DD') as month,
            count(*)::int as due_count,
            count(*) filter (where i.obligations_met_on is not null and i.obligations_met_on <= i.due_date)::int as on_time,
            count(*) filter (where coalesce(i.obligations_met_on, $2::date) > i.due_date)::int as late,
            count(*) filter (where i.obligations_met_on is null and $2::date > i.due_date)::int as open_late,
            coalesce(sum(greatest(coalesce(i.obligations_met_on, $2::date) - i.due_date, 0)), 0)::int as days_late_sum,
            coalesce(max(greatest(coalesce(i.obligations_met_on, $2::date) - i.due_date, 0)), 0)::int as max_late
       from loan_installments i join loans l on l.tenant_id = i.tenant_id and l.id = i.loan_id
      where l.customer_id = $1 and l.disbursed_on is not null and not i.is_down_payment and i.due_date <= $2::date
      group by 1 order by 1`,
    [customerId, businessDate],
  );
  const total = (pick: (r: (typeof rows)[number]) => number) => rows.reduce((s, r) => s + pick(r), 0);
  const dueCount = total((r) => r.due_count);
  const lateCount = total((r) => r.late);
  const oneDecimal = (sum: number, count: number) => (count ? Math.round((sum * 10) / count) / 10 : 0);
  return {
    dueCount,
    onTimeCount: total((r) => r.on_time),
    lateCount,
    openLateCount: total((r) => r.open_late),
    onTimeRateBp: dueCount ? Math.floor((total((r) => r.on_time) * 10000) / dueCount) : null,
    averageDaysLate: oneDecimal(
      total((r) => r.days_late_sum),
      lateCount,
    ),
    maxDaysLate: rows.reduce((m, r) => Math.max(m, r.max_late), 0),
    byMonth: rows.map((r) => ({
      month: r.month,
      dueCount: r.due_count,
      onTimeCount: r.on_time,
      lateCount: r.late,
      averageDaysLate: oneDecimal(r.days_late_sum, r.late),
    })),
  };
}

export type ClassChange = { risk_class: string | null; reason: string; changed_by: string | null; changed_at: Date };

export async function riskClassHistory(tx: Tx, customerId: string): Promise<ClassChange[]> {
  return tx.query<ClassChange>(
    `select risk_class, reason, changed_by, changed_at from customer_risk_class_history where customer_id = $1 order by changed_at desc, id`,
    [customerId],
  );
}

export type OptInChange = { status: string; reason: string; changed_by: string | null; changed_at: Date };
export async function optInHistory(tx: Tx, customerId: string): Promise<OptInChange[]> {
  return tx.query<OptInChange>(
    `select status, reason, changed_by, changed_at from customer_opt_in_history where customer_id = $1 order by changed_at desc, id`,
    [customerId],
  );
}

/** The debt-service cap of the affordability check: instalments may take at most this share of inflow. */
export const MAX_DEBT_SERVICE_BP = 4000;

export type CreditAnalysis = {
  currency: string | null;
  monthsAnalysed: number;
  averageInflow: bigint;
  averageOutflow: bigint;
  averageNetFlow: bigint;
  regularityBp: number;
  activeLoanCount: number;
  /** Principal, interest, fees and penalties still owed on active loans. */
  outstandingDebt: bigint;
  /** What the active loans ask per month: the installments falling due in the 30 days after the business date. */
  monthlyDebtService: bigint;
  /** monthlyDebtService over averageInflow, basis points; null without inflow. */
  debtServiceRatioBp: number | null;
  /** The largest new monthly installment that keeps debt service within MAX_DEBT_SERVICE_BP of inflow. */
  affordableInstallment: bigint;
  verdict: 'insufficient_data' | 'affordable' | 'stretched' | 'over_indebted';
};

export async function creditAnalysis(tx: Tx, customerId: string, businessDate: string): Promise<CreditAnalysis> {
  // Whole months only: the business date's own month is still running.
  const [{ last_month }] = await tx.query<{ last_month: string }>(
    `select to_char(date_trunc('month', $1::date) - interval '1 day', 'YYYY-MM-DD') as last_month`,
    [businessDate],
  );
  const metrics = await transactionMetrics(tx, customerId, { monthCount: 6, untilDate: last_month });
  const [debt] = await tx.query<{ loans: number; outstanding: bigint; service: bigint }>(
    `select count(distinct l.id)::int as loans,
            coalesce(sum(i.principal_due + i.interest_due + i.fee_due + i.penalty_due - i.principal_paid - i.interest_paid - i.fee_paid - i.penalty_paid
              - i.interest_waived - i.fee_waived - i.penalty_waived - i.principal_written_off - i.interest_written_off - i.fee_written_off - i.penalty_written_off), 0)::int8 as outstanding,
            coalesce(sum(i.principal_due + i.interest_due + i.fee_due + i.penalty_due) filter (where i.due_date > $2::date and i.due_date <= $2::date + 30), 0)::int8 as service
       from loans l left join loan_installments i on i.tenant_id = l.tenant_id and i.loan_id = l.id
      where l.customer_id = $1 and l.status = 'ACTIVE'`,
    [customerId, businessDate],
  );
  const inflow = metrics.averageInflow;
  const ratio = inflow > 0n ? Number((debt.service * 10000n) / inflow) : null;
  const cap = (inflow * BigInt(MAX_DEBT_SERVICE_BP)) / 10000n;
  const affordable = cap > debt.service ? cap - debt.service : 0n;
  let verdict: CreditAnalysis['verdict'];
  if (metrics.months.length < 3 || inflow === 0n) verdict = 'insufficient_data';
  else if (ratio! <= MAX_DEBT_SERVICE_BP && metrics.averageNetFlow >= 0n) verdict = 'affordable';
  else if (ratio! <= 5000) verdict = 'stretched';
  else verdict = 'over_indebted';
  return {
    currency: metrics.months[0]?.currency ?? null,
    monthsAnalysed: metrics.months.length,
    averageInflow: metrics.averageInflow,
    averageOutflow: metrics.averageOutflow,
    averageNetFlow: metrics.averageNetFlow,
    regularityBp: metrics.regularityBp,
    activeLoanCount: debt.loans,
    outstandingDebt: debt.outstanding,
    monthlyDebtService: debt.service,
    debtServiceRatioBp: ratio,
    affordableInstallment: verdict === 'insufficient_data' ? 0n : affordable,
    verdict,
  };
}
