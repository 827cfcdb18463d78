import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDb, type Db } from '#lib/db/index.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { addIpRestriction, isIpAllowed, listIpRestrictions, removeIpRestriction } from '#lib/tenancy/ip-allowlist.ts';
import { ipRestriction } from '../../src/server/middleware/ip-restriction.ts';
import { A, B, ids, principal, seedAccessFixtures } from './access-fixtures.ts';

describe.each(testDbKinds())('IP allowlist on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await seedAccessFixtures(db);
    await db.tenant(A, async (tx) => {
      await addIpRestriction(tx, { tenantId: A, network: '10.1.2.3/16', description: 'Head office' });
      await addIpRestriction(tx, { tenantId: A, network: '2001:db8::/32' });
      await addIpRestriction(tx, { tenantId: A, network: '198.51.100.7' });
    });
    setDb(db);
  });
  afterAll(() => drop?.());

  it('stores networks normalised, per tenant', async () => {
    expect((await db.tenant(A, (tx) => listIpRestrictions(tx))).map((r) => r.network).sort()).toEqual([
      '10.1.0.0/16',
      '198.51.100.7/32',
      '2001:db8::/32',
    ]);
    expect(await db.tenant(B, (tx) => listIpRestrictions(tx))).toEqual([]);
    await expect(
      db.tenant(A, (tx) => addIpRestriction(tx, { tenantId: A, network: 'intranet' })),
    ).rejects.toMatchObject({ field: 'network' });
  });

  it.each([
    ['10.1.200.9', true],
    ['::ffff:10.1.200.9', true],
    ['::ffff:a01:c809', true],
    ['[::ffff:10.1.200.9]', true],
    ['198.51.100.7', true],
    ['198.51.100.8', false],
    ['10.2.0.1', false],
    ['::ffff:10.2.0.1', false],
    ['2001:db8:1::5', true],
    ['2001:db9::5', false],
    ['::1', false],
    ['unknown', false],
    ['', false],
  ])('tenant A, %s → %s', async (ip, expected) => {
    expect(await db.tenant(A, (tx) => isIpAllowed(tx, ip))).toBe(expected);
  });

  it('a tenant without entries is open', async () => {
    expect(await db.tenant(B, (tx) => isIpAllowed(tx, '192.0.2.1'))).toBe(true);
  });

  it('the middleware step refuses a disallowed address on every route, and forged X-Forwarded-For changes nothing', async () => {
    const run = async (clientAddress: string, path: string, headers: Record<string, string> = {}) => {
      const url = new URL(`http://localhost${path}`);
      const context = {
        request: new Request(url, { headers }),
        url,
        clientAddress,
        locals: { requestId: 'r', canonicalPath: path, principal: principal(A, ids(1).officer, 'loan_officer') },
      };
      return (await ipRestriction(context as never, (async () => new Response('ok')) as never)) as Response;
    };
    expect((await run('10.1.0.5', '/loans/overview')).status).toBe(200);
    expect((await run('203.0.113.9', '/loans/overview')).status).toBe(403);
    const download = await run('203.0.113.9', '/v1/downloads/x/file');
    expect(download.status).toBe(403);
    expect((await download.json()).error.code).toBe('FORBIDDEN');
    // Without TRUST_PROXY the header is the client's own words and is ignored.
    expect((await run('203.0.113.9', '/loans/overview', { 'x-forwarded-for': '10.1.0.5' })).status).toBe(403);
    expect((await run('::ffff:10.1.0.5', '/loans/overview')).status).toBe(200);
  });

  it('removing the entries opens the tenant again at once', async () => {
    const entries = await db.tenant(A, (tx) => listIpRestrictions(tx));
    for (const e of entries) expect(await db.tenant(A, (tx) => removeIpRestriction(tx, e.id))).toBe(true);
    expect(await db.tenant(A, (tx) => isIpAllowed(tx, '203.0.113.9'))).toBe(true);
  });
});
