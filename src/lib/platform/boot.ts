import { env } from '../config/env.ts';
import { openDatabase, setDb, type Db } from '../db/index.ts';
import { startJobRuntime } from '../jobs/runtime.ts';
import { logger } from '../observability/log.ts';
import { seedDemo } from '../seed/demo.ts';
import { resolveSessionSecret } from './session-secret.ts';

/**
 * Everything the server needs before it accepts a request: the session secret, the database (locked,
 * migrated) and, on an empty database, the demo tenants. Runs in the server process so PGlite has a
 * single owner.
 */
export async function boot(): Promise<Db> {
  const config = env();
  process.env.SESSION_SECRET = resolveSessionSecret(config.dataDir, config.sessionSecret);
  const started = Date.now();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  setDb(db);
  logger.info('database ready', { kind: db.kind, ms: Date.now() - started });
  if (config.seedDemo) {
    const seeded = await seedDemo(db, { password: config.demoPassword });
    if (seeded) logger.info('demo tenants seeded', { ms: Date.now() - started });
  }
  // Background jobs (daily close, exports, cleanups). Shutdown closes the database, so stop the
  // worker first: running jobs finish (or their leases expire and are retried) before the pool goes.
  const jobs = await startJobRuntime(db);
  const closeDb = db.close.bind(db);
  db.close = async () => {
    await jobs.stop();
    await closeDb();
  };
  return db;
}
