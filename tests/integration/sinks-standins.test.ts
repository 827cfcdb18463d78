import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Db, Tx } from '#lib/db/index.ts';
import { createTestDb } from '#lib/db/testing.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { createEventSinkCommand } from '#lib/sinks/commands.ts';
import { runSink, runTenantSinks } from '#lib/sinks/run.ts';
import { awaitOutbox } from '../support/outbox.ts';
import { schedulerTick } from '#lib/jobs/scheduler.ts';
import { enqueueJob } from '#lib/jobs/queue.ts';
import { DATA_SOURCES, FLOW_LINKS, USAGE_MEASURES } from '#lib/data-flow/registry.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';

// The stand-ins listen on 127.0.0.1: the operator's opt-in for private targets (and for apiEndpoint).
process.env.ALLOW_PRIVATE_TARGETS = '1';
process.env.SESSION_SECRET ??= 'sinks-test-session-secret-0123456789abcdef';

/**
 * LOCAL STAND-INS, not Google's or Apache's servers: two HTTP servers started here that check the
 * requests against the documented formats —
 *  - BigQuery: the OAuth 2.0 JWT-bearer token exchange at the key's `token_uri` (RFC 7523, the assertion
 *    verified with the key's public half), then `datasets`/`tables` get and insert, and
 *    `tabledata.insertAll` bodies (`rows[].insertId`, `rows[].json`, `skipInvalidRows`,
 *    `ignoreUnknownValues`, optional `kind` = bigquery#tableDataInsertAllRequest) with the bearer token;
 *  - Fineract: `/fineract-provider/api/v1` with the `Fineract-Platform-TenantId` header and basic auth;
 *    client and loan creation payloads with their required fields, `dateFormat`/`locale` and dates in
 *    that format; loan approve/disburse commands and repayment transactions.
 * A request that breaks the format is answered 400 and recorded in `problems`.
 */

type Req = { method: string; path: string; query: URLSearchParams; headers: http.IncomingHttpHeaders; body: string };

async function serve(handler: (req: Req) => { status: number; body?: unknown }) {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const answer = handler({
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, origin: `http://127.0.0.1:${port}` };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

describe('event sinks against local stand-ins (BigQuery, Fineract)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);
  const servers: http.Server[] = [];

  beforeAll(async () => {
    ({ db, drop } = await createTestDb('pglite'));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 });
    await setBusinessDate(db, f.tenantId, '2026-02-15');
    await t((tx) => repayLoan(tx, f.checker, { loanId, amount: '100.00' }));
  }, 120_000);
  afterAll(async () => {
    for (const s of servers) s.close();
    await drop?.();
  });

  const create = (input: Record<string, unknown>) =>
    t((tx) => createEventSinkCommand.run(tx, f.maker, createEventSinkCommand.input.parse(input), { language: 'en' }));

  test('BigQuery: token exchange at token_uri, tables created with a schema, insertAll rows keyed by event id', async () => {
    const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const problems: string[] = [];
    const datasets = new Set<string>();
    const tables = new Map<string, { fields: { name: string; type: string }[] }>();
    const rows = new Map<string, Map<string, Record<string, unknown>>>();
    let insertCalls = 0;
    let tokenUri = '';
    const bq = await serve((req) => {
      const refuse = (why: string) => {
        problems.push(`${req.method} ${req.path}: ${why}`);
        return { status: 400, body: { error: { message: why } } };
      };
      if (req.path === '/token') {
        if (req.method !== 'POST') return refuse('token exchange must be a POST');
        if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
          return refuse('token exchange must be form-encoded');
        const form = new URLSearchParams(req.body);
        if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return refuse('grant_type');
        const [h, c, s] = (form.get('assertion') ?? '').split('.');
        const header = JSON.parse(Buffer.from(h, 'base64url').toString());
        const claims = JSON.parse(Buffer.from(c, 'base64url').toString());
        if (header.alg !== 'RS256') return refuse('alg must be RS256');
        if (!crypto.verify('RSA-SHA256', Buffer.from(`${h}.${c}`), publicKey, Buffer.from(s, 'base64url')))
          return refuse('assertion signature');
        if (claims.aud !== tokenUri) return refuse('aud must be the token_uri');
        if (claims.iss !== 'sink@demo-project.iam.gserviceaccount.com') return refuse('iss must be client_email');
        if (!String(claims.scope).includes('https://www.googleapis.com/auth/bigquery')) return refuse('scope');
        if (!(claims.exp > claims.iat)) return refuse('exp');
        return { status: 200, body: { access_token: 'stand-in-token', expires_in: 3600, token_type: 'Bearer' } };
      }
      if (req.headers.authorization !== 'Bearer stand-in-token') return refuse('missing bearer token');
      const m =
        /^\/bigquery\/v2\/projects\/([^/]+)\/datasets(?:\/([^/]+)(?:\/tables(?:\/([^/]+)(\/insertAll)?)?)?)?$/.exec(
          req.path,
        );
      if (!m || m[1] !== 'demo-project') return refuse('unexpected path');
      const [, , dataset, table, insertAll] = m;
      const body = req.body ? JSON.parse(req.body) : {};
      if (!dataset && req.method === 'POST') {
        if (body.datasetReference?.datasetId !== 'lending') return refuse('datasetReference.datasetId');
        datasets.add('lending');
        return { status: 200, body: { id: 'demo-project:lending', datasetReference: body.datasetReference } };
      }
      if (dataset && !req.path.includes('/tables') && req.method === 'GET')
        return datasets.has(dataset)
          ? { status: 200, body: { id: dataset } }
          : { status: 404, body: { error: { code: 404 } } };
      if (dataset && !table && req.method === 'POST') {
        const id = body.tableReference?.tableId;
        if (!id || !Array.isArray(body.schema?.fields) || !body.schema.fields.length)
          return refuse('table needs a schema');
        tables.set(id, { fields: body.schema.fields });
        return { status: 200, body: { tableReference: body.tableReference } };
      }
      if (table && !insertAll && req.method === 'GET')
        return tables.has(table)
          ? { status: 200, body: { id: table } }
          : { status: 404, body: { error: { code: 404 } } };
      if (table && insertAll && req.method === 'POST') {
        insertCalls += 1;
        const allowed = new Set([
          'kind',
          'rows',
          'skipInvalidRows',
          'ignoreUnknownValues',
          'templateSuffix',
          'traceId',
        ]);
        for (const key of Object.keys(body)) if (!allowed.has(key)) return refuse(`unknown field ${key}`);
        if (body.kind !== undefined && body.kind !== 'bigquery#tableDataInsertAllRequest') return refuse('kind');
        if (typeof body.skipInvalidRows !== 'boolean') return refuse('skipInvalidRows as the client sends it');
        if (!Array.isArray(body.rows) || !body.rows.length) return refuse('rows');
        const schema = tables.get(table);
        if (!schema) return refuse('insert into a table that does not exist');
        const names = new Set(schema.fields.map((x) => x.name));
        const stored = rows.get(table) ?? new Map();
        for (const row of body.rows) {
          if (typeof row.insertId !== 'string' || !row.insertId) return refuse('rows[].insertId');
          if (!row.json || typeof row.json !== 'object') return refuse('rows[].json');
          for (const key of Object.keys(row.json))
            if (!names.has(key)) return refuse(`column ${key} not in the schema`);
          stored.set(row.insertId, row.json); // BigQuery's best-effort de-duplication by insertId
        }
        rows.set(table, stored);
        return { status: 200, body: { kind: 'bigquery#tableDataInsertAllResponse' } };
      }
      return refuse('unexpected request');
    });
    servers.push(bq.server);
    tokenUri = `${bq.origin}/token`;
    const key = {
      type: 'service_account',
      project_id: 'demo-project',
      client_email: 'sink@demo-project.iam.gserviceaccount.com',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      token_uri: tokenUri,
    };
    const sink = await create({
      type: 'bigquery',
      name: 'Warehouse BQ',
      projectId: 'demo-project',
      dataset: 'lending',
      credentials: JSON.stringify(key),
      apiEndpoint: bq.origin,
    });
    expect(sink.settings_hint).not.toContain('PRIVATE KEY');
    await awaitOutbox(db); // a long transaction elsewhere on the server holds events back
    const result = await runSink(db, f.tenantId, sink.id, { budgetMs: 60_000 });
    expect(result.error).toBeNull();
    expect(problems).toEqual([]);
    expect([...tables.keys()].sort()).toEqual(['customers', 'events', 'loan_transactions', 'loans']);
    const events = await t((tx) => tx.query<{ id: string }>(`select id::text as id from domain_events order by id`));
    expect([...rows.get('events')!.keys()].sort()).toEqual(events.map((e) => e.id));
    expect(rows.get('loans')!.size).toBeGreaterThanOrEqual(1);
    expect(rows.get('customers')!.size).toBeGreaterThanOrEqual(1);
    // Nothing new: a second run sends no event again.
    const calls = insertCalls;
    const again = await runSink(db, f.tenantId, sink.id, { budgetMs: 60_000 });
    expect(again.delivered).toBe(0);
    expect(rows.get('events')!.size).toBe(events.length);
    expect(insertCalls - calls).toBeLessThanOrEqual(3); // only the sweep's recent rows (same insertIds)
  }, 120_000);

  test('Fineract: clients and loans through the REST API, idempotent by our id (also after a lost mapping)', async () => {
    const problems: string[] = [];
    const clients = new Map<number, Record<string, unknown>>();
    const loans = new Map<number, Record<string, unknown> & { state: string; repayments: unknown[] }>();
    let nextId = 100;
    const auth = `Basic ${Buffer.from('mifos:secret-pass').toString('base64')}`;
    const fin = await serve((req) => {
      const refuse = (why: string) => {
        problems.push(`${req.method} ${req.path}: ${why}`);
        return { status: 400, body: { defaultUserMessage: why } };
      };
      if (req.headers['fineract-platform-tenantid'] !== 'default') return refuse('Fineract-Platform-TenantId header');
      if (req.headers.authorization !== auth) return { status: 401, body: { defaultUserMessage: 'Unauthenticated' } };
      const prefix = '/fineract-provider/api/v1';
      if (!req.path.startsWith(prefix)) return refuse('path outside /fineract-provider/api/v1');
      const path = req.path.slice(prefix.length);
      const body = req.body ? JSON.parse(req.body) : {};
      const dated = (fields: string[]) => {
        if (body.dateFormat !== 'yyyy-MM-dd' || body.locale !== 'en') return 'dateFormat and locale';
        for (const field of fields) if (!DATE.test(String(body[field]))) return `${field} in dateFormat`;
        return null;
      };
      if (req.method === 'GET' && (path === '/clients' || path === '/loans')) {
        const store = path === '/clients' ? clients : loans;
        const external = req.query.get('externalId');
        const items = [...store.entries()]
          .filter(([, v]) => external === null || v.externalId === external)
          .map(([id, v]) => ({
            id,
            ...v,
            // as Fineract reads a loan's status back
            ...('state' in v
              ? {
                  status: {
                    pendingApproval: v.state === 'submitted',
                    waitingForDisbursal: v.state === 'approved',
                    active: v.state === 'disbursed',
                  },
                }
              : {}),
          }));
        return { status: 200, body: { totalFilteredRecords: items.length, pageItems: items } };
      }
      if (req.method === 'POST' && path === '/clients') {
        for (const field of ['officeId', 'legalFormId']) if (typeof body[field] !== 'number') return refuse(field);
        for (const field of ['firstname', 'lastname', 'externalId']) if (!body[field]) return refuse(field);
        if (body.active !== true) return refuse('active');
        const why = dated(['activationDate', 'submittedOnDate']);
        if (why) return refuse(why);
        const id = nextId++;
        clients.set(id, body);
        return { status: 200, body: { officeId: body.officeId, clientId: id, resourceId: id } };
      }
      const client = /^\/clients\/(\d+)$/.exec(path);
      if (req.method === 'PUT' && client) {
        if (!clients.has(Number(client[1]))) return { status: 404, body: {} };
        clients.set(Number(client[1]), { ...clients.get(Number(client[1])), ...body });
        return { status: 200, body: { resourceId: Number(client[1]) } };
      }
      if (req.method === 'POST' && path === '/loans') {
        const numbers = [
          'clientId',
          'productId',
          'loanTermFrequency',
          'loanTermFrequencyType',
          'numberOfRepayments',
          'repaymentEvery',
          'repaymentFrequencyType',
          'interestRatePerPeriod',
          'amortizationType',
          'interestType',
          'interestCalculationPeriodType',
        ];
        for (const field of numbers) if (typeof body[field] !== 'number') return refuse(field);
        if (!clients.has(body.clientId)) return refuse('clientId is not a client');
        if (!/^\d+(\.\d+)?$/.test(String(body.principal))) return refuse('principal');
        if (body.loanType !== 'individual' || !body.transactionProcessingStrategyCode || !body.externalId)
          return refuse('loanType, transactionProcessingStrategyCode, externalId');
        const why = dated(['expectedDisbursementDate', 'submittedOnDate']);
        if (why) return refuse(why);
        const id = nextId++;
        loans.set(id, { ...body, state: 'submitted', repayments: [] });
        return { status: 200, body: { clientId: body.clientId, loanId: id, resourceId: id } };
      }
      const loan = /^\/loans\/(\d+)(\/transactions)?$/.exec(path);
      if (req.method === 'POST' && loan) {
        const record = loans.get(Number(loan[1]));
        if (!record) return { status: 404, body: {} };
        const command = req.query.get('command');
        if (!loan[2] && command === 'approve') {
          const why = dated(['approvedOnDate']);
          if (why || record.state !== 'submitted') return refuse(why ?? 'approve a submitted loan');
          record.state = 'approved';
        } else if (!loan[2] && command === 'disburse') {
          const why = dated(['actualDisbursementDate']);
          if (why || record.state !== 'approved') return refuse(why ?? 'disburse an approved loan');
          record.state = 'disbursed';
        } else if (loan[2] && command === 'repayment') {
          const why = dated(['transactionDate']);
          if (why || record.state !== 'disbursed') return refuse(why ?? 'repay a disbursed loan');
          record.repayments.push(body);
        } else return refuse('unknown command');
        return { status: 200, body: { loanId: Number(loan[1]), resourceId: nextId++ } };
      }
      return refuse('unexpected request');
    });
    servers.push(fin.server);
    const sink = await create({
      type: 'fineract',
      name: 'Core banking',
      baseUrl: `${fin.origin}/fineract-provider/api/v1`,
      username: 'mifos',
      password: 'secret-pass',
      loanProductId: '7',
    });
    expect(sink.settings_hint).not.toContain('secret-pass');
    await awaitOutbox(db); // a long transaction elsewhere on the server holds events back
    const first = await runSink(db, f.tenantId, sink.id, { budgetMs: 60_000 });
    expect(first.error).toBeNull();
    expect(problems).toEqual([]);
    const customers = await t((tx) => tx.query<{ id: string }>(`select id::text as id from customers`));
    const ourLoans = await t((tx) =>
      tx.query<{ id: string; status: string }>(`select id::text as id, status from loans where status = 'ACTIVE'`),
    );
    expect(clients.size).toBe(customers.length);
    const byExternal = new Map([...loans.values()].map((l) => [l.externalId, l]));
    for (const l of ourLoans) {
      expect(byExternal.get(l.id)?.state).toBe('disbursed');
      expect(byExternal.get(l.id)?.repayments).toHaveLength(1);
      expect(byExternal.get(l.id)?.productId).toBe(7);
    }
    // A crash after Fineract created the objects but before we kept their ids: the mapping is lost,
    // the run repeats from the snapshot, and nothing is created twice (found again by externalId).
    await db.owner((tx) => tx.query(`delete from event_sink_remote_ids where object_type in ('client', 'loan')`));
    await t((tx) =>
      tx.query(`update event_sinks set snapshot_stage = 'customers', snapshot_after = null where id = $1`, [sink.id]),
    );
    const second = await runSink(db, f.tenantId, sink.id, { budgetMs: 60_000 });
    expect(second.error).toBeNull();
    expect(problems).toEqual([]);
    expect(clients.size).toBe(customers.length);
    expect(loans.size).toBe(byExternal.size);
    for (const l of ourLoans) expect(byExternal.get(l.id)?.repayments).toHaveLength(1);
  }, 120_000);

  test('a lease held by another server stops a second run; the scheduler queues one run per tenant and minute', async () => {
    const [sink] = await t((tx) =>
      tx.query<{ id: string }>(`select id::text as id from event_sinks order by created_at limit 1`),
    );
    await t((tx) =>
      tx.query(
        `update event_sinks set lease_owner = 'other-server', lease_until = now() + interval '1 minute' where id = $1`,
        [sink.id],
      ),
    );
    expect((await runSink(db, f.tenantId, sink.id)).ran).toBe(false);
    await t((tx) =>
      tx.query(`update event_sinks set lease_until = now() - interval '1 second' where id = $1`, [sink.id]),
    );
    expect((await runSink(db, f.tenantId, sink.id, { owner: 'this-server' })).ran).toBe(true);

    // The heartbeat: a tenant whose last run reported an active sink gets one job per minute, however many ticks.
    const tenantRun = await runTenantSinks(db, f.tenantId);
    expect(tenantRun.active).toBe(2);
    await db.system(async (tx) => {
      const { job } = await enqueueJob(tx, { name: 'sinks.deliver', tenantId: f.tenantId });
      await tx.query(`update jobs set status = 'succeeded', finished_at = now(), result = $2::jsonb where id = $1`, [
        String(job.id),
        JSON.stringify(tenantRun),
      ]);
    });
    const now = new Date('2030-01-01T10:20:30Z');
    await schedulerTick(db, now);
    await schedulerTick(db, new Date('2030-01-01T10:20:50Z'));
    const queued = await db.system((tx) =>
      tx.query<{ n: number }>(`select count(*)::int as n from jobs where dedupe_key = $1`, [
        `sinks.deliver:${f.tenantId}:2030-01-01T10:20`,
      ]),
    );
    expect(queued[0].n).toBe(1);
  });

  test('data-flow registry: product → sinks links per type, the "sinks" source and "events exported" per month', async () => {
    const links = FLOW_LINKS.filter((l) => l.to === 'sinks');
    expect(links.map((l) => l.id).sort()).toEqual(['sinks.bigquery', 'sinks.fineract', 'sinks.postgres']);
    const states = await t(async (tx) =>
      Object.fromEntries(await Promise.all(links.map(async (l) => [l.id, await l.read(tx, new Date(0))]))),
    );
    expect(states['sinks.postgres'].status).toBe('idle');
    expect(states['sinks.bigquery'].volume).toBeGreaterThan(0);
    expect(states['sinks.bigquery'].status).toBe('ok');
    expect(states['sinks.fineract'].lastAt).not.toBeNull();
    const source = DATA_SOURCES.find((d) => d.id === 'sinks')!;
    const coverage = await t((tx) => source.read(tx));
    expect(coverage.from).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(coverage.items).toBeGreaterThan(0);
    const usage = USAGE_MEASURES.find((u) => u.id === 'sinks.events_exported')!;
    const month = new Date().toISOString().slice(0, 7);
    const perMonth = await t((tx) => usage.read(tx, [month]));
    expect(perMonth[month]).toBe(Number(coverage.items));
  });
});
