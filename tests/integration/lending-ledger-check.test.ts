import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openDatabase, type Db } from '#lib/db/index.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import { createLendingFixture } from '../support/lending-fixtures.ts';

const root = path.resolve(import.meta.dirname, '../..');
const runCheck = (dataDir: string) =>
  spawnSync(process.execPath, [path.join(root, 'scripts/ledger-check.ts')], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
    timeout: 60_000,
  });

// `npm run ledger:check` against an embedded database, as an operator runs it next to the server.
describe('ledger:check script', () => {
  let dir: string;
  let loanId: string;
  let tenantId: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-check-'));
    const db = await openDatabase({ dataDir: dir });
    const f = await createLendingFixture(db);
    tenantId = f.tenantId;
    ({ loanId } = await f.disbursedLoan());
    await db.tenant(f.tenantId, (tx) => repayLoan(tx, f.checker, { loanId, amount: '50.00' }));
    await db.close();
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('passes on a consistent ledger', () => {
    const result = runCheck(dir);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/1 tenant\(s\), 1 loan\(s\), 2 journal entries: OK/);
    expect(result.status).toBe(0);
  });

  test('refuses clearly while another process holds the database; exits 1 naming the loan when a balance drifts', async () => {
    const db: Db = await openDatabase({ dataDir: dir });
    try {
      const locked = runCheck(dir);
      expect(locked.status).toBe(2);
      expect(locked.stderr).toMatch(/already in use by process \d+/);
      expect(locked.stderr).toMatch(/Stop the server first/);
      await db.owner((tx) =>
        tx.query(`update loan_installments set principal_paid = principal_paid + 1 where loan_id = $1 and number = 2`, [
          loanId,
        ]),
      );
    } finally {
      await db.close();
    }
    const result = runCheck(dir);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(`tenant ${tenantId} loan ${loanId} LOAN_PORTFOLIO: loan says`);
  });
});
