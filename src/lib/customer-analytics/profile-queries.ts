import type { Tx } from '../db/index.ts';

/**
 * The reads of the customer profile's tabs (resume, offers, loans, transactions, closed loans). The
 * tab components call these and render; row-level security keeps every query inside the bound
 * tenant, and the profile loads the customer through the caller's scope before any tab runs.
 */

const CLOSED_STATUSES = ['CLOSED_OBLIGATIONS_MET', 'OVERPAID', 'CLOSED_WRITTEN_OFF'];

export type ProfileCounts = {
  active_loans: number;
  closed_loans: number;
  outstanding: bigint;
  open_offers: number;
  collaterals: number;
  files: number;
};

/** The resume tab's figures: loans by state, outstanding principal, open offers, collaterals, files. */
export async function profileCounts(tx: Tx, customerId: string): Promise<ProfileCounts> {
  const [counts] = await tx.query<ProfileCounts>(
    `select (select count(*)::int from loans where customer_id = $1 and status = 'ACTIVE') as active_loans,
            (select count(*)::int from loans where customer_id = $1 and status = any($2::text[])) as closed_loans,
            (select coalesce(sum(i.principal_due - i.principal_paid - i.principal_written_off), 0)::int8 from loan_installments i join loans l
               on l.tenant_id = i.tenant_id and l.id = i.loan_id where l.customer_id = $1 and l.status = 'ACTIVE') as outstanding,
            (select count(*)::int from offers where customer_id = $1 and status in ('to_propose', 'pending')) as open_offers,
            (select count(*)::int from collaterals where customer_id = $1) as collaterals,
            (select count(*)::int from customer_files where customer_id = $1) as files`,
    [customerId, CLOSED_STATUSES],
  );
  return counts;
}

export type ProfileOffer = {
  id: string;
  code: string;
  status: string;
  currency: string;
  principal: bigint;
  number_of_repayments: number;
  annual_interest_rate: string;
  expires_on: string;
  product: string;
};

/** The customer's offers, newest first, with their product's name. */
export function profileOffers(tx: Tx, customerId: string): Promise<ProfileOffer[]> {
  return tx.query<ProfileOffer>(
    `select o.id, o.code, o.status, trim(o.currency) as currency, o.principal, o.number_of_repayments, o.annual_interest_rate::text, to_char(o.expires_on, 'YYYY-MM-DD') as expires_on, p.name as product
       from offers o join loan_products p on p.tenant_id = o.tenant_id and p.id = o.product_id
      where o.customer_id = $1 order by o.created_at desc, o.id`,
    [customerId],
  );
}

export type ProfileLoan = {
  id: string;
  account_no: string;
  status: string;
  currency: string;
  principal: bigint;
  number_of_repayments: number;
  disbursed_on: string | null;
  closed_on: string | null;
  outstanding: bigint;
  overdue: bigint;
};

/** The customer's loans, newest first, with what an active one still owes and what of it is overdue on the business date. */
export function profileLoans(tx: Tx, customerId: string, businessDate: string): Promise<ProfileLoan[]> {
  return tx.query<ProfileLoan>(
    `select l.id, l.account_no, l.status, trim(l.currency) as currency, l.principal, l.number_of_repayments,
            to_char(l.disbursed_on, 'YYYY-MM-DD') as disbursed_on, to_char(coalesce(l.closed_on, l.written_off_on), 'YYYY-MM-DD') as closed_on,
            coalesce(sum(i.principal_due + i.interest_due + i.fee_due + i.penalty_due - i.principal_paid - i.interest_paid - i.fee_paid - i.penalty_paid
              - i.interest_waived - i.fee_waived - i.penalty_waived - i.principal_written_off - i.interest_written_off - i.fee_written_off - i.penalty_written_off)
              filter (where l.status = 'ACTIVE'), 0)::int8 as outstanding,
            coalesce(sum(i.principal_due + i.interest_due + i.fee_due + i.penalty_due - i.principal_paid - i.interest_paid - i.fee_paid - i.penalty_paid
              - i.interest_waived - i.fee_waived - i.penalty_waived - i.principal_written_off - i.interest_written_off - i.fee_written_off - i.penalty_written_off)
              filter (where l.status = 'ACTIVE' and i.due_date < $2::date), 0)::int8 as overdue
       from loans l left join loan_installments i on i.tenant_id = l.tenant_id and i.loan_id = l.id
      where l.customer_id = $1 group by l.tenant_id, l.id order by l.submitted_on desc, l.account_no desc`,
    [customerId, businessDate],
  );
}

export type ProfileLoanTransaction = {
  id: string;
  loan_id: string;
  account_no: string;
  type: string;
  transaction_date: string;
  currency: string;
  amount: bigint;
  principal_portion: bigint;
  interest_portion: bigint;
  fee_portion: bigint;
  penalty_portion: bigint;
  is_reversed: boolean;
};
export type ProfileBankTransaction = {
  id: string;
  booked_on: string;
  currency: string;
  amount: bigint;
  balance_after: bigint;
  category: string;
  description: string;
  source: string;
};

/** The customer's latest loan transactions (the engine's ledger, without accruals) and bank-account movements. */
export async function profileTransactions(
  tx: Tx,
  customerId: string,
): Promise<{ loanTx: ProfileLoanTransaction[]; bankTx: ProfileBankTransaction[] }> {
  const loanTx = await tx.query<ProfileLoanTransaction>(
    `select t.id, t.loan_id, l.account_no, t.type::text as type, to_char(t.transaction_date, 'YYYY-MM-DD') as transaction_date, trim(t.currency) as currency, t.amount,
            t.principal_portion, t.interest_portion, t.fee_portion, t.penalty_portion, t.is_reversed
       from loan_transactions_view t join loans l on l.tenant_id = t.tenant_id and l.id = t.loan_id
      where l.customer_id = $1 and t.type not in ('ACCRUAL') order by t.transaction_date desc, t.seq desc limit 200`,
    [customerId],
  );
  const bankTx = await tx.query<ProfileBankTransaction>(
    `select id, to_char(booked_on, 'YYYY-MM-DD') as booked_on, trim(currency) as currency, amount, balance_after, category, description, source
       from customer_bank_transactions where customer_id = $1 order by booked_on desc, balance_after limit 100`,
    [customerId],
  );
  return { loanTx, bankTx };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether loanId is a closed loan of this very customer (the profile's closed-loans/:loanId page). */
export async function isClosedLoanOf(tx: Tx, customerId: string, loanId: string): Promise<boolean> {
  if (!UUID.test(loanId)) return false;
  const rows = await tx.query(`select 1 from loans where id = $1 and customer_id = $2 and status = any($3::text[])`, [
    loanId,
    customerId,
    CLOSED_STATUSES,
  ]);
  return rows.length > 0;
}
