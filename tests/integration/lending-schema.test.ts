import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '../../src/lib/db/testing.ts';
import type { Db } from '../../src/lib/db/index.ts';

describe.each(testDbKinds())('lending schema on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
  });
  afterAll(async () => {
    await drop();
  });

  test('chart of accounts is seeded', async () => {
    const rows = await db.owner((tx) => tx.query<{ n: number }>('select count(*)::int as n from ledger_accounts'));
    expect(rows[0].n).toBe(10);
  });
});
