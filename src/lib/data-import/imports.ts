import { z } from 'zod';
import type { Db, Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { need } from '../auth/permissions.ts';
import { defineCommand } from '../http/command.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { enqueueJob } from '../jobs/queue.ts';
import { registerJobHandler, PermanentJobError } from '../jobs/worker.ts';
import type { Actor } from '../lending/actor.ts';
import type { DataImportsRow } from '../db/schema.generated.ts';
import { cleanImportFileName, MAX_IMPORT_BYTES, parseImportFile, sha256, type ParsedFile } from './file.ts';
import {
  IMPORT_KINDS,
  isImportKind,
  KIND_FIELDS,
  suggestMapping,
  type ColumnMapping,
  type ImportKind,
} from './kinds.ts';
import { assertMappingComplete, executeImport, type ImportOutcome, type RowError } from './run.ts';

export const DATA_IMPORT_JOB = 'data_import.run';

export type ImportStatus = 'uploaded' | 'queued' | 'running' | 'checked' | 'refused' | 'imported' | 'failed';

/** A data_imports row without its bytes; the check constraints narrow kind and status. */
export type DataImport = Omit<DataImportsRow, 'content' | 'kind' | 'status' | 'headers' | 'errors' | 'mapping'> & {
  kind: ImportKind;
  status: ImportStatus;
  headers: string[];
  errors: RowError[];
  mapping: ColumnMapping | null;
};

const cols = (
  p: string,
) => `${p}id, ${p}tenant_id, ${p}kind, ${p}file_name, ${p}file_type, ${p}file_size, ${p}sha256, ${p}headers,
  ${p}total_rows, ${p}mapping, ${p}status, ${p}mode, ${p}source, ${p}bucket_id, ${p}job_id, ${p}processed_rows, ${p}created_count,
  ${p}skipped_count, ${p}error_count, ${p}errors, ${p}is_duplicate_file, to_char(${p}first_date, 'YYYY-MM-DD') as first_date,
  to_char(${p}last_date, 'YYYY-MM-DD') as last_date, ${p}created_by, ${p}created_at, ${p}finished_at, ${p}version`;
const COLUMNS = cols('');

/** Progress of imports running in this process (PGlite holds one connection, so the job row cannot be written meanwhile). */
type Progress = { done: number; total: number };
const LIVE_KEY = Symbol.for('lending.dataImport.progress');
const live: Map<string, Progress> = ((globalThis as Record<symbol, unknown>)[LIVE_KEY] ??= new Map()) as Map<
  string,
  Progress
>;

export function liveProgress(importId: string): Progress | null {
  return live.get(importId) ?? null;
}

/**
 * How far a queued or running import is: this process's live count, else its job's progress (another
 * server runs it, on Postgres), else the rows recorded on the import.
 */
export async function importProgress(tx: Tx, row: DataImport): Promise<Progress> {
  const running = liveProgress(row.id);
  if (running) return running;
  if ((row.status === 'running' || row.status === 'queued') && row.job_id !== null) {
    const [job] = await tx.query<{ done: number | null; total: number | null }>(
      `select progress_done::int as done, progress_total::int as total from jobs where id = $1`,
      [String(row.job_id)],
    );
    if (job?.done !== null && job?.done !== undefined) return { done: job.done, total: job.total ?? row.total_rows };
  }
  return { done: row.processed_rows, total: row.total_rows };
}

export async function getImport(tx: Tx, id: string): Promise<DataImport> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id))
    throw new AppError('NOT_FOUND', 'Import not found', { field: 'id' });
  const [row] = await tx.query<DataImport>(`select ${COLUMNS} from data_imports where id = $1`, [id]);
  if (!row) throw new AppError('NOT_FOUND', 'Import not found', { field: 'id' });
  return row;
}

export type ImportListRow = DataImport & { bucket_name: string | null; created_by_name: string | null };

/** The import history, newest first, with the bucket's name and the uploader's name. */
export async function listImports(tx: Tx, limit = 50): Promise<ImportListRow[]> {
  return tx.query<ImportListRow>(
    `select ${cols('i.')}, b.name as bucket_name, u.display_name as created_by_name
       from data_imports i
       left join import_buckets b on b.tenant_id = i.tenant_id and b.id = i.bucket_id
       left join users u on u.tenant_id = i.tenant_id and u.id::text = i.created_by
      order by i.created_at desc limit $1`,
    [limit],
  );
}

export async function savedMapping(tx: Tx, kind: ImportKind): Promise<ColumnMapping | null> {
  const [row] = await tx.query<{ mapping: ColumnMapping }>(`select mapping from data_import_mappings where kind = $1`, [
    kind,
  ]);
  return row?.mapping ?? null;
}

async function saveMapping(tx: Tx, actor: Actor, kind: ImportKind, mapping: ColumnMapping): Promise<void> {
  await tx.query(
    `insert into data_import_mappings (tenant_id, kind, mapping, updated_by) values ($1, $2, $3::jsonb, $4)
     on conflict (tenant_id, kind) do update set mapping = excluded.mapping, updated_by = excluded.updated_by, updated_at = now()`,
    [actor.tenantId, kind, JSON.stringify(mapping), actor.userId],
  );
}

/** The mapping to offer for an import: the one chosen for it, else the kind's saved one and names. */
export async function mappingFor(tx: Tx, row: DataImport): Promise<ColumnMapping> {
  return row.mapping ?? suggestMapping(row.kind, row.headers, await savedMapping(tx, row.kind));
}

/** Stores an uploaded file (checked and parsed once, so a wrong type or a broken file is refused now). */
export async function createImport(
  tx: Tx,
  actor: Actor,
  input: { kind: ImportKind; fileName: string; bytes: Uint8Array; parsed: ParsedFile; bucketId?: string | null },
): Promise<DataImport> {
  const hash = sha256(input.bytes);
  const [same] = await tx.query<{ n: number }>(
    `select count(*)::int as n from data_imports where kind = $1 and sha256 = $2 and status = 'imported'`,
    [input.kind, hash],
  );
  const [row] = await tx.query<{ id: string }>(
    `insert into data_imports (tenant_id, kind, file_name, file_type, file_size, sha256, content, headers, total_rows,
       source, bucket_id, is_duplicate_file, created_by)
     values ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13) returning id`,
    [
      actor.tenantId,
      input.kind,
      cleanImportFileName(input.fileName),
      input.parsed.type,
      input.bytes.byteLength,
      hash,
      Buffer.from(input.bytes),
      JSON.stringify(input.parsed.headers),
      input.parsed.rows.length,
      input.bucketId ? 'bucket' : 'upload',
      input.bucketId ?? null,
      same.n > 0,
      actor.userId,
    ],
  );
  await recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    actorKind: actor.kind ?? 'user',
    action: 'data_import.upload',
    objectType: 'data_import',
    objectId: row.id,
    after: {
      kind: input.kind,
      fileName: cleanImportFileName(input.fileName),
      sha256: hash,
      rows: input.parsed.rows.length,
    },
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
  return getImport(tx, row.id);
}

const bytesSchema = z.custom<Uint8Array>((v) => v instanceof Uint8Array, { message: 'file is required' });

/** Upload: a CSV or XLSX file of one kind; answers the import with its headers and suggested mapping. */
export const uploadImportCommand = defineCommand({
  action: 'data_import.upload',
  objectType: 'data_import',
  permission: need('admin.data_upload.edit'),
  input: z.object({
    kind: z.enum(IMPORT_KINDS),
    fileName: z.string().max(1000),
    bytes: bytesSchema,
  }),
  run: async (tx, actor, input) => {
    if (input.bytes.byteLength > MAX_IMPORT_BYTES)
      throw new AppError('PAYLOAD_TOO_LARGE', 'The file is larger than the limit of 20 MB', { field: 'file' });
    const parsed = await parseImportFile(input.bytes);
    const row = await createImport(tx, actor, {
      kind: input.kind,
      fileName: input.fileName,
      bytes: input.bytes,
      parsed,
    });
    return { import: row, mapping: await mappingFor(tx, row) };
  },
});

const mappingSchema = z.record(z.string().max(100), z.string().max(200));

/** Reads a page's mapping selects (`map.<field>`) into a mapping. */
export function mappingFromForm(kind: ImportKind, values: Record<string, string>): ColumnMapping {
  const mapping: ColumnMapping = {};
  for (const field of KIND_FIELDS[kind]) {
    const header = values[`map.${field.name}`];
    if (header) mapping[field.name] = header;
  }
  return mapping;
}

/**
 * Queues a dry run or the commit of an uploaded file with a mapping (saved as the kind's mapping for
 * next time). A commit is refused once the file has been imported; a dry run may be repeated.
 */
export const runImportCommand = defineCommand({
  action: 'data_import.run',
  objectType: 'data_import',
  permission: need('admin.data_upload.edit'),
  input: z.object({
    id: z.string(),
    mode: z.enum(['dry_run', 'commit']),
    mapping: mappingSchema.optional(),
    expectedVersion: z.number().int().optional(),
  }),
  run: async (tx, actor, input) => {
    const row = await getImport(tx, input.id);
    if (input.expectedVersion !== undefined && input.expectedVersion !== row.version)
      throw new AppError('CONFLICT', 'This import was changed by someone else; reload the page', {
        field: 'expectedVersion',
      });
    if (row.status === 'imported' || row.status === 'queued' || row.status === 'running')
      throw new AppError('CONFLICT', `This import is ${row.status}; upload the file again to import it again`, {
        field: 'id',
      });
    const mapping: ColumnMapping = {};
    const raw = input.mapping ?? (await mappingFor(tx, row));
    for (const field of KIND_FIELDS[row.kind]) if (raw[field.name]) mapping[field.name] = raw[field.name];
    assertMappingComplete(row.kind, row.headers, mapping);
    await saveMapping(tx, actor, row.kind, mapping);
    const { job } = await enqueueJob(tx, {
      name: DATA_IMPORT_JOB,
      tenantId: actor.tenantId,
      payload: {
        importId: row.id,
        mode: input.mode,
        actor: {
          userId: actor.userId,
          isAdmin: actor.isAdmin,
          kind: actor.kind ?? 'user',
          dataPermissions: actor.dataPermissions ?? null,
        },
      },
      ...(/^[0-9a-f-]{36}$/.test(actor.userId) ? { createdBy: actor.userId } : {}),
      // A server that dies mid-import leaves nothing written (one transaction); the job is run again.
      maxAttempts: 3,
      priority: 50,
    });
    await tx.query(
      `update data_imports set status = 'queued', mode = $2, mapping = $3::jsonb, job_id = $4, processed_rows = 0,
         errors = '[]', error_count = 0, created_count = 0, skipped_count = 0, finished_at = null, version = version + 1
       where id = $1`,
      [row.id, input.mode, JSON.stringify(mapping), job.id],
    );
    await recordAudit(tx, {
      tenantId: actor.tenantId,
      actorId: actor.userId,
      actorKind: actor.kind ?? 'user',
      action: input.mode === 'commit' ? 'data_import.commit' : 'data_import.dry_run',
      objectType: 'data_import',
      objectId: row.id,
      after: { mapping },
      ip: actor.ip,
      requestId: actor.requestId,
      outcome: 'success',
    });
    return getImport(tx, row.id);
  },
});

/**
 * Runs a queued import now (the job's work; tests and the bucket watcher call it directly): reads the
 * stored file, checks or commits it, and records the outcome on the import row.
 */
export async function processImport(
  db: Db,
  actor: Actor,
  importId: string,
  mode: 'dry_run' | 'commit',
  onProgress?: (done: number, total: number) => Promise<void> | void,
): Promise<ImportOutcome & { status: ImportStatus }> {
  const loaded = await db.tenant(actor.tenantId, async (tx) => {
    const row = await getImport(tx, importId);
    const [content] = await tx.query<{ content: Buffer | Uint8Array | null }>(
      `select content from data_imports where id = $1`,
      [importId],
    );
    await tx.query(`update data_imports set status = 'running' where id = $1`, [importId]);
    return { row, content: content.content, mapping: await mappingFor(tx, row) };
  });
  if (!loaded.content) throw new PermanentJobError('The file of this import is no longer stored');
  live.set(importId, { done: 0, total: loaded.row.total_rows });
  let outcome: ImportOutcome;
  try {
    const file = await parseImportFile(new Uint8Array(loaded.content));
    outcome = await executeImport(db, actor, {
      importId,
      kind: loaded.row.kind,
      file,
      mapping: loaded.mapping,
      mode,
      onProgress: async (done, total) => {
        live.set(importId, { done, total });
        await onProgress?.(done, total);
      },
    });
  } catch (error) {
    live.delete(importId);
    const message = error instanceof AppError ? error.message : 'The import stopped on an unexpected error';
    await db.tenant(actor.tenantId, (tx) =>
      tx.query(
        `update data_imports set status = 'failed', finished_at = now(), errors = $2::jsonb, error_count = 1 where id = $1`,
        [importId, JSON.stringify([{ row: 0, column: '', key: null, params: {}, message }])],
      ),
    );
    throw error;
  }
  live.delete(importId);
  const status: ImportStatus = outcome.errorCount > 0 ? 'refused' : mode === 'commit' ? 'imported' : 'checked';
  await db.tenant(actor.tenantId, async (tx) => {
    await tx.query(
      `update data_imports set status = $2, processed_rows = $3, created_count = $4, skipped_count = $5, error_count = $6,
         errors = $7::jsonb, first_date = $8, last_date = $9, finished_at = now(), version = version + 1,
         content = case when $2 = 'imported' then null else content end
       where id = $1`,
      [
        importId,
        status,
        outcome.total,
        outcome.created,
        outcome.skipped,
        outcome.errorCount,
        JSON.stringify(outcome.errors),
        outcome.firstDate,
        outcome.lastDate,
      ],
    );
    if (mode === 'commit')
      await recordAudit(tx, {
        tenantId: actor.tenantId,
        actorId: actor.userId,
        actorKind: actor.kind ?? 'user',
        action: status === 'imported' ? 'data_import.imported' : 'data_import.refused',
        objectType: 'data_import',
        objectId: importId,
        after: { created: outcome.created, skipped: outcome.skipped, errors: outcome.errorCount },
        outcome: 'success',
      });
  });
  return { ...outcome, status };
}

type JobActor = {
  userId: string;
  isAdmin: boolean;
  kind: 'user' | 'token' | 'system';
  dataPermissions: Actor['dataPermissions'] | null;
};

export function registerDataImportJob(): void {
  registerJobHandler(DATA_IMPORT_JOB, async ({ db, tenantId, payload, progress }) => {
    const importId = String(payload.importId);
    const mode = payload.mode === 'commit' ? 'commit' : 'dry_run';
    const who = payload.actor as JobActor;
    if (!tenantId || !who?.userId) throw new PermanentJobError('data import job without tenant or actor');
    const actor: Actor = {
      tenantId,
      userId: who.userId,
      isAdmin: who.isAdmin,
      kind: who.kind,
      ...(who.dataPermissions ? { dataPermissions: who.dataPermissions } : {}),
    };
    // On Postgres the job row's progress is written from another connection; PGlite has one, kept by the import.
    const report = db.kind === 'postgres' ? (done: number, total: number) => progress(done, total) : undefined;
    const result = await processImport(db, actor, importId, mode, report);
    return { status: result.status, created: result.created, skipped: result.skipped, errors: result.errorCount };
  });
}

/** The import as the API answers it (no bytes). */
export function importJson(row: DataImport, progress?: Progress) {
  const running = progress ?? liveProgress(row.id);
  return {
    id: row.id,
    kind: row.kind,
    fileName: row.file_name,
    fileType: row.file_type,
    fileSize: row.file_size,
    sha256: row.sha256,
    source: row.source,
    bucketId: row.bucket_id,
    headers: row.headers,
    totalRows: row.total_rows,
    mapping: row.mapping,
    status: row.status,
    mode: row.mode,
    progress: running ?? { done: row.processed_rows, total: row.total_rows },
    created: row.created_count,
    skipped: row.skipped_count,
    errorCount: row.error_count,
    errors: row.errors,
    isDuplicateFile: row.is_duplicate_file,
    firstDate: row.first_date,
    lastDate: row.last_date,
    createdBy: row.created_by,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    version: row.version,
  };
}

export { isImportKind };
