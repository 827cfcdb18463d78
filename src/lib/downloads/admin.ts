import fs from 'node:fs';
import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { scopeNodesFor, type ScopeHolder } from '../auth/data-permissions.ts';
import { need } from '../auth/permissions.ts';
import type { Db, Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import type { DownloadsRow, TenantsRow, UsersRow } from '../db/schema.generated.ts';
import { filePath, toDownloadJson, type Download, type DownloadStatus } from './downloads.ts';

/**
 * The administrators' view of every generated file of the tenant (admin > platform > downloads,
 * permission admin.downloads.view): list with filters and paging, one file's detail, its bytes for an
 * administrator (GET /v1/admin/downloads/{id}/file), deletion (admin.downloads.delete, audited), and
 * the expiry every file has (migration 0540: 30 days after it was made), applied by the daily
 * `downloads.expire` job registered in src/lib/jobs/runtime.ts.
 *
 * Data permissions: a file may hold any branch's data, so the tenant-wide view (list, detail, bytes,
 * delete) is for viewers whose data scope is the whole tenant (administrators, users without data
 * permissions). A viewer restricted to part of the hierarchy sees and deletes only the files they
 * made themselves; another user's file answers the same 404 as an unknown one (no probing).
 */
export const DOWNLOAD_STATUSES: readonly DownloadStatus[] = ['queued', 'running', 'done', 'failed'];

export type TenantDownload = Download & { userName: string | null; userEmail: string | null };

type Row = Omit<DownloadsRow, 'tenant_id' | 'status'> & { status: DownloadStatus } & {
  user_name: UsersRow['display_name'] | null;
  user_email: UsersRow['email'] | null;
};

const COLUMNS = `d.id, d.user_id, d.kind, d.file_name, d.content_type, d.status, d.progress, d.size_bytes, d.error,
  d.created_at, d.updated_at, d.completed_at, d.expires_at, u.display_name as user_name, u.email as user_email`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toTenantDownload(r: Row): TenantDownload {
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
    userName: r.user_name,
    userEmail: r.user_email,
  };
}

/** Who looks at the files: the Principal and the lending Actor both fit. */
export type DownloadViewer = ScopeHolder & { userId: string };

/** The one owner a viewer is limited to, or null when their data scope is the whole tenant. */
export async function downloadOwnerLimit(tx: Tx, viewer: DownloadViewer): Promise<string | null> {
  return (await scopeNodesFor(tx, viewer)) === null ? null : viewer.userId;
}

export type DownloadFilter = { userId?: string; kind?: string; status?: string; page: number; pageSize: number };

export async function listTenantDownloads(
  tx: Tx,
  viewer: DownloadViewer,
  filter: DownloadFilter,
): Promise<{ items: TenantDownload[]; total: number; page: number; pages: number; ownOnly: boolean }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const owner = await downloadOwnerLimit(tx, viewer);
  if (owner) where.push(`d.user_id = $${params.push(owner)}`);
  if (filter.userId && UUID.test(filter.userId)) where.push(`d.user_id = $${params.push(filter.userId)}`);
  if (filter.kind) where.push(`d.kind = $${params.push(filter.kind)}`);
  if (filter.status) where.push(`d.status = $${params.push(filter.status)}`);
  const clause = where.length ? `where ${where.join(' and ')}` : '';
  const [{ total }] = await tx.query<{ total: number }>(
    `select count(*)::int as total from downloads d ${clause}`,
    params,
  );
  const pages = Math.max(1, Math.ceil(total / filter.pageSize));
  const page = Math.min(Math.max(1, filter.page), pages);
  const rows = await tx.query<Row>(
    `select ${COLUMNS} from downloads d left join users u on u.tenant_id = d.tenant_id and u.id = d.user_id
      ${clause} order by d.created_at desc, d.id limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, filter.pageSize, (page - 1) * filter.pageSize],
  );
  return { items: rows.map(toTenantDownload), total, page, pages, ownOnly: owner !== null };
}

/** The users and kinds that have files, for the list's filters. */
export async function downloadFilterOptions(
  tx: Tx,
  viewer: DownloadViewer,
): Promise<{ users: { id: string; name: string }[]; kinds: string[] }> {
  const owner = await downloadOwnerLimit(tx, viewer);
  const mine = owner ? 'where d.user_id = $1' : '';
  const params = owner ? [owner] : [];
  const users = await tx.query<{ id: string; name: string }>(
    `select distinct u.id::text as id, u.display_name as name from downloads d
       join users u on u.tenant_id = d.tenant_id and u.id = d.user_id ${mine} order by name`,
    params,
  );
  const kinds = await tx.query<Pick<DownloadsRow, 'kind'>>(
    `select distinct kind from downloads d ${mine} order by kind`,
    params,
  );
  return { users, kinds: kinds.map((k) => k.kind) };
}

/** One file of the tenant the viewer may see; an unknown or malformed id, or a file out of their view, is NOT_FOUND. */
export async function getTenantDownload(tx: Tx, id: string, viewer: DownloadViewer): Promise<TenantDownload> {
  if (!UUID.test(id)) throw new AppError('NOT_FOUND', 'This download does not exist.', { field: 'id' });
  const owner = await downloadOwnerLimit(tx, viewer);
  const [row] = await tx.query<Row>(
    `select ${COLUMNS} from downloads d left join users u on u.tenant_id = d.tenant_id and u.id = d.user_id
      where d.id = $1 ${owner ? 'and d.user_id = $2' : ''}`,
    owner ? [id, owner] : [id],
  );
  if (!row) throw new AppError('NOT_FOUND', 'This download does not exist.', { field: 'id' });
  return toTenantDownload(row);
}

/** The bytes of a finished file the viewer may see (the route's rule: admin.downloads.view; the viewer's data scope). */
export async function openTenantDownload(
  db: Db,
  args: { tenantId: string; id: string; dataDir: string; viewer: DownloadViewer },
): Promise<{ download: TenantDownload; path: string }> {
  const download = await db.tenant(args.tenantId, (tx) => getTenantDownload(tx, args.id, args.viewer));
  if (download.status !== 'done') throw new AppError('CONFLICT', 'This file is not ready yet.', { field: 'status' });
  const target = filePath(args.dataDir, args.tenantId, args.id);
  if (!fs.existsSync(target))
    throw new AppError('NOT_FOUND', 'The file of this download is no longer available.', { field: 'id' });
  return { download, path: target };
}

export function tenantDownloadJson(d: TenantDownload) {
  return {
    ...toDownloadJson(d),
    user_id: d.userId,
    user_name: d.userName,
    href: d.status === 'done' ? `/v1/admin/downloads/${d.id}/file` : null,
  };
}

function removeFile(dataDir: string, tenantId: string, id: string): void {
  try {
    fs.rmSync(filePath(dataDir, tenantId, id), { force: true });
  } catch {
    // A file already gone is what we wanted.
  }
}

/**
 * Deletes a file of the tenant: the row (audited, with what it was), then its bytes. Should the
 * transaction still fail after the bytes went, the row stays and its download answers "no longer
 * available": never a file that nobody can see nor delete.
 */
export function deleteDownloadCommand(dataDir: string) {
  return defineCommand({
    action: 'download.delete',
    objectType: 'download',
    permission: need('admin.downloads.delete'),
    input: z.object({ id: z.string() }),
    async run(tx, actor, input) {
      const before = await getTenantDownload(tx, input.id, actor);
      await tx.query('delete from downloads where id = $1', [input.id]);
      await recordAudit(tx, {
        ...auditActor(actor),
        action: 'download.delete',
        objectType: 'download',
        objectId: input.id,
        before: {
          fileName: before.fileName,
          kind: before.kind,
          userId: before.userId,
          status: before.status,
          sizeBytes: before.sizeBytes,
          createdAt: before.createdAt,
        },
        after: null,
        outcome: 'success',
      });
      removeFile(dataDir, actor.tenantId, input.id);
      return { deleted: true, id: input.id };
    },
  });
}

/** Deletes the expired files of every tenant (rows and bytes). Returns how many went. */
export async function expireDownloads(db: Db, dataDir: string, now = new Date()): Promise<number> {
  const tenants = await db.system((tx) => tx.query<Pick<TenantsRow, 'id'>>('select id from tenants order by id'));
  let removed = 0;
  for (const { id: tenantId } of tenants) {
    const gone = await db.tenant(tenantId, (tx) =>
      tx.query<Pick<DownloadsRow, 'id'>>('delete from downloads where expires_at <= $1 returning id', [now]),
    );
    for (const { id } of gone) removeFile(dataDir, tenantId, id);
    removed += gone.length;
  }
  return removed;
}
