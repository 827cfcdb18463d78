// `npm run migrate`: brings the configured database's schema up to date and exits. DATABASE_URL
// selects Postgres, otherwise the PGlite database under DATA_DIR (which must not be open in a running
// server: PGlite allows one process per data directory). The server runs the same migrations at start,
// so this is for operators who migrate before rolling out new app servers.
import { env } from '#lib/config/env.ts';
import { listMigrations, defaultMigrationsDir } from '#lib/db/migrate.ts';
import { openDatabase } from '#lib/db/index.ts';

const config = env();
try {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await db.close();
  const latest = listMigrations(defaultMigrationsDir()).at(-1)?.version ?? 'none';
  console.log(
    `schema up to date (${config.databaseUrl ? 'Postgres' : `PGlite in ${config.dataDir}`}, latest migration ${latest})`,
  );
} catch (error) {
  console.error(`migration failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
