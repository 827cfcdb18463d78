import pg from 'pg';
import net from 'node:net';
import { stringify } from '../http/respond.ts';
import { resolvePublicHost } from '../net/outbound.ts';
import { parsePostgresUrl, type PostgresSettings } from './settings.ts';
import type { SinkBatch, SinkTarget, TargetContext } from './target.ts';

/**
 * The Postgres sink's target: a database the tenant owns. The connection goes to the address the
 * outbound guard checked (pg's `host` is that IP; the typed name stays the TLS server name), never to
 * a second lookup. In the target schema it creates, if missing, and keeps up to date:
 *  - `events` (id primary key): every delivered event, inserted once (`on conflict do nothing`);
 *  - `customers`, `loans` (id primary key), `loan_installments` (loan_id, number), `loan_transactions`
 *    (id): the product's current rows, upserted (a row never goes back to an older `version`).
 * Amounts are integers of minor units next to their currency, as in the product.
 */

const q = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

function ddl(schema: string): string {
  const s = q(schema);
  return `
    create schema if not exists ${s};
    create table if not exists ${s}.events (
      id uuid primary key, seq bigint not null, type text not null, object text not null, object_id text,
      actor_id text, occurred_at timestamptz not null, data jsonb not null,
      delivered_at timestamptz not null default now());
    create index if not exists events_occurred_at on ${s}.events (occurred_at);
    create table if not exists ${s}.customers (
      id uuid primary key, external_id text, first_name text, last_name text, email text, phone text,
      date_of_birth date, branch_id uuid, officer_id uuid, segment text, opt_in_status text, risk_class text,
      active_loans integer, version integer not null, created_at timestamptz, updated_at timestamptz,
      synced_at timestamptz not null default now());
    create table if not exists ${s}.loans (
      id uuid primary key, account_no text, customer_id uuid, product_id uuid, status text, currency text,
      principal bigint, number_of_repayments integer, repayment_every integer, repayment_frequency text,
      annual_interest_rate numeric, expected_disbursement_date date, submitted_on date, approved_on date,
      disbursed_on date, closed_on date, written_off_on date, maturity_date date, outstanding bigint,
      principal_outstanding bigint, credit_balance bigint, version integer not null, created_at timestamptz,
      updated_at timestamptz, synced_at timestamptz not null default now());
    create table if not exists ${s}.loan_installments (
      loan_id uuid not null, number integer not null, from_date date, due_date date, is_down_payment boolean,
      principal_due bigint, interest_due bigint, fee_due bigint, penalty_due bigint, principal_paid bigint,
      interest_paid bigint, fee_paid bigint, penalty_paid bigint, interest_waived bigint, fee_waived bigint,
      penalty_waived bigint, principal_written_off bigint, interest_written_off bigint, fee_written_off bigint,
      penalty_written_off bigint, obligations_met_on date, primary key (loan_id, number));
    create table if not exists ${s}.loan_transactions (
      id uuid primary key, loan_id uuid not null, type text not null, transaction_date date, currency text,
      amount bigint, principal_portion bigint, interest_portion bigint, fee_portion bigint, penalty_portion bigint,
      overpayment_portion bigint, installment_number integer, reverses_id uuid, created_at timestamptz);`;
}

const CUSTOMER_COLUMNS = [
  'id',
  'external_id',
  'first_name',
  'last_name',
  'email',
  'phone',
  'date_of_birth',
  'branch_id',
  'officer_id',
  'segment',
  'opt_in_status',
  'risk_class',
  'active_loans',
  'version',
  'created_at',
  'updated_at',
];
const LOAN_COLUMNS = [
  'id',
  'account_no',
  'customer_id',
  'product_id',
  'status',
  'currency',
  'principal',
  'number_of_repayments',
  'repayment_every',
  'repayment_frequency',
  'annual_interest_rate',
  'expected_disbursement_date',
  'submitted_on',
  'approved_on',
  'disbursed_on',
  'closed_on',
  'written_off_on',
  'maturity_date',
  'outstanding',
  'principal_outstanding',
  'credit_balance',
  'version',
  'created_at',
  'updated_at',
];
const INSTALLMENT_COLUMNS = [
  'loan_id',
  'number',
  'from_date',
  'due_date',
  'is_down_payment',
  'principal_due',
  'interest_due',
  'fee_due',
  'penalty_due',
  'principal_paid',
  'interest_paid',
  'fee_paid',
  'penalty_paid',
  'interest_waived',
  'fee_waived',
  'penalty_waived',
  'principal_written_off',
  'interest_written_off',
  'fee_written_off',
  'penalty_written_off',
  'obligations_met_on',
];
const TRANSACTION_COLUMNS = [
  'id',
  'loan_id',
  'type',
  'transaction_date',
  'currency',
  'amount',
  'principal_portion',
  'interest_portion',
  'fee_portion',
  'penalty_portion',
  'overpayment_portion',
  'installment_number',
  'reverses_id',
  'created_at',
];

/** `insert … select from jsonb_populate_recordset(…) on conflict (key) do update`: one statement per table. */
function upsertSql(schema: string, table: string, columns: string[], key: string[], guardVersion: boolean): string {
  const t = `${q(schema)}.${q(table)}`;
  const list = columns.map(q).join(', ');
  const updates = columns
    .filter((c) => !key.includes(c))
    .map((c) => `${q(c)} = excluded.${q(c)}`)
    .concat(['synced_at = now()'].filter(() => table === 'customers' || table === 'loans'))
    .join(', ');
  return `insert into ${t} (${list}) select ${list} from jsonb_populate_recordset(null::${t}, $1::jsonb)
    on conflict (${key.map(q).join(', ')}) do update set ${updates}
    ${guardVersion ? `where ${t}.version <= excluded.version` : ''}`;
}

async function connect(settings: PostgresSettings, ctx: Pick<TargetContext, 'allowPrivate'>): Promise<pg.Client> {
  const p = parsePostgresUrl(settings.connectionString);
  const [address] = await resolvePublicHost(p.host, { allowPrivate: ctx.allowPrivate });
  const servername = net.isIP(p.host) ? undefined : p.host;
  const open = async (ssl: false | { rejectUnauthorized: boolean; servername?: string }) => {
    const client = new pg.Client({
      host: address.address,
      port: p.port,
      user: p.user || undefined,
      password: p.password || undefined,
      database: p.database,
      ssl,
      connectionTimeoutMillis: 10_000,
      statement_timeout: 120_000,
      application_name: 'lending-event-sink',
    });
    client.on('error', () => {}); // an idle connection dropped by the server must not crash the process
    await client.connect();
    return client;
  };
  if (p.sslmode === 'disable') return open(false);
  if (p.sslmode === 'verify-full') return open({ rejectUnauthorized: true, servername });
  if (p.sslmode === 'require') return open({ rejectUnauthorized: false, servername });
  // prefer: TLS when the server offers it, plain otherwise (libpq's default).
  try {
    return await open({ rejectUnauthorized: false, servername });
  } catch (error) {
    if (/does not support SSL/i.test(String((error as Error)?.message))) return open(false);
    throw error;
  }
}

export async function openPostgresTarget(settings: PostgresSettings, ctx: TargetContext): Promise<SinkTarget> {
  const client = await connect(settings, ctx);
  const schema = settings.schema;
  try {
    await client.query(ddl(schema));
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return {
    async write(batch: SinkBatch) {
      await client.query('begin');
      try {
        if (batch.events.length)
          await client.query(
            `insert into ${q(schema)}.events (id, seq, type, object, object_id, actor_id, occurred_at, data)
             select e.id, e.seq, e.type, e.object, e.object_id, e.actor_id, e.occurred_at, e.data
               from jsonb_to_recordset($1::jsonb) as e(id uuid, seq bigint, type text, object text, object_id text,
                    actor_id text, occurred_at timestamptz, data jsonb)
             on conflict (id) do nothing`,
            [
              stringify(
                batch.events.map((e) => ({
                  id: e.id,
                  seq: e.seq,
                  type: e.type,
                  object: e.objectType,
                  object_id: e.objectId,
                  actor_id: e.actorId,
                  occurred_at: e.occurredAt,
                  data: e.data,
                })),
              ),
            ],
          );
        if (batch.customers.length)
          await client.query(upsertSql(schema, 'customers', CUSTOMER_COLUMNS, ['id'], true), [
            stringify(batch.customers),
          ]);
        if (batch.loans.length) {
          await client.query(upsertSql(schema, 'loans', LOAN_COLUMNS, ['id'], true), [
            stringify(batch.loans.map(({ installments: _i, transactions: _t, ...loan }) => loan)),
          ]);
          const installments = batch.loans.flatMap((l) => l.installments);
          // A rescheduled loan may have fewer installments than before: its extra rows go.
          await client.query(
            `delete from ${q(schema)}.loan_installments i where i.loan_id = any($1::uuid[])
               and not exists (select 1 from jsonb_to_recordset($2::jsonb) as n(loan_id uuid, number integer)
                                where n.loan_id = i.loan_id and n.number = i.number)`,
            [
              batch.loans.map((l) => l.id),
              stringify(installments.map((i) => ({ loan_id: i.loan_id, number: i.number }))),
            ],
          );
          if (installments.length)
            await client.query(
              upsertSql(schema, 'loan_installments', INSTALLMENT_COLUMNS, ['loan_id', 'number'], false),
              [stringify(installments)],
            );
          const transactions = batch.loans.flatMap((l) => l.transactions);
          if (transactions.length)
            await client.query(upsertSql(schema, 'loan_transactions', TRANSACTION_COLUMNS, ['id'], false), [
              stringify(transactions),
            ]);
        }
        await client.query('commit');
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      }
    },
    async close() {
      await client.end().catch(() => {});
    },
  };
}

/** "Test connection": connect through the guard, read the server's version and whether the schema exists. */
export async function testPostgresTarget(
  settings: PostgresSettings,
  ctx: Pick<TargetContext, 'allowPrivate'>,
): Promise<string> {
  const client = await connect(settings, ctx);
  try {
    const { rows } = await client.query<{ version: string; has_schema: boolean }>(
      `select current_setting('server_version') as version,
              exists (select 1 from pg_namespace where nspname = $1) as has_schema`,
      [settings.schema],
    );
    return `PostgreSQL ${rows[0].version}${rows[0].has_schema ? '' : ` (schema ${settings.schema} will be created)`}`;
  } finally {
    await client.end().catch(() => {});
  }
}
