import { openPglite } from './index.ts';
import { defaultMigrationsDir, migrate } from './migrate.ts';
import type { Tx } from './types.ts';

/**
 * Row types generated from the migrated schema, so a query's result is typed from the table it reads
 * instead of a shape typed again by hand next to each query. `npm run db:types` writes the result to
 * `src/lib/db/schema.generated.ts`; a unit test regenerates it and fails when the committed file is stale.
 */

export const GENERATED_FILE = 'src/lib/db/schema.generated.ts';

/** Bookkeeping tables that no domain query reads as rows. */
const SKIPPED_TABLES = new Set(['schema_migrations']);

/**
 * The JavaScript type each column type arrives as, with the parsers both drivers install in
 * `src/lib/db/index.ts`: int8 as bigint, numeric and date as strings, timestamps as Date, json parsed.
 * A column type missing here stops the generator, so a new type gets a deliberate mapping.
 */
const TS_TYPES: Record<string, string> = {
  int8: 'bigint',
  int4: 'number',
  int2: 'number',
  float4: 'number',
  float8: 'number',
  numeric: 'string',
  bool: 'boolean',
  text: 'string',
  varchar: 'string',
  bpchar: 'string',
  uuid: 'string',
  citext: 'string',
  cidr: 'string',
  inet: 'string',
  date: 'string',
  timestamptz: 'Date',
  timestamp: 'Date',
  json: 'unknown',
  jsonb: 'unknown',
  bytea: 'Uint8Array',
  // Transaction ids (the outbox's commit order); always read as text (`xid::text`).
  xid8: 'string',
};

export type SchemaColumn = { table: string; column: string; udt: string; isArray: boolean; isNullable: boolean };
export type SchemaTable = { name: string; isView: boolean; columns: SchemaColumn[] };
export type Schema = { tables: SchemaTable[]; enums: Map<string, string[]> };

type TableInfo = { table_name: string; table_type: string };
type ColumnInfo = { table_name: string; column_name: string; udt_name: string; is_nullable: string };
type EnumLabel = { name: string; label: string };

/** Reads tables, views, columns and enum types of the `public` schema, in a stable order. */
export async function readSchema(tx: Tx): Promise<Schema> {
  const tables = await tx.query<TableInfo>(
    `select table_name, table_type from information_schema.tables
      where table_schema = 'public' and table_type in ('BASE TABLE', 'VIEW')
      order by table_name`,
  );
  const columns = await tx.query<ColumnInfo>(
    `select table_name, column_name, udt_name, is_nullable from information_schema.columns
      where table_schema = 'public'
      order by table_name, ordinal_position`,
  );
  const enumRows = await tx.query<EnumLabel>(
    `select t.typname as name, e.enumlabel as label
       from pg_type t join pg_enum e on e.enumtypid = t.oid join pg_namespace n on n.oid = t.typnamespace
      where n.nspname = 'public'
      order by t.typname, e.enumsortorder`,
  );
  const enums = new Map<string, string[]>();
  for (const row of enumRows) enums.set(row.name, [...(enums.get(row.name) ?? []), row.label]);
  const byTable = new Map<string, SchemaColumn[]>();
  for (const c of columns) {
    const isArray = c.udt_name.startsWith('_');
    const list = byTable.get(c.table_name) ?? [];
    list.push({
      table: c.table_name,
      column: c.column_name,
      udt: isArray ? c.udt_name.slice(1) : c.udt_name,
      isArray,
      isNullable: c.is_nullable === 'YES',
    });
    byTable.set(c.table_name, list);
  }
  return {
    tables: tables
      .filter((t) => !SKIPPED_TABLES.has(t.table_name))
      .map((t) => ({ name: t.table_name, isView: t.table_type === 'VIEW', columns: byTable.get(t.table_name) ?? [] })),
    enums,
  };
}

/** `loan_installments` → `LoanInstallmentsRow`. */
export function rowTypeName(table: string): string {
  return `${table
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Row`;
}

function enumTypeName(name: string): string {
  return rowTypeName(name).replace(/Row$/, '');
}

function columnType(c: SchemaColumn, enums: Map<string, string[]>): string {
  const base = enums.has(c.udt) ? enumTypeName(c.udt) : TS_TYPES[c.udt];
  if (!base) {
    throw new Error(
      `${c.table}.${c.column}: no TypeScript type for column type "${c.udt}"; add it to TS_TYPES in src/lib/db/schema-types.ts`,
    );
  }
  const type = c.isArray ? `${base}[]` : base;
  // `unknown` already includes null.
  return c.isNullable && type !== 'unknown' ? `${type} | null` : type;
}

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function propertyName(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : quote(name);
}

/** The file's text: deterministic for a given schema, so the staleness test can compare strings. */
export function renderSchemaTypes(schema: Schema): string {
  const out: string[] = [
    '// Generated from the migrated schema by `npm run db:types` (src/lib/db/schema-types.ts). Do not edit:',
    '// after adding or changing a migration, run `npm run db:types` and commit the result.',
    '//',
    '// One type per table and view, as the driver returns its rows (int8 → bigint, numeric and date →',
    '// string, timestamptz → Date, json → unknown). Views report every column as nullable.',
    '',
  ];
  for (const [name, labels] of schema.enums) {
    out.push(`export type ${enumTypeName(name)} = ${labels.map(quote).join(' | ')};`, '');
  }
  for (const table of schema.tables) {
    out.push(`/** The \`${table.name}\` ${table.isView ? 'view' : 'table'}. */`);
    out.push(`export type ${rowTypeName(table.name)} = {`);
    for (const c of table.columns) out.push(`  ${propertyName(c.column)}: ${columnType(c, schema.enums)};`);
    out.push('};', '');
  }
  out.push(
    "/** Every table and view by name, for `TableRow<'loans'>` and `Pick<TableRow<'loans'>, 'id' | 'status'>`. */",
  );
  out.push('export type Tables = {');
  for (const table of schema.tables) out.push(`  ${propertyName(table.name)}: ${rowTypeName(table.name)};`);
  out.push('};', '');
  out.push('export type TableName = keyof Tables;', '');
  out.push("/** The row type of one table: `TableRow<'loans'>` is `LoansRow`. */");
  out.push('export type TableRow<T extends TableName> = Tables[T];', '');
  return out.join('\n');
}

/** Migrates a fresh in-memory database with the repository's migrations and renders its row types. */
export async function generateSchemaTypes(migrationsDir = defaultMigrationsDir()): Promise<string> {
  const db = await openPglite(undefined);
  try {
    await migrate(db, migrationsDir);
    return renderSchemaTypes(await db.owner((tx) => readSchema(tx)));
  } finally {
    await db.close();
  }
}
