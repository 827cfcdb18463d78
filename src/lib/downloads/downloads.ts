import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors/app-error.ts';
import type { Db, Tx } from '../db/index.ts';
import type { DownloadsRow } from '../db/schema.generated.ts';

/**
 * Files generated for one user (exports, reports). The row says who may fetch the file and how far
 * along it is; the bytes live under `<dataDir>/downloads/<tenant>/<id>`. A producer (the export job)
 * calls createDownload → updateDownloadProgress… → completeDownload (or failDownload). Every read is
 * scoped to the tenant AND the user: another user of the same lender cannot list or fetch it.
 */
export type DownloadStatus = 'queued' | 'running' | 'done' | 'failed';

export type Download = {
  id: string;
  userId: string;
  kind: string;
  fileName: string;
  contentType: string;
  status: DownloadStatus;
  /** 0..100 */
  progress: number;
  sizeBytes: bigint | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  /** When the file is deleted by the daily `downloads.expire` job (migration 0540). */
  expiresAt: Date;
};

/** A `downloads` row as COLUMNS reads it (no tenant); the status check constraint narrows one column. */
type Row = Omit<DownloadsRow, 'tenant_id' | 'status'> & { status: DownloadStatus };

const COLUMNS =
  'id, user_id, kind, file_name, content_type, status, progress, size_bytes, error, created_at, updated_at, completed_at, expires_at';

function toDownload(r: Row): Download {
  return {
    id: r.id,
    userId: r.user_id,
    kind: r.kind,
    fileName: r.file_name,
    contentType: r.content_type,
    status: r.status,
    progress: r.progress,
    sizeBytes: r.size_bytes,
    error: r.error,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at,
    expiresAt: r.expires_at,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** File names end up in Content-Disposition and on disk listings: keep them plain. */
export function safeFileName(name: string): string {
  const cleaned = name
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex -- control characters are exactly what this replaces
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, '_')
    .replace(/^\.+/, '')
    .trim()
    .slice(0, 200);
  if (!cleaned) throw new AppError('BAD_REQUEST', 'fileName: a file name is required.', { field: 'fileName' });
  return cleaned;
}

export function downloadsRoot(dataDir: string): string {
  return path.join(dataDir, 'downloads');
}

export function filePath(dataDir: string, tenantId: string, id: string): string {
  // Tenant ids and download ids are ours (uuid / slug-like), but never trust them for a path.
  if (!UUID.test(id) || !/^[\w-]+$/.test(tenantId))
    throw new AppError('BAD_REQUEST', 'Invalid download id.', { field: 'id' });
  return path.join(downloadsRoot(dataDir), tenantId, id);
}

async function one(tx: Tx, id: string): Promise<Row> {
  const [row] = await tx.query<Row>(`select ${COLUMNS} from downloads where id = $1`, [id]);
  if (!row) throw new AppError('NOT_FOUND', 'This download does not exist.', { field: 'id' });
  return row;
}

export async function createDownload(
  db: Db,
  args: { tenantId: string; userId: string; kind: string; fileName: string; contentType?: string },
): Promise<Download> {
  const fileName = safeFileName(args.fileName);
  if (!args.kind.trim())
    throw new AppError('BAD_REQUEST', 'kind: what produces the file is required.', { field: 'kind' });
  const [row] = await db.tenant(args.tenantId, (tx) =>
    tx.query<Row>(
      `insert into downloads (tenant_id, user_id, kind, file_name, content_type) values ($1, $2, $3, $4, $5) returning ${COLUMNS}`,
      [args.tenantId, args.userId, args.kind, fileName, args.contentType ?? 'application/octet-stream'],
    ),
  );
  return toDownload(row);
}

/** Moves a queued or running download to running with the given progress (clamped to 0..99: 100 means done). */
export async function updateDownloadProgress(
  db: Db,
  args: { tenantId: string; id: string; progress: number },
): Promise<Download> {
  if (!Number.isFinite(args.progress))
    throw new AppError('BAD_REQUEST', 'progress: must be a number between 0 and 100.', { field: 'progress' });
  const progress = Math.min(99, Math.max(0, Math.floor(args.progress)));
  return db.tenant(args.tenantId, async (tx) => {
    const current = await one(tx, args.id);
    if (current.status === 'done' || current.status === 'failed') {
      throw new AppError('CONFLICT', `This download is already ${current.status}.`, { field: 'status' });
    }
    const [row] = await tx.query<Row>(
      `update downloads set status = 'running', progress = greatest(progress, $2), updated_at = now() where id = $1 returning ${COLUMNS}`,
      [args.id, progress],
    );
    return toDownload(row);
  });
}

/**
 * Stores the file's bytes and marks the download done. The file is written to a temporary name and
 * renamed, so a reader never sees half a file, and the row only says 'done' once the file is there.
 */
export async function completeDownload(
  db: Db,
  args: { tenantId: string; id: string; dataDir: string; content: Uint8Array | string },
): Promise<Download> {
  const target = filePath(args.dataDir, args.tenantId, args.id);
  return db.tenant(args.tenantId, async (tx) => {
    const current = await one(tx, args.id);
    if (current.status === 'done' || current.status === 'failed') {
      throw new AppError('CONFLICT', `This download is already ${current.status}.`, { field: 'status' });
    }
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const temp = `${target}.${process.pid}.tmp`;
    fs.writeFileSync(temp, args.content);
    fs.renameSync(temp, target);
    const size = BigInt(fs.statSync(target).size);
    const [row] = await tx.query<Row>(
      `update downloads set status = 'done', progress = 100, size_bytes = $2, error = null, updated_at = now(), completed_at = now()
        where id = $1 returning ${COLUMNS}`,
      [args.id, size],
    );
    return toDownload(row);
  });
}

export async function failDownload(db: Db, args: { tenantId: string; id: string; error: string }): Promise<Download> {
  return db.tenant(args.tenantId, async (tx) => {
    await one(tx, args.id);
    const [row] = await tx.query<Row>(
      `update downloads set status = 'failed', error = $2, updated_at = now(), completed_at = now() where id = $1 returning ${COLUMNS}`,
      [args.id, args.error.slice(0, 1000)],
    );
    return toDownload(row);
  });
}

/** The user's own downloads, newest first. */
export async function listDownloads(
  db: Db,
  args: { tenantId: string; userId: string; limit?: number },
): Promise<Download[]> {
  const limit = Math.min(Math.max(args.limit ?? 100, 1), 500);
  const rows = await db.tenant(args.tenantId, (tx) =>
    tx.query<Row>(`select ${COLUMNS} from downloads where user_id = $1 order by created_at desc, id limit $2`, [
      args.userId,
      limit,
    ]),
  );
  return rows.map(toDownload);
}

/**
 * The file of a finished download, for its owner only. Someone else's id answers NOT_FOUND, the
 * same as an id that does not exist, so ids cannot be probed.
 */
export async function openDownload(
  db: Db,
  args: { tenantId: string; userId: string; id: string; dataDir: string },
): Promise<{ download: Download; path: string }> {
  if (!UUID.test(args.id)) throw new AppError('NOT_FOUND', 'This download does not exist.', { field: 'id' });
  const rows = await db.tenant(args.tenantId, (tx) =>
    tx.query<Row>(`select ${COLUMNS} from downloads where id = $1 and user_id = $2`, [args.id, args.userId]),
  );
  if (!rows[0]) throw new AppError('NOT_FOUND', 'This download does not exist.', { field: 'id' });
  const download = toDownload(rows[0]);
  if (download.status !== 'done') throw new AppError('CONFLICT', 'This file is not ready yet.', { field: 'status' });
  const target = filePath(args.dataDir, args.tenantId, args.id);
  if (!fs.existsSync(target))
    throw new AppError('NOT_FOUND', 'The file of this download is no longer available.', { field: 'id' });
  return { download, path: target };
}

/** The JSON shape of a download for the API and the downloads list island (href only when ready). */
export function toDownloadJson(d: Download) {
  return {
    id: d.id,
    kind: d.kind,
    file_name: d.fileName,
    content_type: d.contentType,
    status: d.status,
    progress: d.progress,
    size_bytes: d.sizeBytes === null ? null : d.sizeBytes.toString(),
    error: d.error,
    created_at: d.createdAt.toISOString(),
    completed_at: d.completedAt?.toISOString() ?? null,
    expires_at: d.expiresAt.toISOString(),
    href: d.status === 'done' ? `/v1/downloads/${d.id}/file` : null,
  };
}
