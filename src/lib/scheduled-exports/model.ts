import { z } from 'zod';
import type { Tx } from '../db/index.ts';
import type { ScheduledExportRunsRow, ScheduledExportsRow, TenantsRow } from '../db/schema.generated.ts';
import { AppError } from '../errors/app-error.ts';
import { allowedActions } from '../auth/allowed-actions.ts';
import { allows, need } from '../auth/permissions.ts';
import type { Principal } from '../auth/principal.ts';
import { loadUserGrants, principalFromGrants } from '../auth/sessions.ts';
import { assertScopeParamInScope } from '../auth/data-permissions.ts';
import { openSecret, sealSecret } from '../auth/secret-box.ts';
import { checkTargetAddress, type TargetOptions } from '../net/outbound.ts';
import { findList } from '../lists/registry.ts';
import { withCustomColumns } from '../lists/custom-columns.ts';
import { getCustomView, viewState } from '../lists/custom-views.ts';
import { defaultListState, listQuery, parseFilter } from '../lists/url-state.ts';
import { assertMayReadDataset, definitionState, resolveDatasetDef } from '../analytics/datasets.ts';
import { checkDefinition, fileBaseName, getSavedQuery } from '../analytics/queries.ts';
import { EXPORT_FORMATS } from '../exports/write-list-export.ts';
import { checkCron, nextRuns } from './cron.ts';
import { checkSftpAddress, type HttpTarget, type SftpTarget } from './targets.ts';

/**
 * A scheduled export (migration 1030): a source (a list of src/lib/lists/registry.ts, optionally one
 * of its custom views, a tab and filters; or a saved analytics query), a format, a cron schedule in
 * the tenant's time zone, targets (the owner's downloads list, e-mail, SFTP, HTTP) and failure
 * alert recipients. It runs as its owner: whoever saves it last, so a run never reads more than the
 * person who configured it may (an editor cannot borrow someone else's scope). Secrets are sealed and
 * never answered.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuid = z.string().regex(UUID, 'must be an id');
const email = z.email('must be an e-mail address').max(254);

export const sourceSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('list'),
      list: z.string().min(1).max(64),
      viewId: uuid.nullable().default(null),
      tab: z.string().max(64).nullable().default(null),
      filters: z.record(z.string().max(64), z.string().max(200)).default({}),
    })
    .strict(),
  z.object({ kind: z.literal('query'), queryId: uuid }).strict(),
]);
export type ExportSource = z.output<typeof sourceSchema>;

const targetsInputSchema = z
  .object({
    downloads: z.boolean().default(false),
    email: z
      .object({ recipients: z.array(email).min(1, 'at least one recipient').max(20, 'at most 20 recipients') })
      .strict()
      .nullable()
      .default(null),
    sftp: z
      .object({
        host: z.string().max(255),
        port: z.coerce.number().int().min(1).max(65535).default(22),
        username: z.string().trim().min(1, 'a user name is required').max(100),
        /** Empty or absent on an update: keep the stored one. */
        password: z.string().max(1000).nullable().default(null),
        privateKey: z.string().max(16_000).nullable().default(null),
        directory: z.string().trim().max(300).default('.'),
      })
      .strict()
      .nullable()
      .default(null),
    http: z
      .object({
        url: z.string().max(2000),
        method: z.enum(['PUT', 'POST']).default('PUT'),
        headerName: z
          .string()
          .trim()
          .max(100)
          .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]*$/, 'must be a header name such as Authorization')
          .nullable()
          .default(null),
        /** Empty or absent on an update: keep the stored one. */
        headerValue: z.string().max(4000).nullable().default(null),
      })
      .strict()
      .nullable()
      .default(null),
  })
  .strict();

export const exportInputSchema = z
  .object({
    name: z.string().trim().min(1, 'a name is required').max(120, 'at most 120 characters'),
    source: sourceSchema,
    format: z.enum(EXPORT_FORMATS),
    cron: z.string().max(120),
    isEnabled: z.boolean().default(true),
    targets: targetsInputSchema,
    alertUserIds: z.array(uuid).max(20).default([]),
    alertEmails: z.array(email).max(20).default([]),
  })
  .strict();
export type ExportInput = z.input<typeof exportInputSchema>;

/** What is stored in `targets` (secrets sealed). */
export type StoredTargets = {
  downloads: boolean;
  email: { recipients: string[] } | null;
  sftp: {
    host: string;
    port: number;
    username: string;
    password: string | null;
    privateKey: string | null;
    directory: string;
    hostKeySha256: string | null;
  } | null;
  http: { url: string; method: 'PUT' | 'POST'; headerName: string | null; headerValue: string | null } | null;
};

export type ScheduledExport = {
  id: string;
  name: string;
  source: ExportSource;
  format: (typeof EXPORT_FORMATS)[number];
  cron: string;
  isEnabled: boolean;
  targets: StoredTargets;
  alertUserIds: string[];
  alertEmails: string[];
  ownerId: string;
  ownerName: string;
  nextRunAt: Date | null;
  lastScheduledAt: Date | null;
  revision: number;
  createdAt: Date;
  updatedAt: Date;
};

type Row = Omit<ScheduledExportsRow, 'tenant_id' | 'source' | 'targets' | 'format' | 'created_by'> & {
  source: ExportSource;
  targets: StoredTargets;
  format: ScheduledExport['format'];
  owner_name: string | null;
};

const SELECT = `select e.id, e.name, e.source, e.format, e.cron, e.targets, e.alert_user_ids, e.alert_emails, e.is_enabled,
    e.owner_id, u.display_name as owner_name, e.next_run_at, e.last_scheduled_at, e.revision, e.created_at, e.updated_at
  from scheduled_exports e left join users u on u.tenant_id = e.tenant_id and u.id = e.owner_id`;

function toExport(row: Row): ScheduledExport {
  return {
    id: row.id,
    name: row.name,
    source: row.source,
    format: row.format,
    cron: row.cron,
    isEnabled: row.is_enabled,
    targets: row.targets,
    alertUserIds: row.alert_user_ids,
    alertEmails: row.alert_emails,
    ownerId: row.owner_id,
    ownerName: row.owner_name ?? '',
    nextRunAt: row.next_run_at,
    lastScheduledAt: row.last_scheduled_at,
    revision: row.revision,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function notFound(): AppError {
  return new AppError('NOT_FOUND', 'This scheduled export does not exist.', { field: 'id' });
}

export async function tenantTimeZone(tx: Tx, tenantId: string): Promise<string> {
  const [row] = await tx.query<Pick<TenantsRow, 'time_zone'>>('select time_zone from tenants where id = $1', [
    tenantId,
  ]);
  return row?.time_zone || 'UTC';
}

export async function getScheduledExport(tx: Tx, id: string): Promise<ScheduledExport> {
  if (!UUID.test(id)) throw notFound();
  const [row] = await tx.query<Row>(`${SELECT} where e.id = $1`, [id]);
  if (!row) throw notFound();
  return toExport(row);
}

export async function listScheduledExports(tx: Tx): Promise<ScheduledExport[]> {
  const rows = await tx.query<Row>(`${SELECT} order by lower(e.name), e.id limit 500`);
  return rows.map(toExport);
}

/** A user as the permission check and the lists see them, read from the database (jobs, saves). */
export async function subjectOf(tx: Tx, tenantId: string, userId: string): Promise<Principal> {
  const grants = await loadUserGrants(tx, tenantId, userId);
  if (!grants || !grants.is_active)
    throw new AppError('FORBIDDEN', 'The owner of this export is no longer an active user.', { field: 'owner' });
  return principalFromGrants(tenantId, grants, 'token', null);
}

/** What a source exports: a dataset name and the list page's query string, and a file name part. */
export type ResolvedSource = { list: string; query: string; fileBase: string };

/**
 * Checks a source against what `subject` may export and turns it into what the export job reads.
 * Run when the export is saved (by the saver, who becomes the owner) and again at each run (by the
 * owner, whose permissions and data scope may have changed since): a list needs its page's rule, a
 * query needs its dataset's list and analytics.list_export.export_query. Errors name the field.
 */
export async function resolveSource(tx: Tx, subject: Principal, source: ExportSource): Promise<ResolvedSource> {
  const language = subject.language || 'en';
  if (source.kind === 'list') {
    const entry = findList(source.list);
    const registered = resolveDatasetDef(source.list);
    if (!entry || !registered)
      throw new AppError('BAD_REQUEST', `source.list: unknown list ${source.list}`, { field: 'source.list' });
    if (!allowedActions(subject, 'list', entry).export)
      throw new AppError('FORBIDDEN', `${subject.displayName} may not export the ${source.list} list.`, {
        field: 'source.list',
      });
    const def = await withCustomColumns(tx, registered, language);
    let state = defaultListState(def);
    if (source.viewId) {
      const view = await getCustomView(
        tx,
        { tenantId: subject.tenantId, userId: subject.userId },
        source.list,
        source.viewId,
      ).catch(() => {
        throw new AppError('BAD_REQUEST', 'source.viewId: this view does not exist or is not shared', {
          field: 'source.viewId',
        });
      });
      state = viewState(def, view);
    }
    if (source.tab) {
      if (!def.tabs.some((t) => t.name === source.tab))
        throw new AppError('BAD_REQUEST', `source.tab: unknown tab ${source.tab}`, { field: 'source.tab' });
      state.tab = source.tab;
    }
    for (const [key, value] of Object.entries(source.filters)) {
      const filter = parseFilter(def, key, value);
      if (!filter)
        throw new AppError('BAD_REQUEST', `source.filters.${key}: unknown column or invalid value`, {
          field: `source.filters.${key}`,
        });
      state.filters[key] = filter;
    }
    state.view = null;
    return { list: source.list, query: listQuery(def, state), fileBase: entry.fileBaseName };
  }
  const saved = await getSavedQuery(tx, source.queryId).catch(() => {
    throw new AppError('BAD_REQUEST', 'source.queryId: this query does not exist', { field: 'source.queryId' });
  });
  const { definition, dataset } = await checkDefinition(tx, saved.definition, language);
  assertMayReadDataset(subject, dataset.name, 'source.queryId');
  if (!allows(subject, need('analytics.list_export.export_query')))
    throw new AppError('FORBIDDEN', `${subject.displayName} may not export queries.`, { field: 'source.queryId' });
  const state = definitionState(dataset.def, definition);
  await assertScopeParamInScope(tx, { ...subject, language }, state.scope);
  return { list: dataset.name, query: listQuery(dataset.def, state), fileBase: fileBaseName(saved.name) };
}

function bad(field: string, message: string): AppError {
  return new AppError('BAD_REQUEST', `${field}: ${message}`, { field });
}

/** Checks and seals the targets; `previous` keeps secrets left empty on an update. */
async function storeTargets(
  input: z.output<typeof targetsInputSchema>,
  previous: StoredTargets | null,
  options: TargetOptions,
): Promise<StoredTargets> {
  const out: StoredTargets = { downloads: input.downloads, email: input.email, sftp: null, http: null };
  if (input.sftp) {
    const s = input.sftp;
    const host = await checkSftpAddress(s.host, 'targets.sftp.host', options);
    const prev = previous?.sftp ?? null;
    const password = s.password ? sealSecret(s.password) : null;
    const privateKey = s.privateKey?.trim() ? sealSecret(s.privateKey.trim() + '\n') : null;
    // A stored password or key is only ever sent again to the server it was typed for: a new host or
    // port (or user name) without it typed again would hand it to whatever server the editor names.
    const sameAccount = prev && prev.host === host && prev.port === s.port && prev.username === s.username;
    const keep = !password && !privateKey && sameAccount ? prev : null;
    if (!password && !privateKey && !keep)
      throw bad(
        'targets.sftp.password',
        prev
          ? 'type the password or private key again: the server or user name changed'
          : 'a password or a private key is required',
      );
    if (s.directory.split('/').some((part) => part === '..'))
      throw bad('targets.sftp.directory', 'must not contain ..');
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
    if (/[\u0000-\u001f]/.test(s.directory)) throw bad('targets.sftp.directory', 'must not contain control characters');
    const sameServer = prev && prev.host === host && prev.port === s.port;
    out.sftp = {
      host,
      port: s.port,
      username: s.username,
      password: keep ? keep.password : password,
      privateKey: keep ? keep.privateKey : privateKey,
      directory: s.directory || '.',
      // A pinned key stays pinned for the same server; another server is pinned again by "test connection".
      hostKeySha256: sameServer ? prev.hostKeySha256 : null,
    };
  }
  if (input.http) {
    const h = input.http;
    const url = await checkTargetAddress(h.url, 'targets.http.url', ['https:', 'http:'], options);
    const prev = previous?.http ?? null;
    // The stored header value (a token) only goes again to the origin it was typed for.
    const sameOrigin = prev !== null && new URL(prev.url).origin === url.origin;
    const headerValue = h.headerValue
      ? sealSecret(h.headerValue)
      : h.headerName && prev?.headerName && sameOrigin
        ? prev.headerValue
        : null;
    if (h.headerName && !headerValue)
      throw bad(
        'targets.http.headerValue',
        prev?.headerValue && !sameOrigin
          ? 'type the header value again: the address changed'
          : 'a value is required with a header name',
      );
    out.http = {
      url: url.toString(),
      method: h.method,
      headerName: h.headerName || null,
      headerValue: h.headerName ? headerValue : null,
    };
  }
  if (!out.downloads && !out.email && !out.sftp && !out.http)
    throw bad('targets', 'choose at least one target: the downloads list, e-mail, SFTP or HTTP');
  return out;
}

async function checkAlertUsers(tx: Tx, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const rows = await tx.query<{ id: string }>(
    'select id::text as id from users where id = any($1::uuid[]) and is_active',
    [unique],
  );
  const found = new Set(rows.map((r) => r.id));
  const missing = unique.findIndex((id) => !found.has(id));
  if (missing >= 0) throw bad(`alertUserIds.${missing}`, 'not an active user of this lender');
  return unique;
}

export type SaveActor = { tenantId: string; userId: string; ip?: string | null; requestId?: string | null };

/** The row's values from an input: everything checked, the saver's right to export the source included. */
async function prepare(
  tx: Tx,
  actor: SaveActor,
  raw: unknown,
  previous: ScheduledExport | null,
  options: TargetOptions,
) {
  const parsed = exportInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join('.') || 'body';
    throw bad(field, issue.message);
  }
  const input = parsed.data;
  const timeZone = await tenantTimeZone(tx, actor.tenantId);
  const cron = checkCron(input.cron, timeZone);
  const saver = await subjectOf(tx, actor.tenantId, actor.userId);
  await resolveSource(tx, saver, input.source);
  const targets = await storeTargets(input.targets, previous?.targets ?? null, options);
  const alertUserIds = await checkAlertUsers(tx, input.alertUserIds);
  const next = input.isEnabled ? (nextRuns(cron, timeZone, 1)[0] ?? null) : null;
  return { input, cron, targets, alertUserIds, alertEmails: [...new Set(input.alertEmails)], next };
}

function duplicate(error: unknown): never {
  if ((error as { code?: string })?.code === '23505')
    throw new AppError('ALREADY_EXISTS', 'name: a scheduled export with this name already exists', { field: 'name' });
  throw error;
}

/** The stored export as the audit trail records it: no secret, sealed or not. */
export function auditView(e: ScheduledExport) {
  return exportJson(e, []);
}

export async function createScheduledExport(
  tx: Tx,
  actor: SaveActor,
  raw: unknown,
  options: TargetOptions = {},
  record: (
    tx: Tx,
    entry: { action: string; id: string; before?: unknown; after?: unknown },
  ) => Promise<void> = async () => {},
): Promise<ScheduledExport> {
  const v = await prepare(tx, actor, raw, null, options);
  const [row] = await tx
    .query<{ id: string }>(
      `insert into scheduled_exports (tenant_id, name, source, format, cron, targets, alert_user_ids, alert_emails, is_enabled,
         owner_id, created_by, next_run_at)
       values ($1, $2, $3::jsonb, $4, $5, $6::jsonb, $7::uuid[], $8::text[], $9, $10, $10, $11) returning id::text as id`,
      [
        actor.tenantId,
        v.input.name,
        JSON.stringify(v.input.source),
        v.input.format,
        v.cron,
        JSON.stringify(v.targets),
        v.alertUserIds,
        v.alertEmails,
        v.input.isEnabled,
        actor.userId,
        v.next,
      ],
    )
    .catch(duplicate);
  const created = await getScheduledExport(tx, row!.id);
  await record(tx, { action: 'scheduled_export.create', id: created.id, after: auditView(created) });
  return created;
}

function stale(current: ScheduledExport): AppError {
  return new AppError(
    'CONFLICT',
    'revision: this export was changed by someone else since you opened it; reload it and make your change again.',
    { field: 'revision', details: { revision: current.revision } },
  );
}

export async function updateScheduledExport(
  tx: Tx,
  actor: SaveActor,
  id: string,
  raw: unknown,
  revision: number | null,
  options: TargetOptions = {},
  record: (
    tx: Tx,
    entry: { action: string; id: string; before?: unknown; after?: unknown },
  ) => Promise<void> = async () => {},
): Promise<ScheduledExport> {
  const before = await getScheduledExport(tx, id);
  const v = await prepare(tx, actor, raw, before, options);
  const rows = await tx
    .query(
      `update scheduled_exports set name = $2, source = $3::jsonb, format = $4, cron = $5, targets = $6::jsonb,
         alert_user_ids = $7::uuid[], alert_emails = $8::text[], is_enabled = $9, owner_id = $10, next_run_at = $11,
         revision = revision + 1, updated_at = now()
       where id = $1 and ($12::int is null or revision = $12::int) returning id`,
      [
        id,
        v.input.name,
        JSON.stringify(v.input.source),
        v.input.format,
        v.cron,
        JSON.stringify(v.targets),
        v.alertUserIds,
        v.alertEmails,
        v.input.isEnabled,
        actor.userId,
        v.next,
        revision,
      ],
    )
    .catch(duplicate);
  if (!rows.length) throw stale(before);
  const after = await getScheduledExport(tx, id);
  await record(tx, { action: 'scheduled_export.update', id, before: auditView(before), after: auditView(after) });
  return after;
}

export async function deleteScheduledExport(tx: Tx, id: string, revision: number | null): Promise<ScheduledExport> {
  const before = await getScheduledExport(tx, id);
  const rows = await tx.query(
    'delete from scheduled_exports where id = $1 and ($2::int is null or revision = $2::int) returning id',
    [id, revision],
  );
  if (!rows.length) throw stale(before);
  return before;
}

/** Stores the host key fingerprint seen by "test connection" (pinning). */
export async function pinHostKey(tx: Tx, id: string, fingerprint: string | null): Promise<void> {
  await tx.query(
    `update scheduled_exports set targets = jsonb_set(targets, '{sftp,hostKeySha256}', to_jsonb($2::text)),
       revision = revision + 1, updated_at = now()
     where id = $1 and targets -> 'sftp' <> 'null'::jsonb`,
    [id, fingerprint],
  );
}

/** The plain SFTP and HTTP targets for a delivery (secrets opened here, never elsewhere). */
export function openTargets(t: StoredTargets): { sftp: SftpTarget | null; http: HttpTarget | null } {
  return {
    sftp: t.sftp
      ? {
          host: t.sftp.host,
          port: t.sftp.port,
          username: t.sftp.username,
          password: t.sftp.password ? openSecret(t.sftp.password) : null,
          privateKey: t.sftp.privateKey ? openSecret(t.sftp.privateKey) : null,
          directory: t.sftp.directory,
          hostKeySha256: t.sftp.hostKeySha256,
        }
      : null,
    http: t.http
      ? {
          url: t.http.url,
          method: t.http.method,
          headerName: t.http.headerName,
          headerValue: t.http.headerValue ? openSecret(t.http.headerValue) : null,
        }
      : null,
  };
}

// ── Runs ──

export type RunStatus = 'queued' | 'running' | 'retrying' | 'succeeded' | 'failed';
export type TargetName = 'downloads' | 'email' | 'sftp' | 'http';
export type RunTargets = Partial<
  Record<
    TargetName,
    { status: 'ok' | 'failed'; isTransient: boolean; error: string | null; detail: string | null; at: string }
  >
>;

export type ExportRun = {
  id: string;
  exportId: string;
  trigger: 'schedule' | 'manual';
  scheduledFor: Date;
  status: RunStatus;
  requestedBy: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  attempts: number;
  rows: number | null;
  bytes: bigint | null;
  fileName: string | null;
  filePath: string | null;
  downloadId: string | null;
  targets: RunTargets;
  error: string | null;
  createdAt: Date;
};

type RunRow = Omit<ScheduledExportRunsRow, 'tenant_id' | 'status' | 'trigger' | 'targets'> & {
  status: RunStatus;
  trigger: ExportRun['trigger'];
  targets: RunTargets;
};

export const RUN_COLUMNS = `id, export_id, trigger, scheduled_for, status, requested_by, started_at, finished_at, attempts, rows, bytes,
  file_name, file_path, download_id, targets, error, created_at`;

export function toRun(r: RunRow): ExportRun {
  return {
    id: r.id,
    exportId: r.export_id,
    trigger: r.trigger,
    scheduledFor: r.scheduled_for,
    status: r.status,
    requestedBy: r.requested_by,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    attempts: r.attempts,
    rows: r.rows,
    bytes: r.bytes,
    fileName: r.file_name,
    filePath: r.file_path,
    downloadId: r.download_id,
    targets: r.targets ?? {},
    error: r.error,
    createdAt: r.created_at,
  };
}

export async function getRun(tx: Tx, id: string): Promise<ExportRun | null> {
  if (!UUID.test(id)) return null;
  const [row] = await tx.query<RunRow>(`select ${RUN_COLUMNS} from scheduled_export_runs where id = $1`, [id]);
  return row ? toRun(row) : null;
}

export async function listRuns(tx: Tx, exportId: string, limit = 50): Promise<ExportRun[]> {
  const rows = await tx.query<RunRow>(
    `select ${RUN_COLUMNS} from scheduled_export_runs where export_id = $1 order by created_at desc, id limit $2`,
    [exportId, Math.min(Math.max(limit, 1), 200)],
  );
  return rows.map(toRun);
}

/** The latest run of each export (the list page's "last run" column). */
export async function latestRuns(tx: Tx): Promise<Map<string, ExportRun>> {
  const rows = await tx.query<RunRow>(
    `select distinct on (export_id) ${RUN_COLUMNS} from scheduled_export_runs order by export_id, created_at desc, id`,
  );
  return new Map(rows.map((r) => [r.export_id, toRun(r)]));
}

export function runJson(r: ExportRun) {
  return {
    id: r.id,
    exportId: r.exportId,
    trigger: r.trigger,
    scheduledFor: r.scheduledFor.toISOString(),
    status: r.status,
    startedAt: r.startedAt?.toISOString() ?? null,
    finishedAt: r.finishedAt?.toISOString() ?? null,
    attempts: r.attempts,
    rows: r.rows,
    bytes: r.bytes === null ? null : Number(r.bytes),
    fileName: r.fileName,
    downloadId: r.downloadId,
    targets: r.targets,
    error: r.error,
  };
}

/** The JSON of an export: no secret, only whether one is stored. */
export function exportJson(e: ScheduledExport, next: Date[], lastRun?: ExportRun | null) {
  const t = e.targets;
  return {
    id: e.id,
    name: e.name,
    source: e.source,
    format: e.format,
    cron: e.cron,
    nextRuns: next.map((d) => d.toISOString()),
    nextRunAt: e.isEnabled ? (e.nextRunAt?.toISOString() ?? null) : null,
    isEnabled: e.isEnabled,
    targets: {
      downloads: t.downloads,
      email: t.email,
      sftp: t.sftp
        ? {
            host: t.sftp.host,
            port: t.sftp.port,
            username: t.sftp.username,
            auth: t.sftp.privateKey ? 'key' : 'password',
            directory: t.sftp.directory,
            hostKeySha256: t.sftp.hostKeySha256,
          }
        : null,
      http: t.http
        ? {
            url: t.http.url,
            method: t.http.method,
            headerName: t.http.headerName,
            hasHeaderValue: Boolean(t.http.headerValue),
          }
        : null,
    },
    alertUserIds: e.alertUserIds,
    alertEmails: e.alertEmails,
    ownerId: e.ownerId,
    ownerName: e.ownerName,
    revision: e.revision,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
    ...(lastRun !== undefined ? { lastRun: lastRun ? runJson(lastRun) : null } : {}),
  };
}
