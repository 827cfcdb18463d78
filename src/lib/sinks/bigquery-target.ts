import crypto from 'node:crypto';
import { BigQuery, type Dataset, type TableField } from '@google-cloud/bigquery';
import { OAuth2Client } from 'google-auth-library';
import { env } from '../config/env.ts';
import { checkTargetUrl, sendHttp } from '../net/outbound.ts';
import { readServiceAccountKey, type BigQuerySettings } from './settings.ts';
import type { SinkBatch, SinkTarget, TargetContext } from './target.ts';

/**
 * The BigQuery sink's target, through Google's official client (`@google-cloud/bigquery`, streaming
 * `table.insert` = `tabledata.insertAll`). Every row carries an `insertId` (best-effort de-duplication
 * by BigQuery): the event id for `events`, `<id>:<version>` for the snapshot tables, which are
 * append-only in BigQuery: a customer's or loan's current state is its row with the highest
 * `version` (a view over them is the warehouse's choice). Transactions are appended once by id.
 *
 * The service account's token is fetched by us, not by the client library: the key's `token_uri` is
 * an address a user typed, so the exchange (an RS256 JWT bearer grant, RFC 7523, as Google documents
 * it) goes through the outbound guard (`sendHttp`, public addresses only, no redirects). The client
 * then calls Google's fixed endpoint, or `apiEndpoint` where the operator allows private targets (the
 * tests' stand-in); that override is checked when saved and again here.
 */

const STRING = (name: string, mode: 'REQUIRED' | 'NULLABLE' = 'NULLABLE'): TableField => ({
  name,
  type: 'STRING',
  mode,
});
const INTEGER = (name: string): TableField => ({ name, type: 'INTEGER', mode: 'NULLABLE' });
const DATE = (name: string): TableField => ({ name, type: 'DATE', mode: 'NULLABLE' });
const TIMESTAMP = (name: string): TableField => ({ name, type: 'TIMESTAMP', mode: 'NULLABLE' });

export const BIGQUERY_TABLES: Record<string, TableField[]> = {
  events: [
    STRING('id', 'REQUIRED'),
    INTEGER('seq'),
    STRING('type', 'REQUIRED'),
    STRING('object'),
    STRING('object_id'),
    STRING('actor_id'),
    TIMESTAMP('occurred_at'),
    STRING('data'),
  ],
  customers: [
    STRING('id', 'REQUIRED'),
    STRING('external_id'),
    STRING('first_name'),
    STRING('last_name'),
    STRING('email'),
    STRING('phone'),
    DATE('date_of_birth'),
    STRING('branch_id'),
    STRING('officer_id'),
    STRING('segment'),
    STRING('opt_in_status'),
    STRING('risk_class'),
    INTEGER('active_loans'),
    INTEGER('version'),
    TIMESTAMP('created_at'),
    TIMESTAMP('updated_at'),
    TIMESTAMP('synced_at'),
  ],
  loans: [
    STRING('id', 'REQUIRED'),
    STRING('account_no'),
    STRING('customer_id'),
    STRING('product_id'),
    STRING('status'),
    STRING('currency'),
    INTEGER('principal'),
    INTEGER('number_of_repayments'),
    STRING('annual_interest_rate'),
    DATE('submitted_on'),
    DATE('approved_on'),
    DATE('disbursed_on'),
    DATE('closed_on'),
    DATE('written_off_on'),
    DATE('maturity_date'),
    INTEGER('outstanding'),
    INTEGER('principal_outstanding'),
    INTEGER('credit_balance'),
    INTEGER('version'),
    TIMESTAMP('updated_at'),
    TIMESTAMP('synced_at'),
  ],
  loan_transactions: [
    STRING('id', 'REQUIRED'),
    STRING('loan_id'),
    STRING('type'),
    DATE('transaction_date'),
    STRING('currency'),
    INTEGER('amount'),
    INTEGER('principal_portion'),
    INTEGER('interest_portion'),
    INTEGER('fee_portion'),
    INTEGER('penalty_portion'),
    STRING('reverses_id'),
    TIMESTAMP('created_at'),
  ],
};

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** Exchanges a signed JWT for an access token at the key's token_uri (through the outbound guard). */
export async function fetchAccessToken(
  credentials: string,
  options: { allowPrivate?: boolean } = {},
): Promise<{ token: string; expiresAt: number }> {
  const key = readServiceAccountKey(credentials);
  const tokenUrl = checkTargetUrl(key.token_uri, 'credentials', ['https:', 'http:'], options);
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = b64url(
    JSON.stringify({
      iss: key.client_email,
      scope: 'https://www.googleapis.com/auth/bigquery',
      aud: key.token_uri,
      iat: now,
      exp: now + 3600,
    }),
  );
  const signature = crypto.sign('RSA-SHA256', Buffer.from(`${header}.${claims}`), key.private_key);
  const assertion = `${header}.${claims}.${b64url(signature)}`;
  const answer = await sendHttp(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
    timeoutMs: 15_000,
    allowPrivate: options.allowPrivate,
  });
  if (answer.status !== 200) throw new Error(`token exchange at ${tokenUrl.origin} answered ${answer.status}`);
  const body = JSON.parse(answer.body) as { access_token?: string; expires_in?: number };
  if (!body.access_token) throw new Error(`token exchange at ${tokenUrl.origin} gave no access_token`);
  return { token: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 3600) * 1000 };
}

async function client(settings: BigQuerySettings, ctx: Pick<TargetContext, 'allowPrivate'>): Promise<BigQuery> {
  // The client library's own HTTP stack (gaxios) resolves names without the outbound guard and follows
  // redirects: it may only ever talk to Google's fixed endpoint, or to an apiEndpoint while the
  // operator allows private targets (as when it was saved). A sink saved under the opt-out does not
  // keep reaching its endpoint once the operator turns it off.
  if (settings.apiEndpoint && !(ctx.allowPrivate ?? env().allowPrivateTargets))
    throw new Error('apiEndpoint is only used while the operator allows private targets (ALLOW_PRIVATE_TARGETS)');
  const { token, expiresAt } = await fetchAccessToken(settings.credentials, ctx);
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: token, expiry_date: expiresAt, token_type: 'Bearer' });
  const apiEndpoint = settings.apiEndpoint
    ? checkTargetUrl(settings.apiEndpoint, 'apiEndpoint', ['https:', 'http:'], ctx).origin
    : undefined;
  return new BigQuery({
    projectId: settings.projectId,
    apiEndpoint,
    authClient: auth,
    autoRetry: false,
    maxRetries: 0,
  });
}

async function ensureTables(dataset: Dataset): Promise<void> {
  const [exists] = await dataset.exists();
  if (!exists) await dataset.create();
  for (const [name, fields] of Object.entries(BIGQUERY_TABLES)) {
    const table = dataset.table(name);
    const [has] = await table.exists();
    if (!has) await table.create({ schema: { fields } });
  }
}

const text = (v: unknown) => (v === null || v === undefined ? null : String(v));

export async function openBigQueryTarget(settings: BigQuerySettings, ctx: TargetContext): Promise<SinkTarget> {
  const bigquery = await client(settings, ctx);
  const dataset = bigquery.dataset(settings.dataset);
  await ensureTables(dataset);
  const insert = async (table: string, rows: { insertId: string; json: Record<string, unknown> }[]) => {
    if (!rows.length) return;
    await dataset
      .table(table)
      .insert(rows, { raw: true, skipInvalidRows: false, ignoreUnknownValues: false, partialRetries: 0 });
  };
  return {
    async write(batch: SinkBatch) {
      const syncedAt = new Date().toISOString();
      await insert(
        'events',
        batch.events.map((e) => ({
          insertId: e.id,
          json: {
            id: e.id,
            seq: e.seq,
            type: e.type,
            object: e.objectType,
            object_id: e.objectId,
            actor_id: e.actorId,
            occurred_at: e.occurredAt,
            data: JSON.stringify(e.data),
          },
        })),
      );
      await insert(
        'customers',
        batch.customers.map((c) => ({
          insertId: `${c.id}:${c.version}`,
          json: { ...c, version: c.version, synced_at: syncedAt },
        })),
      );
      await insert(
        'loans',
        batch.loans.map((l) => ({
          insertId: `${l.id}:${l.version}`,
          json: {
            id: l.id,
            account_no: l.account_no,
            customer_id: l.customer_id,
            product_id: l.product_id,
            status: l.status,
            currency: l.currency,
            principal: text(l.principal),
            number_of_repayments: l.number_of_repayments,
            annual_interest_rate: l.annual_interest_rate,
            submitted_on: l.submitted_on,
            approved_on: l.approved_on,
            disbursed_on: l.disbursed_on,
            closed_on: l.closed_on,
            written_off_on: l.written_off_on,
            maturity_date: l.maturity_date,
            outstanding: text(l.outstanding),
            principal_outstanding: text(l.principal_outstanding),
            credit_balance: text(l.credit_balance),
            version: l.version,
            updated_at: l.updated_at,
            synced_at: syncedAt,
          },
        })),
      );
      await insert(
        'loan_transactions',
        batch.loans.flatMap((l) =>
          l.transactions.map((t) => ({
            insertId: t.id,
            json: {
              id: t.id,
              loan_id: t.loan_id,
              type: t.type,
              transaction_date: t.transaction_date,
              currency: t.currency,
              amount: text(t.amount),
              principal_portion: text(t.principal_portion),
              interest_portion: text(t.interest_portion),
              fee_portion: text(t.fee_portion),
              penalty_portion: text(t.penalty_portion),
              reverses_id: t.reverses_id,
              created_at: t.created_at,
            },
          })),
        ),
      );
    },
    async close() {},
  };
}

/** "Test connection": the token exchange, then the dataset (found, or to be created). */
export async function testBigQueryTarget(
  settings: BigQuerySettings,
  ctx: Pick<TargetContext, 'allowPrivate'>,
): Promise<string> {
  const bigquery = await client(settings, ctx);
  const [exists] = await bigquery.dataset(settings.dataset).exists();
  return `BigQuery ${settings.projectId}.${settings.dataset}${exists ? '' : ' (dataset will be created)'}`;
}
