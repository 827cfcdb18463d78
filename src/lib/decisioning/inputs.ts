import type { Tx } from '../db/index.ts';
import { currencyDigits } from '../money/money.ts';

/**
 * What a decision model sees about a customer, assembled by one set-based query so that a single
 * decision (an application submitted) and a simulation over 100,000 customers read the same facts the
 * same way. Amounts are numbers in major units of the customer's currency (JDM expressions compute on
 * numbers); ratios are fractions (0.35 = 35 %). Nothing here is a guess: a missing fact is null.
 *
 * - `customer`: age, segment, risk class, months since the customer was created, opted in.
 * - `bankStatement`: the last six whole months of transaction metrics before the business date.
 * - `bureau`: whether a bureau report is on file, and the score read from its text when it states one.
 * - `exposure`: active loans, what they still owe, what they ask per month, the worst days past due,
 *   loans written off and loans repaid.
 */
export type DecisionInput = {
  customer: {
    id: string;
    ageYears: number | null;
    segment: string | null;
    riskClass: string | null;
    monthsAsCustomer: number;
    optedIn: boolean;
    branchId: string | null;
  };
  bankStatement: {
    currency: string | null;
    monthsAnalysed: number;
    averageInflow: number;
    averageOutflow: number;
    averageNetFlow: number;
    lastBalance: number | null;
  };
  bureau: { reportOnFile: boolean; score: number | null };
  exposure: {
    activeLoans: number;
    outstanding: number;
    monthlyDebtService: number;
    debtServiceRatio: number | null;
    maxDaysPastDue: number;
    writtenOffLoans: number;
    closedLoans: number;
  };
  /** Set when the decision is about a request (an application): what is asked. */
  application?: { amount: number; numberOfRepayments: number; annualInterestRate: number; productCode: string };
};

type Row = {
  id: string;
  age_years: number | null;
  segment: string | null;
  risk_class: string | null;
  months_as_customer: number;
  opted_in: boolean;
  branch_id: string | null;
  bank_currency: string | null;
  months_analysed: number;
  avg_inflow: string;
  avg_outflow: string;
  avg_net: string;
  last_balance: string | null;
  bureau_on_file: boolean;
  bureau_score: number | null;
  loan_currency: string | null;
  active_loans: number;
  outstanding: string;
  debt_service: string;
  max_dpd: number;
  written_off: number;
  closed: number;
};

const SELECT = `
  with picked as (
    select c.* from customers c
     where ($2::uuid[] is null or c.id = any($2::uuid[]))
       and ($3::uuid is null or c.id > $3::uuid)
     order by c.id
     limit $4
  )
  select c.id,
         case when c.date_of_birth is null then null else extract(year from age($1::date, c.date_of_birth))::int end as age_years,
         c.segment, c.risk_class,
         greatest(0, (extract(year from age($1::date, c.created_at::date)) * 12 + extract(month from age($1::date, c.created_at::date)))::int) as months_as_customer,
         c.opt_in_status = 'opted_in' as opted_in,
         c.branch_id,
         m.currency as bank_currency, coalesce(m.months, 0)::int as months_analysed,
         coalesce(m.avg_inflow, 0)::text as avg_inflow, coalesce(m.avg_outflow, 0)::text as avg_outflow,
         coalesce(m.avg_net, 0)::text as avg_net, m.last_balance::text as last_balance,
         b.id is not null as bureau_on_file,
         substring(b.extracted_text from '[Ss][Cc][Oo][Rr][Ee][^0-9]{0,20}([0-9]{3,4})')::int as bureau_score,
         l.currency as loan_currency,
         coalesce(l.active, 0)::int as active_loans, coalesce(l.outstanding, 0)::text as outstanding,
         coalesce(s.service, 0)::text as debt_service, coalesce(d.max_dpd, 0)::int as max_dpd,
         coalesce(l.written_off, 0)::int as written_off, coalesce(l.closed, 0)::int as closed
    from picked c
    left join lateral (
      select trim(min(x.currency)) as currency, count(*) as months,
             floor(avg(x.inflow)) as avg_inflow, floor(avg(x.outflow)) as avg_outflow, floor(avg(x.net_flow)) as avg_net,
             (array_agg(x.closing_balance order by x.month desc))[1] as last_balance
        from (select * from customer_transaction_metrics t
               where t.customer_id = c.id and t.month < date_trunc('month', $1::date)::date
               order by t.month desc limit 6) x
    ) m on true
    left join lateral (
      select f.id, f.extracted_text from customer_files f
       where f.customer_id = c.id and f.kind = 'bureau_pdf' order by f.created_at desc limit 1
    ) b on true
    left join lateral (
      select trim(min(ln.currency)) as currency,
             count(*) filter (where ln.status = 'ACTIVE') as active,
             coalesce(sum(ln.outstanding) filter (where ln.status = 'ACTIVE'), 0) as outstanding,
             count(*) filter (where ln.status = 'CLOSED_WRITTEN_OFF') as written_off,
             count(*) filter (where ln.status = 'CLOSED_OBLIGATIONS_MET') as closed
        from loans ln where ln.customer_id = c.id
    ) l on true
    left join lateral (
      select coalesce(sum(i.principal_due + i.interest_due + i.fee_due + i.penalty_due), 0) as service
        from loans ln join loan_installments i on i.tenant_id = ln.tenant_id and i.loan_id = ln.id
       where ln.customer_id = c.id and ln.status = 'ACTIVE' and i.due_date > $1::date and i.due_date <= $1::date + 30
    ) s on true
    left join lateral (
      select max(ld.past_due_days) as max_dpd
        from loans ln join loan_delinquency ld on ld.tenant_id = ln.tenant_id and ld.loan_id = ln.id
       where ln.customer_id = c.id and ln.status = 'ACTIVE'
    ) d on true
   order by c.id`;

function major(minor: string | null, currency: string | null): number {
  if (minor === null) return 0;
  const digits = currency ? currencyDigits(currency) : 2;
  return Number(minor) / 10 ** digits;
}

function toInput(r: Row): DecisionInput {
  const inflow = major(r.avg_inflow, r.bank_currency);
  const service = major(r.debt_service, r.loan_currency);
  return {
    customer: {
      id: r.id,
      ageYears: r.age_years,
      segment: r.segment,
      riskClass: r.risk_class,
      monthsAsCustomer: r.months_as_customer,
      optedIn: r.opted_in,
      branchId: r.branch_id,
    },
    bankStatement: {
      currency: r.bank_currency,
      monthsAnalysed: r.months_analysed,
      averageInflow: inflow,
      averageOutflow: major(r.avg_outflow, r.bank_currency),
      averageNetFlow: major(r.avg_net, r.bank_currency),
      lastBalance: r.last_balance === null ? null : major(r.last_balance, r.bank_currency),
    },
    bureau: { reportOnFile: r.bureau_on_file, score: r.bureau_score },
    exposure: {
      activeLoans: r.active_loans,
      outstanding: major(r.outstanding, r.loan_currency),
      monthlyDebtService: service,
      debtServiceRatio: inflow > 0 ? Math.round((service / inflow) * 10000) / 10000 : null,
      maxDaysPastDue: r.max_dpd,
      writtenOffLoans: r.written_off,
      closedLoans: r.closed,
    },
  };
}

/** The inputs of one customer at a business date (null when the customer does not exist in this tenant). */
export async function decisionInput(tx: Tx, customerId: string, businessDate: string): Promise<DecisionInput | null> {
  const rows = await tx.query<Row>(SELECT, [businessDate, [customerId], null, 1]);
  return rows[0] ? toInput(rows[0]) : null;
}

/** A page of customers' inputs in id order, after `afterId` (keyset paging for simulations and origination). */
export async function decisionInputsPage(
  tx: Tx,
  businessDate: string,
  opts: { afterId?: string | null; limit: number; customerIds?: string[] | null },
): Promise<DecisionInput[]> {
  const rows = await tx.query<Row>(SELECT, [businessDate, opts.customerIds ?? null, opts.afterId ?? null, opts.limit]);
  return rows.map(toInput);
}
