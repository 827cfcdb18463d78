import fs from 'node:fs';
import path from 'node:path';
import type { Db } from './types.ts';

const ROLE = 'lending_app';

/** Numbered SQL files `NNNN_name.sql`, applied in order, each once, recorded in schema_migrations. */
export function listMigrations(dir: string): { version: string; file: string }[] {
  return fs
    .readdirSync(dir)
    .filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name))
    .sort()
    .map((name) => ({ version: name.replace(/\.sql$/, ''), file: path.join(dir, name) }));
}

export function defaultMigrationsDir(): string {
  return path.resolve(process.env.MIGRATIONS_DIR ?? path.join(process.cwd(), 'migrations'));
}

/**
 * Applies pending migrations in one transaction under an advisory lock, so several app servers
 * starting together against one Postgres migrate once. Afterwards the runtime role gets its grants
 * on every table (row-level security, not grants, is what separates tenants).
 */
export async function migrate(db: Db, dir = defaultMigrationsDir()): Promise<string[]> {
  const files = listMigrations(dir);
  return db.owner(async (tx) => {
    await tx.query(`select pg_advisory_xact_lock(7261736)`);
    await tx.exec(`create table if not exists schema_migrations (
      version text primary key,
      applied_at timestamptz not null default now()
    )`);
    const done = new Set(
      (await tx.query<{ version: string }>('select version from schema_migrations')).map((r) => r.version),
    );
    const applied: string[] = [];
    for (const { version, file } of files) {
      if (done.has(version)) continue;
      await tx.exec(fs.readFileSync(file, 'utf8'));
      await tx.query('insert into schema_migrations (version) values ($1)', [version]);
      applied.push(version);
    }
    await tx.exec(`
      do $$ begin
        begin
          create role ${ROLE} nologin nosuperuser nobypassrls;
        exception when duplicate_object or unique_violation then null;
        end;
        if not (select rolsuper from pg_roles where rolname = current_user) then
          execute format('grant ${ROLE} to %I', current_user);
        end if;
      exception when others then null;
      end $$;
      grant usage on schema public to ${ROLE};
      grant select, insert, update, delete on all tables in schema public to ${ROLE};
      grant usage, select on all sequences in schema public to ${ROLE};
    `);
    return applied;
  });
}
