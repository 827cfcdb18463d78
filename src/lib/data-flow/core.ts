import type { Tx } from '../db/index.ts';
import { readApiCalls } from './api-calls.ts';
import type { DataCoverage, DataSource, FlowLink, FlowLinkState, FlowStatus, UsageMeasure } from './registry.ts';

/**
 * The product's own entries of the data-flow registry (registry.ts, "core" heading): the links of
 * forms, staff, bank statements and bureau files into the product and of the product to downloads and
 * messages; the data sources of /admin/data/data-availability; the measures of
 * /admin/data/data-resource-usage. Every query runs in the tenant's transaction (row-level security)
 * and is set-based; table and column names below are constants of this file, never request values.
 */

/** The tenant's time zone (months and days on the data pages are the tenant's). */
export async function tenantZone(tx: Tx): Promise<string> {
  const [row] = await tx.query<{ time_zone: string }>('select time_zone from tenants where id = app_tenant()');
  return row?.time_zone ?? 'UTC';
}

// ————————————————————————————————————————— links —————————————————————————————————————————

type Counted = { volume: number; failed: number; last_at: Date | null };

/** A link's state from its volume and failures since `since`: error when nothing got through but something failed. */
export function linkState(c: Counted, detail?: string | null): FlowLinkState {
  let status: FlowStatus = 'idle';
  if (c.failed > 0) status = c.volume > 0 ? 'warning' : 'error';
  else if (c.volume > 0) status = 'ok';
  return { status, volume: c.volume, lastAt: c.last_at, detail: c.failed > 0 ? (detail ?? String(c.failed)) : null };
}

async function counted(tx: Tx, sql: string, since: Date): Promise<Counted> {
  const [row] = await tx.query<Counted>(sql, [since]);
  return { volume: Number(row?.volume ?? 0), failed: Number(row?.failed ?? 0), last_at: row?.last_at ?? null };
}

export const CORE_FLOW_LINKS: FlowLink[] = [
  {
    id: 'forms.submissions',
    from: 'forms',
    to: 'product',
    labelKey: 'dataops:flow.link.forms',
    href: '/admin/business/application-form',
    read: async (tx, since) =>
      linkState(
        await counted(
          tx,
          `select count(*) filter (where status <> 'failed')::int as volume, count(*) filter (where status = 'failed')::int as failed,
                  (select max(created_at) from form_submissions) as last_at
             from form_submissions where created_at >= $1`,
          since,
        ),
      ),
  },
  {
    id: 'staff.commands',
    from: 'staff',
    to: 'product',
    labelKey: 'dataops:flow.link.staff',
    href: '/admin/user/users',
    // Commands people ran: successful actions of the audit trail by users and API tokens.
    read: async (tx, since) =>
      linkState(
        await counted(
          tx,
          `select count(*) filter (where outcome = 'success')::int as volume, 0 as failed,
                  max(occurred_at) filter (where outcome = 'success') as last_at
             from audit_log where occurred_at >= $1 and actor_kind in ('user', 'token')`,
          since,
        ),
      ),
  },
  {
    id: 'bank_statements.imports',
    from: 'bank_statements',
    to: 'product',
    labelKey: 'dataops:flow.link.bankStatements',
    href: '/admin/data/data-availability',
    read: async (tx, since) =>
      linkState(
        await counted(
          tx,
          `select count(*) filter (where created_at >= $1)::int as volume, 0 as failed, max(created_at) as last_at
             from bank_statement_imports`,
          since,
        ),
      ),
  },
  {
    id: 'bureau.files',
    from: 'bureau',
    to: 'product',
    labelKey: 'dataops:flow.link.bureau',
    href: '/admin/data/data-availability',
    read: async (tx, since) =>
      linkState(
        await counted(
          tx,
          `select count(*) filter (where created_at >= $1)::int as volume, 0 as failed, max(created_at) as last_at
             from customer_files where kind in ('bureau_pdf', 'document')`,
          since,
        ),
      ),
  },
  {
    id: 'product.downloads',
    from: 'product',
    to: 'downloads',
    labelKey: 'dataops:flow.link.downloads',
    href: '/admin/platform/download',
    read: async (tx, since) =>
      linkState(
        await counted(
          tx,
          `select count(*) filter (where status <> 'failed')::int as volume, count(*) filter (where status = 'failed')::int as failed,
                  max(created_at) as last_at
             from downloads where created_at >= $1`,
          since,
        ),
      ),
  },
  {
    id: 'product.messages',
    from: 'product',
    to: 'messages',
    labelKey: 'dataops:flow.link.messages',
    href: '/loans/conversations',
    read: async (tx, since) =>
      linkState(
        await counted(
          tx,
          `select count(*) filter (where status <> 'failed')::int as volume, count(*) filter (where status = 'failed')::int as failed,
                  max(created_at) as last_at
             from conversation_messages where created_at >= $1 and kind = 'outbound'`,
          since,
        ),
      ),
  },
];

// ————————————————————————————————————————— sources —————————————————————————————————————————

type Bounds = { first: string | null; last: string | null; items: number; last_at: Date | null };
type Gap = { from: string; to: string };

/**
 * Months with no data inside [first, last], merged into ranges, all in SQL: `months` lists every
 * month of the period, `missing` those where `hasData` (an EXISTS over the month `m`, using the
 * source's date index) finds nothing, and consecutive missing months share a group number (the month
 * index minus the row number), each group becoming one gap from its first day to its last.
 */
async function monthGaps(tx: Tx, first: string, last: string, hasData: string, params: unknown[] = []): Promise<Gap[]> {
  const n = params.length;
  return tx.query<Gap>(
    `with months as (
       select generate_series(date_trunc('month', $${n + 1}::date), date_trunc('month', $${n + 2}::date), interval '1 month')::date as m),
     missing as (select m from months where not (${hasData}) ${params.map((_, i) => `and $${i + 1}::text is not null`).join(' ')}),
     grouped as (
       select m, (extract(year from m) * 12 + extract(month from m))::int - (row_number() over (order by m))::int as g from missing)
     select to_char(min(m), 'YYYY-MM-DD') as "from", to_char((max(m) + interval '1 month - 1 day')::date, 'YYYY-MM-DD') as "to"
       from grouped group by g order by 1`,
    [...params, first, last],
  );
}

/** Coverage of a table by one of its dates (a `date` expression), gaps by month. */
async function coverageOf(
  tx: Tx,
  spec: { table: string; day: string; where?: string; lastAt: string; itemsFrom?: string },
): Promise<DataCoverage> {
  const zone = await tenantZone(tx);
  const where = spec.where ? `where ${spec.where}` : '';
  const and = spec.where ? `and ${spec.where}` : '';
  const [b] = await tx.query<Bounds>(
    `select to_char(min(${spec.day}), 'YYYY-MM-DD') as first, to_char(max(${spec.day}), 'YYYY-MM-DD') as last,
            count(*)::int as items, ${spec.lastAt} as last_at
       from ${spec.table} ${where}`,
    [zone],
  );
  if (!b?.first || !b.last) return { from: null, to: null, lastAt: null, gaps: [], items: 0 };
  const gaps = await monthGaps(
    tx,
    b.first,
    b.last,
    `exists (select 1 from ${spec.table} where ${spec.day} >= m and ${spec.day} < (m + interval '1 month')::date ${and})`,
    [zone],
  );
  return { from: b.first, to: b.last, lastAt: b.last_at, gaps, items: b.items };
}

/** A timestamptz column as the tenant's local calendar day ($1 is the time zone). */
const localDay = (column: string) => `(${column} at time zone $1)::date`;

export const CORE_DATA_SOURCES: DataSource[] = [
  {
    id: 'bank_statements',
    labelKey: 'dataops:source.bankStatements',
    // Statements usually come monthly: a source quiet for more than 35 days is stale.
    staleAfterHours: 35 * 24,
    read: async (tx) => {
      const [b] = await tx.query<Bounds>(
        `select to_char(min(first_date), 'YYYY-MM-DD') as first, to_char(max(last_date), 'YYYY-MM-DD') as last,
                count(*)::int as items, max(created_at) as last_at from bank_statement_imports`,
      );
      if (!b?.first || !b.last) return { from: null, to: null, lastAt: null, gaps: [], items: 0 };
      // A month is covered when any imported statement's period overlaps it.
      const gaps = await monthGaps(
        tx,
        b.first,
        b.last,
        `exists (select 1 from bank_statement_imports where first_date < (m + interval '1 month')::date and last_date >= m)`,
      );
      return { from: b.first, to: b.last, lastAt: b.last_at, gaps, items: b.items };
    },
  },
  {
    id: 'bureau_files',
    labelKey: 'dataops:source.bureauFiles',
    staleAfterHours: 35 * 24,
    read: (tx) =>
      coverageOf(tx, {
        table: 'customer_files',
        day: localDay('created_at'),
        where: `kind = 'bureau_pdf'`,
        lastAt: 'max(created_at)',
      }),
  },
  {
    id: 'customer_files',
    labelKey: 'dataops:source.customerFiles',
    staleAfterHours: 35 * 24,
    read: (tx) =>
      coverageOf(tx, {
        table: 'customer_files',
        day: localDay('created_at'),
        where: `kind = 'document'`,
        lastAt: 'max(created_at)',
      }),
  },
  {
    id: 'form_submissions',
    labelKey: 'dataops:source.formSubmissions',
    staleAfterHours: 7 * 24,
    read: (tx) => coverageOf(tx, { table: 'form_submissions', day: localDay('created_at'), lastAt: 'max(created_at)' }),
  },
  {
    id: 'loan_activity',
    labelKey: 'dataops:source.loanActivity',
    staleAfterHours: 48,
    // By value date (indexed, 0935); the arrival is the newest transaction's creation, found through
    // the same index rather than a scan of every transaction.
    read: (tx) =>
      coverageOf(tx, {
        table: 'loan_transactions',
        day: 'transaction_date',
        lastAt: `(select created_at from loan_transactions where $1::text is not null order by transaction_date desc, id desc limit 1)`,
      }),
  },
];

// ————————————————————————————————————————— usage —————————————————————————————————————————

/** The first instant of month 'YYYY-MM' in the tenant's zone ($1 zone, $2 month). */
const MONTH_START = `((($2::text || '-01')::date)::timestamp at time zone $1)`;

/** A running total per month (what exists at each month's end), from rows' creation times. */
function stock(table: string, at: string, value = 'count(*)', where = 'true') {
  return async (tx: Tx, months: string[]): Promise<Record<string, number>> => {
    const zone = await tenantZone(tx);
    const rows = await tx.query<{ month: string; value: number }>(
      `with per as (
         select to_char(${at}, 'YYYY-MM') as month, ${value}::float8 as n from ${table} where ${where} group by 1)
       select month, (sum(n) over (order by month))::float8 as value from per order by month`,
      [zone],
    );
    const out: Record<string, number> = {};
    let i = 0;
    let running = 0;
    for (const month of months) {
      while (i < rows.length && rows[i].month <= month) running = rows[i++].value;
      out[month] = running;
    }
    return out;
  };
}

/** A count per month (what happened in each month) from the first of `months` on. */
function flow(table: string, column: string, where = 'true') {
  return async (tx: Tx, months: string[]): Promise<Record<string, number>> => {
    const zone = await tenantZone(tx);
    const rows = await tx.query<{ month: string; value: number }>(
      `select to_char(${column} at time zone $1, 'YYYY-MM') as month, count(*)::float8 as value
         from ${table} where ${column} >= ${MONTH_START} and ${where} group by 1`,
      [zone, months[0]],
    );
    return Object.fromEntries(rows.map((r) => [r.month, r.value]));
  };
}

const local = (column: string) => `(${column} at time zone $1)`;

/** Files the product keeps for the tenant: customer files, form uploads and conversation attachments. */
const FILES = `(select created_at, size_bytes from customer_files
          union all select created_at, size_bytes from form_submission_files
          union all select created_at, size_bytes from conversation_attachments) f`;

export const CORE_USAGE_MEASURES: UsageMeasure[] = [
  {
    id: 'storage.files',
    labelKey: 'dataops:usage.measure.storage',
    unit: 'bytes',
    read: stock(FILES, local('created_at'), 'sum(size_bytes)'),
  },
  { id: 'files', labelKey: 'dataops:usage.measure.files', unit: 'count', read: stock(FILES, local('created_at')) },
  {
    id: 'rows.customers',
    labelKey: 'dataops:usage.measure.customers',
    unit: 'count',
    read: stock('customers', local('created_at')),
  },
  {
    id: 'rows.loans',
    labelKey: 'dataops:usage.measure.loans',
    unit: 'count',
    read: stock('loans', local('created_at')),
  },
  {
    id: 'rows.transactions',
    labelKey: 'dataops:usage.measure.transactions',
    unit: 'count',
    // By value date: its index (0935) makes the count an index-only scan.
    read: stock('loan_transactions', 'transaction_date', 'count(*)', '$1::text is not null'),
  },
  {
    id: 'api_calls',
    labelKey: 'dataops:usage.measure.apiCalls',
    unit: 'count',
    read: (tx, months) => readApiCalls(tx, months),
  },
  {
    id: 'exports',
    labelKey: 'dataops:usage.measure.exports',
    unit: 'count',
    planFeature: 'exports',
    read: flow('downloads', 'created_at'),
  },
  { id: 'events', labelKey: 'dataops:usage.measure.events', unit: 'count', read: flow('domain_events', 'occurred_at') },
];
