import type { Tx } from '../db/index.ts';
import { assertInScope, notFoundError, type ScopeHolder } from '../auth/data-permissions.ts';
import { scopeFilter, type ScopeSubject } from '../tenancy/scope.ts';
import { INSTALLMENT_OUTSTANDING_SQL } from '../close/sql.ts';
import type { CollectionBucketsRow } from '../db/schema.generated.ts';

/**
 * The collector's worklist: the tenant's collection cases (collection_cases, one row per overdue
 * loan, kept by the daily close), in the viewer's hierarchy scope, ordered by priority. Reads the
 * cases table and joins only the rows of the page for names, so it stays fast at any portfolio size.
 */
export const WORKLIST_PAGE_SIZE = 50;

export type CollectorFilter = 'anyone' | 'mine' | 'unassigned';

export type WorklistFilters = {
  /** A bucket id, 'none' (overdue below the first bucket) or null (all). */
  bucket: string | null;
  collector: CollectorFilter;
  search: string;
  page: number;
};

export type WorklistRow = {
  loanId: string;
  customerId: string;
  customerName: string;
  accountNo: string;
  pastDueDays: number;
  overdueAmount: bigint;
  currency: string;
  bucketId: string | null;
  bucketName: string | null;
  brokenPromises: number;
  promiseDate: string | null;
  promiseAmount: bigint | null;
  nextCallbackAt: Date | null;
  lastContactAt: Date | null;
  collectorId: string | null;
  collectorName: string | null;
};

export type BucketSummary = {
  id: string | null;
  name: string | null;
  minDays: number | null;
  maxDays: number | null;
  count: number;
  /** Overdue totals per currency (minor units). */
  totals: { currency: string; amount: bigint }[];
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads the worklist filters from query parameters (unknown values fall back to the defaults). */
export function worklistFilters(params: URLSearchParams): WorklistFilters {
  const bucket = params.get('bucket') ?? '';
  const collector = params.get('collector');
  const page = Number.parseInt(params.get('page') ?? '1', 10);
  return {
    bucket: bucket === 'none' || UUID.test(bucket) ? bucket : null,
    collector: collector === 'mine' || collector === 'unassigned' ? collector : 'anyone',
    search: (params.get('q') ?? '').trim().slice(0, 100),
    page: Number.isFinite(page) && page >= 1 && page <= 10000 ? page : 1,
  };
}

async function whereOf(
  tx: Tx,
  subject: ScopeSubject & { userId: string },
  filters: Omit<WorklistFilters, 'page' | 'bucket'>,
  params: unknown[],
): Promise<string> {
  const scope = await scopeFilter(tx, subject, null, {
    columns: ['c.customer_branch_id', 'c.customer_officer_id'],
    firstParam: params.length + 1,
  });
  params.push(...scope.params);
  const where = [scope.sql];
  if (filters.collector === 'mine') {
    params.push(subject.userId);
    where.push(`c.collector_id = $${params.length}::uuid`);
  } else if (filters.collector === 'unassigned') where.push('c.collector_id is null');
  if (filters.search) {
    params.push(`%${filters.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
    const p = `$${params.length}`;
    where.push(
      `exists (select 1 from customers cu where cu.id = c.customer_id
                 and (cu.first_name || ' ' || cu.last_name ilike ${p} or cu.last_name || ' ' || cu.first_name ilike ${p}))
       or exists (select 1 from loans l where l.id = c.loan_id and l.account_no ilike ${p})`,
    );
  }
  return where.map((w) => `(${w})`).join(' and ');
}

/** The tenant's collection buckets, in order. */
export function listBuckets(tx: Tx): Promise<CollectionBucketsRow[]> {
  return tx.query<CollectionBucketsRow>('select * from collection_buckets order by position');
}

/** Cases and overdue totals per bucket, in the viewer's scope and collector/search filters. */
export async function bucketSummaries(
  tx: Tx,
  subject: ScopeSubject & { userId: string },
  filters: Omit<WorklistFilters, 'page' | 'bucket'>,
): Promise<BucketSummary[]> {
  const params: unknown[] = [];
  const where = await whereOf(tx, subject, filters, params);
  const [buckets, sums] = [
    await listBuckets(tx),
    await tx.query<{ bucket_id: string | null; currency: string; n: number; amount: bigint }>(
      `select c.bucket_id, c.currency, count(*)::int as n, sum(c.overdue_amount)::bigint as amount
         from collection_cases c where ${where} group by c.bucket_id, c.currency`,
      params,
    ),
  ];
  const summary = (id: string | null): Omit<BucketSummary, 'name' | 'minDays' | 'maxDays' | 'id'> => {
    const rows = sums.filter((s) => s.bucket_id === id);
    return {
      count: rows.reduce((n, r) => n + r.n, 0),
      totals: rows.map((r) => ({ currency: r.currency.trim(), amount: BigInt(r.amount) })),
    };
  };
  const out: BucketSummary[] = buckets.map((b) => ({
    id: b.id,
    name: b.name,
    minDays: b.min_days,
    maxDays: b.max_days,
    ...summary(b.id),
  }));
  const below = summary(null);
  if (below.count > 0) out.unshift({ id: null, name: null, minDays: null, maxDays: null, ...below });
  return out;
}

/** One page of the worklist, highest priority first. */
export async function listWorklist(
  tx: Tx,
  subject: ScopeSubject & { userId: string },
  filters: WorklistFilters,
): Promise<{ rows: WorklistRow[]; hasMore: boolean }> {
  const params: unknown[] = [];
  let where = await whereOf(tx, subject, filters, params);
  if (filters.bucket === 'none') where += ' and c.bucket_id is null';
  else if (filters.bucket) {
    params.push(filters.bucket);
    where += ` and c.bucket_id = $${params.length}::uuid`;
  }
  params.push(WORKLIST_PAGE_SIZE + 1, (filters.page - 1) * WORKLIST_PAGE_SIZE);
  const rows = await tx.query<{
    loan_id: string;
    customer_id: string;
    first_name: string;
    last_name: string;
    account_no: string;
    past_due_days: number;
    overdue_amount: bigint;
    currency: string;
    bucket_id: string | null;
    bucket_name: string | null;
    broken_promises: number;
    promise_date: string | null;
    promise_amount: bigint | null;
    next_callback_at: Date | null;
    last_contact_at: Date | null;
    collector_id: string | null;
    collector_name: string | null;
  }>(
    `with page as (
       select c.* from collection_cases c where ${where}
        order by c.priority desc, c.loan_id limit $${params.length - 1} offset $${params.length})
     select p.loan_id, p.customer_id, cu.first_name, cu.last_name, l.account_no, p.past_due_days, p.overdue_amount,
            p.currency, p.bucket_id, b.name as bucket_name, p.broken_promises, pr.promise_date, pr.promise_amount,
            p.next_callback_at, p.last_contact_at, p.collector_id, u.display_name as collector_name
       from page p
       join customers cu on cu.id = p.customer_id
       join loans l on l.id = p.loan_id
       left join collection_buckets b on b.id = p.bucket_id
       left join collection_activities pr on pr.id = p.open_promise_id and pr.promise_status = 'open'
       left join users u on u.id = p.collector_id
      order by p.priority desc, p.loan_id`,
    params,
  );
  return {
    hasMore: rows.length > WORKLIST_PAGE_SIZE,
    rows: rows.slice(0, WORKLIST_PAGE_SIZE).map((r) => ({
      loanId: r.loan_id,
      customerId: r.customer_id,
      customerName: `${r.first_name} ${r.last_name}`,
      accountNo: r.account_no,
      pastDueDays: r.past_due_days,
      overdueAmount: BigInt(r.overdue_amount),
      currency: r.currency.trim(),
      bucketId: r.bucket_id,
      bucketName: r.bucket_name,
      brokenPromises: r.broken_promises,
      promiseDate: r.promise_date,
      promiseAmount: r.promise_amount === null ? null : BigInt(r.promise_amount),
      nextCallbackAt: r.next_callback_at,
      lastContactAt: r.last_contact_at,
      collectorId: r.collector_id,
      collectorName: r.collector_name,
    })),
  };
}

export type CollectionView = {
  loan: {
    id: string;
    accountNo: string;
    status: string;
    currency: string;
    outstanding: bigint;
    customerId: string;
  };
  customer: {
    id: string;
    name: string;
    phone: string | null;
    email: string | null;
    optInStatus: string;
  };
  case: {
    pastDueDays: number;
    overdueAmount: bigint;
    bucketName: string | null;
    bucketSince: string | null;
    brokenPromises: number;
    nextCallbackAt: Date | null;
    lastContactAt: Date | null;
    collectorId: string | null;
    collectorName: string | null;
    promise: { id: string; date: string; amount: bigint } | null;
  } | null;
  overdueInstallments: { number: number; dueDate: string; outstanding: bigint }[];
  nextInstallment: { number: number; dueDate: string; outstanding: bigint } | null;
  businessDate: string;
};

/** The collection view of one loan, loaded through the viewer's scope (404 outside it). */
export async function loadCollectionView(tx: Tx, holder: ScopeHolder, loanId: string): Promise<CollectionView> {
  if (!UUID.test(loanId)) throw notFoundError('loan');
  await assertInScope(tx, holder, 'loan', loanId);
  const [row] = await tx.query<{
    id: string;
    account_no: string;
    status: string;
    currency: string;
    outstanding: bigint;
    customer_id: string;
    first_name: string;
    last_name: string;
    phone: string | null;
    email: string | null;
    opt_in_status: string;
    business_date: string;
  }>(
    `select l.id, l.account_no, l.status, l.currency, l.outstanding, l.customer_id, cu.first_name, cu.last_name,
            cu.phone, cu.email, cu.opt_in_status, to_char(t.business_date, 'YYYY-MM-DD') as business_date
       from loans l join customers cu on cu.id = l.customer_id join tenants t on t.id = l.tenant_id
      where l.id = $1`,
    [loanId],
  );
  const [c] = await tx.query<{
    past_due_days: number;
    overdue_amount: bigint;
    bucket_name: string | null;
    bucket_since: string | null;
    broken_promises: number;
    next_callback_at: Date | null;
    last_contact_at: Date | null;
    collector_id: string | null;
    collector_name: string | null;
    promise_id: string | null;
    promise_date: string | null;
    promise_amount: bigint | null;
  }>(
    `select c.past_due_days, c.overdue_amount, b.name as bucket_name, c.bucket_since, c.broken_promises,
            c.next_callback_at, c.last_contact_at, c.collector_id, u.display_name as collector_name,
            p.id as promise_id, p.promise_date, p.promise_amount
       from collection_cases c
       left join collection_buckets b on b.id = c.bucket_id
       left join users u on u.id = c.collector_id
       left join collection_activities p on p.id = c.open_promise_id and p.promise_status = 'open'
      where c.loan_id = $1`,
    [loanId],
  );
  const installments = await tx.query<{ number: number; due_date: string; outstanding: bigint }>(
    `select i.number, i.due_date, ${INSTALLMENT_OUTSTANDING_SQL} as outstanding
       from loan_installments i where i.loan_id = $1 and ${INSTALLMENT_OUTSTANDING_SQL} > 0 order by i.number`,
    [loanId],
  );
  const overdue = installments.filter((i) => i.due_date < row.business_date);
  const next = installments.find((i) => i.due_date >= row.business_date) ?? null;
  const inst = (i: { number: number; due_date: string; outstanding: bigint }) => ({
    number: i.number,
    dueDate: i.due_date,
    outstanding: BigInt(i.outstanding),
  });
  return {
    loan: {
      id: row.id,
      accountNo: row.account_no,
      status: row.status,
      currency: row.currency.trim(),
      outstanding: BigInt(row.outstanding),
      customerId: row.customer_id,
    },
    customer: {
      id: row.customer_id,
      name: `${row.first_name} ${row.last_name}`,
      phone: row.phone,
      email: row.email,
      optInStatus: row.opt_in_status,
    },
    case: c
      ? {
          pastDueDays: c.past_due_days,
          overdueAmount: BigInt(c.overdue_amount),
          bucketName: c.bucket_name,
          bucketSince: c.bucket_since,
          brokenPromises: c.broken_promises,
          nextCallbackAt: c.next_callback_at,
          lastContactAt: c.last_contact_at,
          collectorId: c.collector_id,
          collectorName: c.collector_name,
          promise:
            c.promise_id && c.promise_date && c.promise_amount !== null
              ? { id: c.promise_id, date: c.promise_date, amount: BigInt(c.promise_amount) }
              : null,
        }
      : null,
    overdueInstallments: overdue.map(inst),
    nextInstallment: next ? inst(next) : null,
    businessDate: row.business_date,
  };
}

/** Users of the tenant who can work collection (administrators or holders of loans.collection.view). */
export async function listCollectors(tx: Tx): Promise<{ id: string; name: string }[]> {
  return tx.query<{ id: string; name: string }>(
    `select u.id, u.display_name as name from users u
      where u.is_active and exists (
        select 1 from user_roles ur join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
         where ur.user_id = u.id and (r.is_admin or 'loans.collection.view' = any(r.authorities)))
      order by u.display_name`,
  );
}
