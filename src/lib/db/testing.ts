import crypto from 'node:crypto';
import { openPglite, openPostgres } from './index.ts';
import { migrate } from './migrate.ts';
import type { Db } from './types.ts';

export type TestDbKind = 'pglite' | 'postgres';

/** Database kinds the integration tests run on: PGlite always, Postgres when TEST_DATABASE_URL is set. */
export function testDbKinds(): TestDbKind[] {
  return process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

/**
 * A fresh, migrated database for one test file: in-memory PGlite, or a new database created on the
 * TEST_DATABASE_URL server and dropped again by `drop()`.
 */
export async function createTestDb(
  kind: TestDbKind,
  options: { checkLedgerOnDrop?: boolean } = {},
): Promise<{ db: Db; drop: () => Promise<void> }> {
  const verify = options.checkLedgerOnDrop === false ? async () => {} : assertLedgerBalanced;
  if (kind === 'pglite') {
    const db = await openPglite(undefined);
    await migrate(db);
    return {
      db,
      async drop() {
        try {
          await verify(db);
        } finally {
          await db.close();
        }
      },
    };
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const name = `lending_test_${crypto.randomBytes(6).toString('hex')}`;
  // CREATE/DROP DATABASE cannot run inside a transaction, so this uses a bare client.
  const { default: pg } = await import('pg');
  const adminQuery = async (text: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await adminQuery(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const db = await openPostgres(url.toString(), { max: 20 });
  await migrate(db);
  return {
    db,
    async drop() {
      try {
        await verify(db);
      } finally {
        await db.close();
      }
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

/**
 * Every test database is ledger-checked before it is dropped: whatever a test did through the money
 * commands, debits must equal credits and loan balances must equal their ledger accounts. A test that
 * corrupts the ledger on purpose opts out with `checkLedgerOnDrop: false`.
 */
async function assertLedgerBalanced(db: Db): Promise<void> {
  const { checkLedger, formatLedgerReport } = await import('../lending/ledger/check-ledger.ts');
  const report = await checkLedger(db);
  if (report.differences.length > 0) {
    throw new Error(`ledger check failed when dropping the test database:\n${formatLedgerReport(report)}`);
  }
}
