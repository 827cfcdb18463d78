import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Db } from '#lib/db/index.ts';
import { createTestDb } from '#lib/db/testing.ts';
import { AppError } from '#lib/errors/app-error.ts';
import { errorResponse } from '#lib/http/respond.ts';
import { runCommand } from '#lib/http/command.ts';
import { PrivateTargetError } from '#lib/net/outbound.ts';
import { createEventSinkCommand } from '#lib/sinks/commands.ts';
import { openPostgresTarget } from '#lib/sinks/postgres-target.ts';
import { fineractClient } from '#lib/sinks/fineract-target.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

// No ALLOW_PRIVATE_TARGETS here: the operator has not opted in.
delete process.env.ALLOW_PRIVATE_TARGETS;
process.env.SESSION_SECRET ??= 'sinks-test-session-secret-0123456789abcdef';

const PRIVATE_HOSTS = [
  '127.0.0.1',
  '[::1]',
  '169.254.169.254',
  '10.1.2.3',
  '172.16.5.4',
  '192.168.1.10',
  'localhost',
  'db.localhost',
  '[::ffff:127.0.0.1]',
  '[::ffff:a9fe:a9fe]',
  '[fe80::1]',
  '[fd00::1]',
  '0.0.0.0',
  '2130706433', // 127.0.0.1 as one decimal number
  '0x7f000001', // … in hex
  '127.1', // … short
];

/** Refusal of the create command as /v1 answers it: status and the field named. */
async function refusal(db: Db, f: LendingFixture, input: Record<string, unknown>) {
  try {
    await runCommand(
      { db, actor: f.maker, permissionSubject: { isAdmin: true, permissions: [] } as never, language: 'en' },
      createEventSinkCommand,
      () => input,
    );
  } catch (error) {
    const response = errorResponse(error, 'req-ssrf', 'en');
    const body = (await response.json()) as { error?: { field?: string } };
    return {
      status: response.status,
      field: body.error?.field ?? (error instanceof AppError ? error.field : undefined),
    };
  }
  return { status: 201, field: undefined };
}

/**
 * Security goal 17 for event sinks, without the operator's opt-in: every private, loopback, link-local,
 * metadata, IPv6 and IPv4-mapped spelling of a Postgres host or a Fineract address, and a BigQuery
 * endpoint override or a private token_uri, is refused when saved (400 naming the field); at
 * connection time a private address is refused again, and a redirect is never followed.
 */
describe('event sinks refuse private targets (no ALLOW_PRIVATE_TARGETS)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb('pglite'));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
  }, 120_000);
  afterAll(async () => drop?.());

  test.each(PRIVATE_HOSTS)('Postgres connection string with host %s: 400 on connectionString', async (host) => {
    const answer = await refusal(db, f, {
      type: 'postgres',
      name: `pg ${host}`,
      connectionString: `postgres://user:pw@${host}:5432/db`,
    });
    expect(answer).toEqual({ status: 400, field: 'connectionString' });
  });

  test.each(PRIVATE_HOSTS)('Fineract base URL with host %s: 400 on baseUrl', async (host) => {
    const answer = await refusal(db, f, {
      type: 'fineract',
      name: `fin ${host}`,
      baseUrl: `https://${host}:8443`,
      username: 'mifos',
      password: 'password',
      loanProductId: 1,
    });
    expect(answer).toEqual({ status: 400, field: 'baseUrl' });
  });

  const key = (tokenUri?: string) =>
    JSON.stringify({
      type: 'service_account',
      client_email: 'sink@p.iam.gserviceaccount.com',
      private_key: crypto
        .generateKeyPairSync('rsa', { modulusLength: 1024 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
      ...(tokenUri ? { token_uri: tokenUri } : {}),
    });

  test('BigQuery: an apiEndpoint override without the opt-in is a 400 on apiEndpoint (even a public one)', async () => {
    for (const endpoint of ['http://127.0.0.1:9050', 'https://bigquery.example.com']) {
      const answer = await refusal(db, f, {
        type: 'bigquery',
        name: `bq ${endpoint}`,
        projectId: 'demo-project',
        dataset: 'lending',
        credentials: key(),
        apiEndpoint: endpoint,
      });
      expect(answer).toEqual({ status: 400, field: 'apiEndpoint' });
    }
  });

  test.each(['http://169.254.169.254/token', 'http://[::1]/token', 'http://10.0.0.1/token'])(
    'BigQuery: a key whose token_uri is %s is a 400 on credentials',
    async (tokenUri) => {
      const answer = await refusal(db, f, {
        type: 'bigquery',
        name: `bq ${tokenUri}`,
        projectId: 'demo-project',
        dataset: 'lending',
        credentials: key(tokenUri),
      });
      expect(answer).toEqual({ status: 400, field: 'credentials' });
    },
  );

  test('nothing was saved', async () => {
    const rows = await db.tenant(f.tenantId, (tx) => tx.query(`select id from event_sinks`));
    expect(rows).toEqual([]);
  });

  test('at connection time a private address is refused again (a sink saved before, or a name that now resolves there)', async () => {
    await expect(
      openPostgresTarget(
        { connectionString: 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable', schema: 'public' },
        { tenantId: f.tenantId, sinkId: 'x', remoteIds: { get: async () => null, set: async () => {} } },
      ),
    ).rejects.toBeInstanceOf(PrivateTargetError);
    await expect(
      openPostgresTarget(
        { connectionString: 'postgres://postgres@localhost:5432/postgres?sslmode=disable', schema: 'public' },
        { tenantId: f.tenantId, sinkId: 'x', remoteIds: { get: async () => null, set: async () => {} } },
      ),
    ).rejects.toBeInstanceOf(PrivateTargetError);
  });

  test('a Fineract answer that redirects (to the metadata address) is not followed', async () => {
    let metadataHits = 0;
    const metadata = http.createServer((_req, res) => {
      metadataHits += 1;
      res.end('{}');
    });
    await new Promise<void>((r) => metadata.listen(0, '127.0.0.1', r));
    const target = `http://127.0.0.1:${(metadata.address() as AddressInfo).port}/latest/meta-data`;
    const redirecting = http.createServer((_req, res) => {
      res.writeHead(302, { location: target });
      res.end();
    });
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    try {
      const call = fineractClient(
        {
          baseUrl: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`,
          tenantIdentifier: 'default',
          username: 'u',
          password: 'p',
          officeId: 1,
          loanProductId: 1,
        },
        { allowPrivate: true }, // only so the test can reach its own local server
      );
      await expect(call('GET', '/clients?limit=1')).rejects.toThrow(/answered 302/);
      expect(metadataHits).toBe(0);
    } finally {
      metadata.close();
      redirecting.close();
    }
  });
});
