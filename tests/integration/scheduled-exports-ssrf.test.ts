import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { env } from '#lib/config/env.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { loadUserGrants, principalFromGrants } from '#lib/auth/sessions.ts';
import { commandEndpoint } from '#lib/lending/api.ts';
import { createExportCommand, updateExportCommand } from '#lib/scheduled-exports/commands.ts';
import { deliverHttp, deliverSftp } from '#lib/scheduled-exports/targets.ts';

process.env.SESSION_SECRET ??= 'a-test-session-secret-that-is-long-enough-0123456789';

const T = 'ssrf-t1';
const ADMIN = '51000000-0000-4000-8000-000000000001';

/** Every spelling of a loopback, private, link-local or metadata address a user could type. */
const PRIVATE_HOSTS = [
  '127.0.0.1',
  '127.1',
  '2130706433',
  '0x7f.0.0.1',
  '[::1]',
  '[::ffff:127.0.0.1]',
  '169.254.169.254',
  '10.0.0.1',
  '192.168.0.1',
  '172.16.5.4',
  '[fe80::1]',
  '[fd00::1]',
  'localhost',
  'api.localhost',
];

/**
 * SSRF (security goal 17) for scheduled-export targets, without ALLOW_PRIVATE_TARGETS: the HTTP
 * target's URL and the SFTP target's host are refused in every private spelling with a 400 naming
 * the field, through the same JSON adapter as POST/PATCH /v1/scheduled-exports; at delivery time a
 * private address is refused again (a target saved before, or a name that now resolves privately).
 */
describe.each(testDbKinds())('scheduled export targets refuse private addresses on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let principal: Principal;

  beforeAll(async () => {
    expect(env().allowPrivateTargets).toBe(false);
    ({ db, drop } = await createTestDb(kind));
    await db.owner((tx) =>
      tx.query(
        `insert into tenants (id, slug, name, currency, time_zone, business_date) values ($1, 'ssrf', 'SSRF', 'EUR', 'Europe/Paris', '2026-03-15')`,
        [T],
      ),
    );
    await db.tenant(T, async (tx) => {
      await tx.query(
        `insert into users (tenant_id, id, email, display_name) values ($1, $2, 'admin@ssrf.test', 'Admin')`,
        [T, ADMIN],
      );
      await tx.query(
        `insert into roles (tenant_id, id, name, is_admin) values ($1, '52000000-0000-4000-8000-000000000001', 'Admin', true)`,
        [T],
      );
      await tx.query(
        `insert into user_roles (tenant_id, user_id, role_id) values ($1, $2, '52000000-0000-4000-8000-000000000001')`,
        [T, ADMIN],
      );
      principal = principalFromGrants(T, (await loadUserGrants(tx, T, ADMIN))!, 'session', null);
    });
  });
  afterAll(async () => drop?.());

  async function post(body: unknown, method = 'POST', id?: string) {
    const request = new Request(`http://app.test/v1/scheduled-exports${id ? `/${id}` : ''}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const ctx = { request, principal, requestId: 'test', ip: null, db };
    const response = id
      ? await commandEndpoint(ctx, updateExportCommand, {
          objectId: id,
          input: (b) => ({ id, revision: null, body: b }),
          answer: (e) => ({ status: 200, body: e }),
        })
      : await commandEndpoint(ctx, createExportCommand, { answer: (e) => ({ status: 201, body: { id: e.id } }) });
    return { status: response.status, body: (await response.json()) as { id?: string; error?: { field?: string } } };
  }

  const base = (targets: unknown) => ({
    name: `ssrf ${Math.random().toString(36).slice(2, 8)}`,
    source: { kind: 'list', list: 'loans' },
    format: 'csv',
    cron: '0 6 * * *',
    targets,
  });

  it.each(PRIVATE_HOSTS)('refuses the HTTP target http://%s/ with 400 on targets.http.url', async (host) => {
    for (const url of [`http://${host}/upload`, `https://${host}:8443/x`]) {
      const { status, body } = await post(base({ http: { url, method: 'PUT' } }));
      expect(status, url).toBe(400);
      expect(body.error?.field, url).toBe('targets.http.url');
    }
  });

  it.each(PRIVATE_HOSTS)('refuses the SFTP host %s with 400 on targets.sftp.host', async (host) => {
    for (const typed of [host, host.replace(/^\[|\]$/g, '')]) {
      const { status, body } = await post(base({ sftp: { host: typed, username: 'u', password: 'p' } }));
      expect(status, typed).toBe(400);
      expect(body.error?.field, typed).toBe('targets.sftp.host');
    }
  });

  it('refuses a private target on an update too, and accepts a public one', async () => {
    const created = await post(base({ http: { url: 'https://exports.example.com/in', method: 'PUT' } }));
    expect(created.status).toBe(201);
    const id = created.body.id!;
    const patched = await post({ targets: { http: { url: 'http://169.254.169.254/latest/meta-data' } } }, 'PATCH', id);
    expect(patched.status).toBe(400);
    expect(patched.body.error?.field).toBe('targets.http.url');
    const sftp = await post(
      { targets: { sftp: { host: '[::ffff:127.0.0.1]', username: 'u', password: 'p' } } },
      'PATCH',
      id,
    );
    expect(sftp.status).toBe(400);
    expect(sftp.body.error?.field).toBe('targets.sftp.host');
  });

  it('sends a stored SFTP password or HTTP header value only to the server it was typed for', async () => {
    const sftp = (host: string, extra: Record<string, unknown> = {}) => ({
      host,
      username: 'u',
      directory: 'out',
      ...extra,
    });
    const http = (url: string, extra: Record<string, unknown> = {}) => ({
      url,
      method: 'PUT',
      headerName: 'X-Token',
      ...extra,
    });
    const created = await post(
      base({
        sftp: sftp('93.184.216.34', { password: 'stored-pw' }),
        http: http('https://93.184.216.34/in', { headerValue: 'stored-token' }),
      }),
    );
    expect(created.status).toBe(201);
    const id = created.body.id!;
    // The same servers, secrets left empty: kept.
    const same = await post(
      { targets: { sftp: sftp('93.184.216.34'), http: http('https://93.184.216.34/other') } },
      'PATCH',
      id,
    );
    expect(same.status).toBe(200);
    // Another SFTP host, port or user name without the password: refused.
    for (const moved of [
      sftp('93.184.216.99'),
      sftp('93.184.216.34', { port: 2222 }),
      sftp('93.184.216.34', { username: 'x' }),
    ]) {
      const r = await post({ targets: { sftp: moved, http: http('https://93.184.216.34/in') } }, 'PATCH', id);
      expect(r.status).toBe(400);
      expect(r.body.error?.field).toBe('targets.sftp.password');
    }
    // Another HTTP origin with the header kept: refused.
    for (const url of ['https://93.184.216.99/in', 'http://93.184.216.34/in', 'https://93.184.216.34:8443/in']) {
      const r = await post({ targets: { sftp: sftp('93.184.216.34'), http: http(url) } }, 'PATCH', id);
      expect(r.status, url).toBe(400);
      expect(r.body.error?.field, url).toBe('targets.http.headerValue');
    }
    // Typed again: accepted.
    const retyped = await post(
      {
        targets: {
          sftp: sftp('93.184.216.99', { password: 'new' }),
          http: http('https://93.184.216.99/in', { headerValue: 'new' }),
        },
      },
      'PATCH',
      id,
    );
    expect(retyped.status).toBe(200);
  });

  it('refuses private addresses again when delivering, and does not follow a redirect', async () => {
    const file = { name: 'x.csv', content: Buffer.from('a,b\r\n'), contentType: 'text/csv' };
    for (const host of ['127.0.0.1', '[::1]', '169.254.169.254', '10.0.0.1']) {
      const outcome = await deliverHttp(
        { url: `http://${host}/x`, method: 'PUT', headerName: null, headerValue: null },
        file,
      );
      expect(outcome.status, host).toBe('failed');
      expect(outcome.isTransient, host).toBe(false);
      expect(outcome.error, host).toContain('not a public address');
      const sftp = await deliverSftp(
        {
          host: host.replace(/^\[|\]$/g, ''),
          port: 22,
          username: 'u',
          password: 'p',
          privateKey: null,
          directory: '.',
          hostKeySha256: null,
        },
        'x.csv',
        file.content,
      );
      expect(sftp.status, host).toBe('failed');
      expect(sftp.error, host).toContain('not a public address');
    }
    // A receiver on loopback (opted in for the test) answering a redirect to another one: not followed.
    let followed = 0;
    const elsewhere = http.createServer((_req, res) => {
      followed++;
      res.end();
    });
    await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
    const redirecting = http.createServer((_req, res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/` });
      res.end();
    });
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/in`;
      const outcome = await deliverHttp({ url, method: 'POST', headerName: null, headerValue: null }, file, {
        allowPrivate: true,
      });
      expect(outcome.status).toBe('failed');
      expect(outcome.error).toContain('redirect (307)');
      expect(followed).toBe(0);
    } finally {
      redirecting.close();
      elsewhere.close();
    }
  });
});
