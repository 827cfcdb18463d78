// `npm run ledger:check`: verifies the double-entry ledger against the loans, per tenant and
// currency. Exit 0 when everything agrees, 1 with a report of every difference, 2 when it cannot run
// (e.g. the embedded database is held by a running server: PGlite is single-process).
import { openDatabase } from '#lib/db/index.ts';
import { readEnv } from '#lib/config/env.ts';
import { checkLedger, formatLedgerReport } from '#lib/lending/ledger/check-ledger.ts';

const env = readEnv();
let db;
try {
  db = await openDatabase({ databaseUrl: env.databaseUrl, dataDir: env.dataDir });
} catch (error) {
  const message = (error as Error).message;
  process.stderr.write(
    /already in use/.test(message)
      ? `ledger:check cannot open the embedded database: ${message}\nStop the server first (PGlite allows one process), or run against Postgres with DATABASE_URL.\n`
      : `ledger:check cannot open the database: ${message}\n`,
  );
  process.exit(2);
}
try {
  const tenants = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const report = await checkLedger(db, tenants.length ? tenants : undefined);
  process.stdout.write(`${formatLedgerReport(report)}\n`);
  process.exitCode = report.differences.length ? 1 : 0;
} finally {
  await db.close();
}
