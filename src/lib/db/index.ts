import fs from 'node:fs';
import path from 'node:path';
import { AppError, isRetryableTxError } from '../errors/app-error.ts';
import { acquireDataDirLock } from './lock.ts';
import { migrate } from './migrate.ts';
import type { Db, Tx, TxOptions } from './types.ts';

export type { Db, Tx, TxOptions, Row } from './types.ts';

/** The database role every request runs as: no superuser, no BYPASSRLS, so row-level security holds. */
export const RUNTIME_ROLE = 'lending_app';

const OID = { INT8: 20, NUMERIC: 1700, DATE: 1082 } as const;

/**
 * Sets the transaction's role and tenant in one round trip. `set_config(..., true)` is local to the
 * transaction, so a pooled connection never carries one request's tenant into the next.
 */
const BIND_TENANT = `select set_config('role', '${RUNTIME_ROLE}', true), set_config('app.tenant_id', $1, true)`;

async function withRetry<T>(attempts: number, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!isRetryableTxError(error)) throw error;
      if (attempt >= attempts) {
        throw new AppError('CONFLICT', 'The record was changed by someone else at the same time; please try again.', {
          cause: error,
        });
      }
      // Jittered back-off so racing transactions do not collide again in lockstep.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

export async function openPglite(dataDir: string | undefined): Promise<Db> {
  const { PGlite, types } = await import('@electric-sql/pglite');
  const release = dataDir ? acquireDataDirLock(dataDir) : () => {};
  const dir = dataDir ? path.join(dataDir, 'pglite') : undefined;
  if (dir) fs.mkdirSync(dir, { recursive: true });
  let pg: InstanceType<typeof PGlite>;
  try {
    pg = await PGlite.create({
      dataDir: dir,
      parsers: {
        [types.INT8]: (value: string) => BigInt(value),
        [types.NUMERIC]: (value: string) => value,
        [types.DATE]: (value: string) => value,
      },
      serializers: { [types.INT8]: (value: unknown) => String(value) },
    });
  } catch (error) {
    release();
    throw error;
  }
  const wrap = (conn: { query: typeof pg.query; exec: typeof pg.exec }): Tx => ({
    async query(text, params) {
      const result = await conn.query(text, params as unknown[] | undefined);
      return result.rows as never;
    },
    async exec(text) {
      await conn.exec(text);
    },
  });
  const inTx = <T>(tenantId: string | null, fn: (tx: Tx) => Promise<T>, options?: TxOptions) =>
    withRetry(options?.attempts ?? 5, () =>
      pg.transaction(async (raw) => {
        // PGlite is a single connection: transactions already run one at a time, so the
        // isolation level changes nothing observable; we still honour the request for parity.
        if (options?.isolation && options.isolation !== 'read committed') {
          await raw.query(`set transaction isolation level ${options.isolation}`);
        }
        await raw.query(BIND_TENANT, [tenantId ?? '']);
        return fn(wrap(raw as never));
      }),
    );
  const db: Db = {
    kind: 'pglite',
    tenant: (tenantId, fn, options) => inTx(tenantId, fn, options),
    system: (fn, options) => inTx(null, fn, options),
    owner: (fn) => pg.transaction(async (raw) => fn(wrap(raw as never))),
    async close() {
      if (!pg.closed) await pg.close();
      release();
    },
  };
  return db;
}

export async function openPostgres(url: string, options: { max?: number } = {}): Promise<Db> {
  const { default: pgModule } = await import('pg');
  const pool = new pgModule.Pool({
    connectionString: url,
    max: options.max ?? Number(process.env.DATABASE_POOL_MAX ?? 10),
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    types: {
      getTypeParser: ((oid: number, format?: string) => {
        if (oid === OID.INT8) return (value: string) => BigInt(value);
        if (oid === OID.DATE || oid === OID.NUMERIC) return (value: string) => value;
        return pgModule.types.getTypeParser(oid, format as never);
      }) as never,
    },
  });
  // A dropped idle connection emits 'error' on the pool; without a listener Node would crash.
  // The pool discards that client and opens a new one on the next checkout.
  pool.on('error', (error) => {
    process.emitWarning(`Postgres idle client error: ${error.message}`);
  });
  const wrap = (client: import('pg').PoolClient): Tx => ({
    async query(text, params) {
      const result = await client.query(text, params as unknown[] | undefined);
      return result.rows as never;
    },
    async exec(text) {
      await client.query(text);
    },
  });
  const run = async <T>(
    tenantId: string | null | undefined,
    fn: (tx: Tx) => Promise<T>,
    isolation?: TxOptions['isolation'],
  ) => {
    const client = await pool.connect().catch((error: unknown) => {
      throw new AppError('UNAVAILABLE', 'The database is not reachable right now; please try again shortly.', {
        cause: error,
      });
    });
    let broken = false;
    try {
      await client.query(`begin isolation level ${isolation ?? 'read committed'}`);
      if (tenantId !== undefined) await client.query(BIND_TENANT, [tenantId ?? '']);
      const result = await fn(wrap(client));
      await client.query('commit');
      return result;
    } catch (error) {
      try {
        await client.query('rollback');
      } catch {
        broken = true;
      }
      throw error;
    } finally {
      client.release(broken);
    }
  };
  return {
    kind: 'postgres',
    tenant: (tenantId, fn, options) => withRetry(options?.attempts ?? 5, () => run(tenantId, fn, options?.isolation)),
    system: (fn, options) => withRetry(options?.attempts ?? 5, () => run(null, fn, options?.isolation)),
    owner: (fn) => run(undefined, fn),
    async close() {
      await pool.end();
    },
  };
}

/**
 * Opens the configured database and brings its schema up to date. DATABASE_URL selects Postgres;
 * otherwise PGlite in `<dataDir>/pglite`, locked to this process.
 */
export async function openDatabase(config: {
  databaseUrl?: string;
  dataDir?: string;
  migrationsDir?: string;
}): Promise<Db> {
  const db = config.databaseUrl ? await openPostgres(config.databaseUrl) : await openPglite(config.dataDir);
  try {
    await migrate(db, config.migrationsDir);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

// The Astro bundle and the boot script both import this module, as two copies; the process-wide
// instance lives on globalThis so they share one database (PGlite allows one opener per process).
const GLOBAL_KEY = Symbol.for('lending.db');
type GlobalSlot = { [GLOBAL_KEY]?: Promise<Db> };

export function getDb(): Promise<Db> {
  const slot = globalThis as GlobalSlot;
  if (!slot[GLOBAL_KEY]) {
    slot[GLOBAL_KEY] = (async () => {
      const { env } = await import('../config/env.ts');
      const { databaseUrl, dataDir } = env();
      return openDatabase({ databaseUrl, dataDir });
    })();
    slot[GLOBAL_KEY].catch(() => {
      delete slot[GLOBAL_KEY];
    });
  }
  return slot[GLOBAL_KEY];
}

/** Installs an already-open database as the process-wide one (boot script, tests). */
export function setDb(db: Db): void {
  (globalThis as GlobalSlot)[GLOBAL_KEY] = Promise.resolve(db);
}
