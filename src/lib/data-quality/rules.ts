import type { Tx } from '../db/index.ts';
import { checkTenantLedger } from '../lending/ledger/check-ledger.ts';

/**
 * The data-quality rules: code, not user-defined. Each rule names its entity, and either one
 * set-based SQL statement listing the failing rows (`failing`: row_id, customer_id, detail) or, for the
 * ledger drift, a function reusing the ledger check (src/lib/lending/ledger/check-ledger.ts) that is
 * itself set-based. Rows checked = every row of the rule's entity (so a rule's score is the share of the
 * entity's rows that pass it). The texts people read are in the `dataops` namespace
 * (`rule.<id>.name`, `rule.<id>.description`), English and French.
 *
 * Every statement runs in the tenant's transaction: row-level security keeps it to the tenant.
 * `$1` is the tenant's business date (the only "today" for lending).
 */
/** Failing rows a run keeps per rule for the drill-down (the count covers them all). */
export const KEPT_ROWS = 1000;

export const ENTITIES = ['customers', 'loans', 'applications', 'offers'] as const;
export type Entity = (typeof ENTITIES)[number];

export type FailingRow = { row_id: string; customer_id: string | null; detail: string | null };

export type Rule = {
  id: string;
  entity: Entity;
} & (
  | { failing: string; evaluate?: undefined }
  | { failing?: undefined; evaluate: (tx: Tx, tenantId: string) => Promise<FailingRow[]> }
);

/** Rows of each entity (the "checked" count of its rules). */
export const ENTITY_COUNT: Record<Entity, string> = {
  customers: 'select count(*)::int as n from customers',
  loans: 'select count(*)::int as n from loans',
  applications: 'select count(*)::int as n from loan_applications',
  offers: 'select count(*)::int as n from offers',
};

/** Where a failing row is shown (the drill-down links to it). */
export function rowHref(entity: Entity, row: { row_id: string; customer_id: string | null }): string | null {
  if (!row.customer_id) return null;
  const profile = `/admin/customer/profile/${row.customer_id}`;
  if (entity === 'customers') return profile;
  if (entity === 'loans') return `${profile}/loans/${row.row_id}`;
  if (entity === 'offers') return `${profile}/offers/${row.row_id}`;
  return `${profile}/loans`;
}

/**
 * An e-mail address people can write to: something@domain.tld, no spaces, one @. Stricter than the
 * customer form's check (something@something), on purpose: the form lets "a@b" through.
 */
const EMAIL_PATTERN = `^[A-Za-z0-9.!#$%&''*+/=?^_\`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$`;

/** Customers sharing a (normalised) key with another customer; the detail is the value as written. */
const duplicateOn = (key: string, column: string) => `
  with d as (select ${key} as k from customers where ${key} is not null group by 1 having count(*) > 1)
  select c.id::text as row_id, c.id as customer_id, c.${column} as detail
    from customers c join d on d.k = ${key.replaceAll(/\b(email|phone_key|national_id_key)\b/g, 'c.$1')}`;

export const RULES: readonly Rule[] = [
  // — customers: missing or invalid fields —
  {
    id: 'customers.missing_national_id',
    entity: 'customers',
    failing: `select id::text as row_id, id as customer_id, null::text as detail from customers where national_id_key is null`,
  },
  {
    id: 'customers.missing_contact',
    entity: 'customers',
    failing: `select id::text as row_id, id as customer_id, null::text as detail from customers
               where phone_key is null and nullif(btrim(email), '') is null`,
  },
  {
    id: 'customers.invalid_email',
    entity: 'customers',
    failing: `select id::text as row_id, id as customer_id, email as detail from customers
               where nullif(btrim(email), '') is not null and email !~ '${EMAIL_PATTERN}'`,
  },
  {
    id: 'customers.invalid_phone',
    entity: 'customers',
    // E.164 allows at most 15 digits; fewer than 6 is no reachable number.
    failing: `select id::text as row_id, id as customer_id, phone as detail from customers
               where nullif(btrim(phone), '') is not null and (phone_key is null or length(phone_key) not between 6 and 15)`,
  },
  {
    id: 'customers.impossible_birth_date',
    entity: 'customers',
    failing: `select id::text as row_id, id as customer_id, date_of_birth::text as detail from customers
               where date_of_birth > $1::date or date_of_birth < ($1::date - interval '120 years')::date`,
  },
  // — customers: duplicates (the same normalised keys as the public form's customer match, 0711) —
  {
    id: 'customers.duplicate_national_id',
    entity: 'customers',
    failing: duplicateOn('national_id_key', 'national_id'),
  },
  { id: 'customers.duplicate_phone', entity: 'customers', failing: duplicateOn('phone_key', 'phone') },
  {
    id: 'customers.duplicate_email',
    entity: 'customers',
    failing: duplicateOn(`lower(nullif(btrim(email), ''))`, 'email'),
  },
  // — inconsistent states —
  {
    id: 'loans.active_zero_outstanding',
    entity: 'loans',
    failing: `select id::text as row_id, customer_id, account_no as detail from loans where status = 'ACTIVE' and outstanding = 0`,
  },
  {
    id: 'loans.closed_with_outstanding',
    entity: 'loans',
    failing: `select id::text as row_id, customer_id, account_no || ' ' || outstanding::text as detail from loans
               where status in ('CLOSED_OBLIGATIONS_MET', 'OVERPAID', 'CLOSED_WRITTEN_OFF') and outstanding <> 0`,
  },
  {
    id: 'applications.approved_without_loan',
    entity: 'applications',
    failing: `select a.id::text as row_id, a.customer_id, null::text as detail from loan_applications a
               where a.status = 'approved'
                 and not exists (select 1 from loans l where l.tenant_id = a.tenant_id and l.id = a.loan_id)`,
  },
  {
    id: 'offers.expired_still_open',
    entity: 'offers',
    failing: `select id::text as row_id, customer_id, code || ' ' || expires_on::text as detail from offers
               where status in ('to_propose', 'pending') and expires_on < $1::date`,
  },
  // — loans whose balances drift from the ledger: the ledger check's own differences, per loan —
  {
    id: 'loans.ledger_drift',
    entity: 'loans',
    evaluate: async (tx, tenantId) => {
      const report = await checkTenantLedger(tx, tenantId);
      const byLoan = new Map<string, string[]>();
      for (const d of report.differences) {
        if (d.kind === 'loan_mismatch')
          byLoan.set(d.loanId, [
            ...(byLoan.get(d.loanId) ?? []),
            `${d.account}: ${d.loanBalance} ≠ ${d.ledgerBalance}`,
          ]);
        else if (d.kind === 'loan_summary_mismatch')
          byLoan.set(d.loanId, [...(byLoan.get(d.loanId) ?? []), `${d.field}: ${d.stored} ≠ ${d.actual}`]);
      }
      if (byLoan.size === 0) return [];
      // Only the rows the run keeps (the first by id) are linked to their customer.
      const kept = [...byLoan.keys()].sort().slice(0, KEPT_ROWS);
      const owners = await tx.query<{ id: string; customer_id: string }>(
        'select id::text as id, customer_id from loans where id = any($1::uuid[])',
        [kept],
      );
      const owner = new Map(owners.map((o) => [o.id, o.customer_id]));
      return [...byLoan].map(([loanId, details]) => ({
        row_id: loanId,
        customer_id: owner.get(loanId) ?? null,
        detail: details.join('; ').slice(0, 500),
      }));
    },
  },
];

export function ruleById(id: string): Rule | undefined {
  return RULES.find((r) => r.id === id);
}

/** A rule's score: the share of rows passing, in percent with two decimals; 100 when nothing was checked. */
export function ruleScore(checked: number, failing: number): number {
  if (checked <= 0) return 100;
  return Math.round(((checked - Math.min(failing, checked)) / checked) * 10_000) / 100;
}

/** The run's overall score: the mean of its rules' scores (each rule weighs the same). */
export function overallScore(scores: readonly number[]): number {
  if (scores.length === 0) return 100;
  return Math.round((scores.reduce((a, b) => a + b, 0) / scores.length) * 100) / 100;
}
