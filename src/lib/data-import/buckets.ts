import { z } from 'zod';
import type { Db, Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { ADMIN } from '../auth/permissions.ts';
import { defineCommand } from '../http/command.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { sealSecret, openSecret } from '../auth/secret-box.ts';
import { enqueueJob } from '../jobs/queue.ts';
import { registerJobHandler } from '../jobs/worker.ts';
import { logger } from '../observability/log.ts';
import type { Actor } from '../lending/actor.ts';
import type { TargetOptions } from '../net/outbound.ts';
import type { ImportBucketRunsRow, ImportBucketsRow, TenantsRow } from '../db/schema.generated.ts';
import { IMPORT_KINDS, KIND_FIELDS, suggestMapping, type ColumnMapping, type ImportKind } from './kinds.ts';
import { checkS3Endpoint, checkSftpHost, openBucket, type BucketTarget } from './bucket-clients.ts';
import { parseImportFile, sha256 } from './file.ts';
import { HostKeyMismatchError } from '../net/sftp.ts';
import { createImport, processImport } from './imports.ts';

/**
 * Import buckets (administrators only): an S3-compatible bucket or an SFTP folder watched for CSV/XLSX
 * files of one import kind, read with a saved mapping. A run lists the files, skips those already
 * processed (same key and hash) and files whose content was imported before (same hash), imports each
 * new one through the same code as an upload (all or nothing per file), marks it processed (SFTP:
 * moved into `processed/`), and keeps the run's history: files seen, imported, skipped, failed with the reason.
 */

export const BUCKETS_WATCH_JOB = 'import_buckets.watch';
export const BUCKET_CHECK_JOB = 'import_buckets.check';
/** Who imports a bucket's files (the audit trail's actor). */
export const BUCKET_ACTOR_ID = 'system:import-bucket';

export type ImportBucket = Omit<ImportBucketsRow, 'secret_sealed' | 'type' | 'kind' | 'mapping'> & {
  type: 's3' | 'sftp';
  kind: ImportKind;
  mapping: ColumnMapping;
};
export type BucketRun = Omit<ImportBucketRunsRow, 'details'> & {
  details: { file: string; outcome: 'imported' | 'duplicate' | 'failed'; reason?: string; importId?: string }[];
};

const COLUMNS = `id, tenant_id, name, type, kind, endpoint, region, bucket, prefix, access_key_id, host, port, username, path,
  mapping, is_enabled, host_key_sha256, last_run_at, created_by, created_at, updated_at, version`;

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export async function listBuckets(tx: Tx): Promise<(ImportBucket & { last_run: BucketRun | null })[]> {
  const buckets = await tx.query<ImportBucket>(`select ${COLUMNS} from import_buckets order by name`);
  const runs = await tx.query<BucketRun>(
    `select distinct on (bucket_id) * from import_bucket_runs order by bucket_id, started_at desc`,
  );
  return buckets.map((b) => ({ ...b, last_run: runs.find((r) => r.bucket_id === b.id) ?? null }));
}

export async function getBucket(tx: Tx, id: string): Promise<ImportBucket> {
  if (!uuid.test(id)) throw new AppError('NOT_FOUND', 'Import bucket not found', { field: 'id' });
  const [row] = await tx.query<ImportBucket>(`select ${COLUMNS} from import_buckets where id = $1`, [id]);
  if (!row) throw new AppError('NOT_FOUND', 'Import bucket not found', { field: 'id' });
  return row;
}

export async function listRuns(tx: Tx, bucketId: string, limit = 20): Promise<BucketRun[]> {
  return tx.query<BucketRun>(
    `select * from import_bucket_runs where bucket_id = $1 order by started_at desc limit $2`,
    [bucketId, limit],
  );
}

const text = (max: number) => z.string().trim().max(max);
const bucketInput = z.object({
  name: text(100).min(1),
  type: z.enum(['s3', 'sftp']),
  kind: z.enum(IMPORT_KINDS),
  endpoint: text(500).optional().default(''),
  region: text(50).optional().default(''),
  bucket: text(255).optional().default(''),
  prefix: text(500).optional().default(''),
  accessKeyId: text(200).optional().default(''),
  host: text(253).optional().default(''),
  port: z.coerce.number().int().min(1).max(65535).optional().default(22),
  username: text(200).optional().default(''),
  path: text(500).optional().default(''),
  /** Required when adding; empty on an edit keeps the stored one. Never sent back. */
  secret: z.string().max(4000).optional().default(''),
  mapping: z.record(z.string().max(100), z.string().max(200)).optional().default({}),
  isEnabled: z.boolean().optional().default(true),
});
export type BucketInput = z.input<typeof bucketInput>;

const required = (value: string, field: string) => {
  if (!value) throw new AppError('BAD_REQUEST', `${field} is required`, { field, key: 'required' });
};

/** Checks a bucket's fields for its type (the endpoint or host through the outbound guard). */
async function checkedFields(input: z.output<typeof bucketInput>, options?: TargetOptions) {
  const mapping: ColumnMapping = {};
  for (const field of KIND_FIELDS[input.kind])
    if (input.mapping[field.name]) mapping[field.name] = input.mapping[field.name];
  if (input.type === 's3') {
    required(input.bucket, 'bucket');
    required(input.accessKeyId, 'accessKeyId');
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(input.bucket))
      throw new AppError('BAD_REQUEST', 'bucket must be a bucket name (lower-case letters, digits, dots, hyphens)', {
        field: 'bucket',
      });
    const endpoint = input.endpoint
      ? (await checkS3Endpoint(input.endpoint, options)).toString().replace(/\/$/, '')
      : null;
    return {
      endpoint,
      region: input.region || 'us-east-1',
      bucket: input.bucket,
      prefix: input.prefix,
      access_key_id: input.accessKeyId,
      host: null,
      port: null,
      username: null,
      path: null,
      mapping,
    };
  }
  required(input.host, 'host');
  required(input.username, 'username');
  const host = await checkSftpHost(input.host, options);
  return {
    endpoint: null,
    region: null,
    bucket: null,
    prefix: '',
    access_key_id: null,
    host,
    port: input.port,
    username: input.username,
    path: input.path || '.',
    mapping,
  };
}

function audit(tx: Tx, actor: Actor, action: string, id: string, after?: unknown) {
  return recordAudit(tx, {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    actorKind: actor.kind ?? 'user',
    action,
    objectType: 'import_bucket',
    objectId: id,
    after,
    ip: actor.ip,
    requestId: actor.requestId,
    outcome: 'success',
  });
}

export async function addBucket(tx: Tx, actor: Actor, raw: unknown, options?: TargetOptions): Promise<ImportBucket> {
  const input = bucketInput.parse(raw);
  const fields = await checkedFields(input, options);
  if (!input.secret) throw new AppError('BAD_REQUEST', 'secret is required', { field: 'secret', key: 'required' });
  const [dup] = await tx.query(`select 1 from import_buckets where name = $1`, [input.name]);
  if (dup) throw new AppError('CONFLICT', 'An import bucket with this name exists', { field: 'name' });
  const [row] = await tx.query<{ id: string }>(
    `insert into import_buckets (tenant_id, name, type, kind, endpoint, region, bucket, prefix, access_key_id, host, port,
       username, path, secret_sealed, mapping, is_enabled, created_by)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::jsonb, $16, $17) returning id`,
    [
      actor.tenantId,
      input.name,
      input.type,
      input.kind,
      fields.endpoint,
      fields.region,
      fields.bucket,
      fields.prefix,
      fields.access_key_id,
      fields.host,
      fields.port,
      fields.username,
      fields.path,
      sealSecret(input.secret),
      JSON.stringify(fields.mapping),
      input.isEnabled,
      actor.userId,
    ],
  );
  await audit(tx, actor, 'import_bucket.create', row.id, { name: input.name, type: input.type, kind: input.kind });
  return getBucket(tx, row.id);
}

export async function updateBucket(
  tx: Tx,
  actor: Actor,
  id: string,
  raw: unknown,
  expectedVersion: number | undefined,
  options?: TargetOptions,
): Promise<ImportBucket> {
  const current = await getBucket(tx, id);
  if (expectedVersion !== undefined && expectedVersion !== current.version)
    throw new AppError('CONFLICT', 'This bucket was changed by someone else; reload the page', {
      field: 'expectedVersion',
    });
  const input = bucketInput.parse(raw);
  const fields = await checkedFields(input, options);
  // The stored secret (an SFTP password, an S3 secret key) is only used again with the server and
  // account it was typed for: another type, endpoint, host, port or user name needs it typed again.
  const sameTarget =
    input.type === current.type &&
    fields.endpoint === current.endpoint &&
    fields.host === current.host &&
    fields.port === current.port &&
    fields.username === current.username &&
    fields.access_key_id === current.access_key_id;
  // The pinned host key belongs to the server it was seen on: another host or port starts unpinned.
  const sameServer = input.type === current.type && fields.host === current.host && fields.port === current.port;
  if (!input.secret && !sameTarget)
    throw new AppError('BAD_REQUEST', 'secret must be typed again: the server or account changed', {
      field: 'secret',
    });
  const [dup] = await tx.query(`select 1 from import_buckets where name = $1 and id <> $2`, [input.name, id]);
  if (dup) throw new AppError('CONFLICT', 'An import bucket with this name exists', { field: 'name' });
  await tx.query(
    `update import_buckets set name = $2, type = $3, kind = $4, endpoint = $5, region = $6, bucket = $7, prefix = $8,
       access_key_id = $9, host = $10, port = $11, username = $12, path = $13,
       secret_sealed = coalesce($14, secret_sealed), mapping = $15::jsonb, is_enabled = $16,
       host_key_sha256 = case when $17::boolean then host_key_sha256 end, updated_at = now(), version = version + 1
     where id = $1`,
    [
      id,
      input.name,
      input.type,
      input.kind,
      fields.endpoint,
      fields.region,
      fields.bucket,
      fields.prefix,
      fields.access_key_id,
      fields.host,
      fields.port,
      fields.username,
      fields.path,
      input.secret ? sealSecret(input.secret) : null,
      JSON.stringify(fields.mapping),
      input.isEnabled,
      sameServer,
    ],
  );
  await audit(tx, actor, 'import_bucket.update', id, { name: input.name, secretChanged: Boolean(input.secret) });
  return getBucket(tx, id);
}

export async function deleteBucket(tx: Tx, actor: Actor, id: string): Promise<void> {
  await getBucket(tx, id);
  await tx.query(`update data_imports set bucket_id = null where bucket_id = $1`, [id]);
  await tx.query(`delete from import_buckets where id = $1`, [id]);
  await audit(tx, actor, 'import_bucket.delete', id);
}

export const addBucketCommand = defineCommand({
  action: 'import_bucket.create',
  objectType: 'import_bucket',
  permission: ADMIN,
  input: z.object({ values: z.unknown() }),
  run: (tx, actor, { values }) => addBucket(tx, actor, values),
});

export const updateBucketCommand = defineCommand({
  action: 'import_bucket.update',
  objectType: 'import_bucket',
  permission: ADMIN,
  input: z.object({ id: z.string(), values: z.unknown(), expectedVersion: z.coerce.number().int().optional() }),
  run: (tx, actor, { id, values, expectedVersion }) => updateBucket(tx, actor, id, values, expectedVersion),
});

export const deleteBucketCommand = defineCommand({
  action: 'import_bucket.delete',
  objectType: 'import_bucket',
  permission: ADMIN,
  input: z.object({ id: z.string() }),
  run: (tx, actor, { id }) => deleteBucket(tx, actor, id),
});

/** "Check now": queues a run of the bucket (the page shows it in the run history once done). */
export const checkBucketCommand = defineCommand({
  action: 'import_bucket.check',
  objectType: 'import_bucket',
  permission: ADMIN,
  input: z.object({ id: z.string() }),
  run: async (tx, actor, { id }) => {
    const bucket = await getBucket(tx, id);
    const { job } = await enqueueJob(tx, {
      name: BUCKET_CHECK_JOB,
      tenantId: actor.tenantId,
      payload: { bucketId: bucket.id, trigger: 'manual' },
      dedupeKey: `${BUCKET_CHECK_JOB}:${bucket.id}:manual:${new Date().toISOString().slice(0, 16)}`,
      ...(/^[0-9a-f-]{36}$/.test(actor.userId) ? { createdBy: actor.userId } : {}),
      maxAttempts: 1,
    });
    await audit(tx, actor, 'import_bucket.check', id);
    return { bucket, jobId: job.id };
  },
});

async function targetOf(db: Db, tenantId: string, id: string): Promise<{ bucket: ImportBucket; target: BucketTarget }> {
  return db.tenant(tenantId, async (tx) => {
    const bucket = await getBucket(tx, id);
    const [{ secret_sealed }] = await tx.query<Pick<ImportBucketsRow, 'secret_sealed'>>(
      `select secret_sealed from import_buckets where id = $1`,
      [id],
    );
    const secret = openSecret(secret_sealed);
    const target: BucketTarget =
      bucket.type === 's3'
        ? {
            type: 's3',
            endpoint: bucket.endpoint,
            region: bucket.region ?? 'us-east-1',
            bucket: bucket.bucket ?? '',
            prefix: bucket.prefix,
            accessKeyId: bucket.access_key_id ?? '',
            secret,
          }
        : {
            type: 'sftp',
            host: bucket.host ?? '',
            port: bucket.port ?? 22,
            username: bucket.username ?? '',
            path: bucket.path ?? '.',
            secret,
            hostKeySha256: bucket.host_key_sha256,
          };
    return { bucket, target };
  });
}

function reasonOf(error: unknown): string {
  if (error instanceof AppError) return error.message;
  if (error instanceof HostKeyMismatchError)
    return `refused: ${error.message}. Nothing was read and no password was sent. If the server's key really changed, forget the pinned key on the bucket's page and test the connection again.`;
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 300) || 'connection failed';
}

/**
 * Trust on first use: a bucket with no pinned host key pins the key its first successful connection
 * saw ("test connection" or a run). Only when still unpinned (two connections at once pin one key).
 */
async function pinFirstKey(db: Db, tenantId: string, bucketId: string, fingerprint: string | undefined) {
  if (!fingerprint) return;
  await db.tenant(tenantId, async (tx) => {
    const pinned = await tx.query(
      `update import_buckets set host_key_sha256 = $2 where id = $1 and host_key_sha256 is null returning id`,
      [bucketId, fingerprint],
    );
    if (pinned.length)
      await recordAudit(tx, {
        tenantId,
        actorId: BUCKET_ACTOR_ID,
        actorKind: 'system',
        action: 'import_bucket.pin_host_key',
        objectType: 'import_bucket',
        objectId: bucketId,
        after: { hostKeySha256: fingerprint },
        outcome: 'success',
      });
  });
}

/** "Forget" the pinned SFTP host key: the next successful connection pins the key it sees. */
export async function forgetHostKey(tx: Tx, actor: Actor, id: string): Promise<ImportBucket> {
  const bucket = await getBucket(tx, id);
  if (bucket.type !== 'sftp') throw new AppError('BAD_REQUEST', 'only an SFTP bucket has a host key', { field: 'id' });
  await tx.query(`update import_buckets set host_key_sha256 = null, updated_at = now() where id = $1`, [id]);
  await audit(tx, actor, 'import_bucket.forget_host_key', id, { before: bucket.host_key_sha256 });
  return getBucket(tx, id);
}

export const forgetHostKeyCommand = defineCommand({
  action: 'import_bucket.forget_host_key',
  objectType: 'import_bucket',
  permission: ADMIN,
  input: z.object({ id: z.string() }),
  run: (tx, actor, { id }) => forgetHostKey(tx, actor, id),
});

/**
 * "Test connection": connects and lists; answers how many importable files it sees (and, for SFTP, the
 * host key fingerprint seen, pinned if none was), or why it failed.
 */
export async function testBucket(
  db: Db,
  tenantId: string,
  id: string,
  options?: TargetOptions,
): Promise<{ ok: boolean; files: number; error: string | null; fingerprint?: string }> {
  const { target } = await targetOf(db, tenantId, id);
  try {
    const conn = await openBucket(target, options);
    try {
      const files = (await conn.list()).length;
      await pinFirstKey(db, tenantId, id, conn.fingerprint);
      return { ok: true, files, error: null, ...(conn.fingerprint ? { fingerprint: conn.fingerprint } : {}) };
    } finally {
      await conn.close();
    }
  } catch (error) {
    return { ok: false, files: 0, error: reasonOf(error) };
  }
}

/**
 * One run of a bucket: lists, imports each new file (all or nothing per file), marks it, and writes the
 * run's history. Files already processed under the same key and hash are not fetched again (S3: by
 * listing tag) and count as skipped; a file whose content was imported before is skipped by its hash.
 */
export async function checkBucket(
  db: Db,
  tenantId: string,
  bucketId: string,
  trigger: 'schedule' | 'manual',
  options?: TargetOptions,
): Promise<BucketRun> {
  const { bucket, target } = await targetOf(db, tenantId, bucketId);
  const [run] = await db.tenant(tenantId, (tx) =>
    tx.query<{ id: string }>(
      `insert into import_bucket_runs (tenant_id, bucket_id, trigger) values ($1, $2, $3) returning id`,
      [tenantId, bucketId, trigger],
    ),
  );
  const actor: Actor = { tenantId, userId: BUCKET_ACTOR_ID, isAdmin: true, kind: 'system' };
  const details: BucketRun['details'] = [];
  const counts = { seen: 0, imported: 0, skipped: 0, failed: 0 };
  let runError: string | null = null;
  try {
    const conn = await openBucket(target, options);
    try {
      const files = await conn.list();
      await pinFirstKey(db, tenantId, bucketId, conn.fingerprint);
      counts.seen = files.length;
      for (const file of files) {
        const known = await db.tenant(tenantId, (tx) =>
          tx.query<{ sha256: string }>(
            `select sha256 from import_bucket_files where bucket_id = $1 and file_key = $2 and outcome <> 'failed'`,
            [bucketId, file.key],
          ),
        );
        if (known.length && target.type === 's3') {
          counts.skipped++;
          continue;
        }
        try {
          const bytes = await conn.read(file);
          const hash = sha256(bytes);
          const [done] = await db.tenant(tenantId, (tx) =>
            tx.query<{ id: string }>(
              `select id from data_imports where kind = $1 and sha256 = $2 and status = 'imported' limit 1`,
              [bucket.kind, hash],
            ),
          );
          const [failedBefore] = await db.tenant(tenantId, (tx) =>
            tx.query(
              `select 1 from import_bucket_files where bucket_id = $1 and file_key = $2 and sha256 = $3 and outcome = 'failed'`,
              [bucketId, file.key, hash],
            ),
          );
          // Unchanged since it was refused: not tried again until someone fixes the file.
          if (failedBefore) {
            counts.skipped++;
            continue;
          }
          let outcome: 'imported' | 'duplicate' | 'failed';
          let importId: string | null = done?.id ?? null;
          let reason: string | undefined;
          if (done) outcome = 'duplicate';
          else {
            const parsed = await parseImportFile(bytes);
            const created = await db.tenant(tenantId, async (tx) => {
              const row = await createImport(tx, actor, {
                kind: bucket.kind,
                fileName: file.name,
                bytes,
                parsed,
                bucketId,
              });
              const mapping = suggestMapping(bucket.kind, parsed.headers, bucket.mapping);
              await tx.query(`update data_imports set mapping = $2::jsonb, mode = 'commit' where id = $1`, [
                row.id,
                JSON.stringify(mapping),
              ]);
              return row;
            });
            importId = created.id;
            const result = await processImport(db, actor, created.id, 'commit');
            outcome = result.status === 'imported' ? 'imported' : 'failed';
            if (outcome === 'failed') {
              const first = result.errors[0];
              reason = first ? `row ${first.row}, ${first.message}` : 'refused';
            }
          }
          await db.tenant(tenantId, (tx) =>
            tx.query(
              `insert into import_bucket_files (tenant_id, bucket_id, file_key, sha256, outcome, import_id)
               values ($1, $2, $3, $4, $5, $6) on conflict (tenant_id, bucket_id, file_key, sha256) do update set outcome = excluded.outcome, import_id = excluded.import_id, processed_at = now()`,
              [tenantId, bucketId, file.key, hash, outcome, importId],
            ),
          );
          if (outcome !== 'failed')
            await conn.markProcessed(file).catch((error) => logger.warn('bucket mark failed', { error }));
          if (outcome === 'imported') counts.imported++;
          else if (outcome === 'duplicate') counts.skipped++;
          else counts.failed++;
          details.push({ file: file.key, outcome, ...(reason ? { reason } : {}), ...(importId ? { importId } : {}) });
        } catch (error) {
          counts.failed++;
          details.push({ file: file.key, outcome: 'failed', reason: reasonOf(error) });
        }
      }
    } finally {
      await conn.close();
    }
  } catch (error) {
    runError = reasonOf(error);
  }
  return db.tenant(tenantId, async (tx) => {
    await tx.query(`update import_buckets set last_run_at = now() where id = $1`, [bucketId]);
    const [row] = await tx.query<BucketRun>(
      `update import_bucket_runs set status = $2, files_seen = $3, files_imported = $4, files_skipped = $5, files_failed = $6,
         details = $7::jsonb, error = $8, finished_at = now() where id = $1 returning *`,
      [
        run.id,
        runError || counts.failed ? 'failed' : 'ok',
        counts.seen,
        counts.imported,
        counts.skipped,
        counts.failed,
        JSON.stringify(details.slice(0, 500)),
        runError,
      ],
    );
    return row;
  });
}

/** How often the scheduler looks at every enabled bucket. */
export const WATCH_EVERY_MINUTES = 5;

export function watchSlot(now: Date): string {
  const minutes = Math.floor(now.getUTCMinutes() / WATCH_EVERY_MINUTES) * WATCH_EVERY_MINUTES;
  return `${now.toISOString().slice(0, 13)}:${String(minutes).padStart(2, '0')}`;
}

/**
 * The scheduler's 5-minute pass: queues one check of every enabled bucket of every active tenant,
 * once per slot (the dedupe key), however many servers run it. Returns how many were queued.
 */
export async function watchBuckets(db: Db, slot: string): Promise<number> {
  const tenants = await db.system((tx) =>
    tx.query<Pick<TenantsRow, 'id'>>(`select id from tenants where is_active order by id`),
  );
  let queued = 0;
  for (const { id: tenantId } of tenants) {
    await db.tenant(tenantId, async (tx) => {
      const buckets = await tx.query<{ id: string }>(`select id from import_buckets where is_enabled`);
      for (const b of buckets) {
        const { isNew } = await enqueueJob(tx, {
          name: BUCKET_CHECK_JOB,
          tenantId,
          payload: { bucketId: b.id, trigger: 'schedule' },
          dedupeKey: `${BUCKET_CHECK_JOB}:${b.id}:${slot}`,
          maxAttempts: 1,
          priority: 150,
        });
        if (isNew) queued++;
      }
    });
  }
  return queued;
}

export function registerBucketJobs(): void {
  registerJobHandler(BUCKETS_WATCH_JOB, async ({ db, payload }) => ({
    queued: await watchBuckets(db, String(payload.slot ?? watchSlot(new Date()))),
  }));
  registerJobHandler(BUCKET_CHECK_JOB, async ({ db, tenantId, payload }) => {
    if (!tenantId) return { skipped: true };
    const run = await checkBucket(
      db,
      tenantId,
      String(payload.bucketId),
      payload.trigger === 'manual' ? 'manual' : 'schedule',
    );
    return { status: run.status, imported: run.files_imported, failed: run.files_failed };
  });
}

export function bucketJson(b: ImportBucket) {
  return {
    id: b.id,
    name: b.name,
    type: b.type,
    kind: b.kind,
    endpoint: b.endpoint,
    region: b.region,
    bucket: b.bucket,
    prefix: b.prefix,
    accessKeyId: b.access_key_id,
    host: b.host,
    port: b.port,
    username: b.username,
    path: b.path,
    mapping: b.mapping,
    isEnabled: b.is_enabled,
    hostKeySha256: b.host_key_sha256,
    lastRunAt: b.last_run_at,
    version: b.version,
  };
}
