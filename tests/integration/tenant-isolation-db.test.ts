import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';

describe.each(testDbKinds())('row-level security on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    await db.owner(async (tx) => {
      await tx.query(`insert into tenants (id, slug, name, currency, business_date) values
        ('alpha-t1', 'alpha', 'Alpha', 'EUR', '2026-01-15'), ('beta-t1', 'beta', 'Beta', 'USD', '2026-01-15')`);
    });
    await db.tenant('alpha-t1', (tx) => tx.query(`insert into roles (tenant_id, name) values ('alpha-t1', 'Officer')`));
    await db.tenant('beta-t1', (tx) => tx.query(`insert into roles (tenant_id, name) values ('beta-t1', 'Collector')`));
  });
  afterAll(() => drop?.());

  it('shows a tenant only its own rows', async () => {
    const rows = await db.tenant('alpha-t1', (tx) => tx.query<{ name: string }>('select name from roles'));
    expect(rows.map((r) => r.name)).toEqual(['Officer']);
  });

  it('shows nothing when the query forgets the tenant', async () => {
    const rows = await db.system((tx) => tx.query('select * from roles'));
    expect(rows).toEqual([]);
  });

  it('refuses to write a row into another tenant', async () => {
    await expect(
      db.tenant('alpha-t1', (tx) => tx.query(`insert into roles (tenant_id, name) values ('beta-t1', 'Intruder')`)),
    ).rejects.toThrow(/row-level security/);
  });

  it('refuses to move a row to another tenant and cannot touch foreign rows', async () => {
    const moved = await db.tenant('alpha-t1', (tx) =>
      tx.query(`update roles set name = 'x' where tenant_id = 'beta-t1' returning id`),
    );
    expect(moved).toEqual([]);
    await expect(
      db.tenant('alpha-t1', (tx) => tx.query(`update roles set tenant_id = 'beta-t1' returning id`)),
    ).rejects.toThrow(/row-level security/);
  });

  it('returns int8 as bigint and dates as strings', async () => {
    const [row] = await db.system((tx) =>
      tx.query<{ n: bigint; d: string }>(`select 9007199254740993::int8 as n, date '2026-02-28' as d`),
    );
    expect(row).toEqual({ n: 9007199254740993n, d: '2026-02-28' });
  });
});
