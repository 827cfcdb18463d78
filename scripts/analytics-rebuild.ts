// `npm run analytics:rebuild -- [--snapshots] [tenant …]`: rewrites the analytics rollups (src/lib/analytics)
// of the named tenants (slug or id; all tenants when none is named) from their month-end snapshots;
// with --snapshots, first recomputes the month-end snapshots themselves from loan history (snapshots.ts).
// Uses DATABASE_URL (Postgres) or the embedded PGlite in DATA_DIR, like the server; PGlite is
// single-process, so stop the server first when using it.
import { openDatabase } from '#lib/db/index.ts';
import { readEnv } from '#lib/config/env.ts';
import { rebuildAnalytics } from '#lib/analytics/rebuild.ts';

const env = readEnv();
let db;
try {
  db = await openDatabase({ databaseUrl: env.databaseUrl, dataDir: env.dataDir });
} catch (error) {
  process.stderr.write(`analytics:rebuild cannot open the database: ${(error as Error).message}\n`);
  process.exit(2);
}
try {
  const named = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const tenants = await db.system((tx) =>
    tx.query<{ id: string }>(
      named.length
        ? 'select id from tenants where id = any($1) or slug = any($1) order by id'
        : 'select id from tenants order by id',
      named.length ? [named] : [],
    ),
  );
  if (named.length && tenants.length === 0) {
    process.stderr.write(`analytics:rebuild: no tenant named ${named.join(', ')}\n`);
    process.exitCode = 2;
  }
  for (const { id } of tenants) {
    const result = await rebuildAnalytics(db, id, { snapshots: process.argv.includes('--snapshots') });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
} finally {
  await db.close();
}
