import { z } from 'zod';
import type { Db, Tx } from '../db/index.ts';
import type { TargetOptions } from '../net/outbound.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { need } from '../auth/permissions.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import type { Actor } from '../lending/actor.ts';
import {
  createScheduledExport,
  deleteScheduledExport,
  getScheduledExport,
  openTargets,
  pinHostKey,
  updateScheduledExport,
  auditView,
} from './model.ts';
import { requestRunNow } from './run.ts';
import { HostKeyMismatchError, testSftp } from './targets.ts';

/**
 * The writes of scheduled exports, each a command (src/lib/http/command.ts) run by the /v1 endpoints
 * and by the pages' plain forms, all behind admin.scheduled_exports.edit, each audited.
 */

const EDIT = need('admin.scheduled_exports.edit');
const revisionField = z.coerce.number().int().min(1).nullable().default(null);

function recorder(actor: Actor) {
  return (tx: Tx, entry: { action: string; id: string; before?: unknown; after?: unknown }) =>
    recordAudit(tx, {
      tenantId: actor.tenantId,
      actorId: actor.userId,
      action: entry.action,
      objectType: 'scheduled_export',
      objectId: entry.id,
      before: entry.before,
      after: entry.after,
      ip: actor.ip,
      requestId: actor.requestId,
      outcome: 'success',
    }).then(() => undefined);
}

export const createExportCommand = defineCommand({
  action: 'scheduled_export.create',
  objectType: 'scheduled_export',
  permission: EDIT,
  input: z.unknown(),
  run: (tx, actor, input) => createScheduledExport(tx, actor, input, {}, recorder(actor)),
});

export const updateExportCommand = defineCommand({
  action: 'scheduled_export.update',
  objectType: 'scheduled_export',
  permission: EDIT,
  input: z.object({ id: z.string().max(100), revision: revisionField, body: z.unknown() }),
  run: async (tx, actor, { id, revision, body }) => {
    // A PATCH may send only some fields: the rest stay as stored (secrets are kept when left empty).
    const current = await getScheduledExport(tx, id);
    const patch = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const { revision: _r, ...fields } = patch;
    const currentTargets = current.targets;
    const merged = {
      name: current.name,
      source: current.source,
      format: current.format,
      cron: current.cron,
      isEnabled: current.isEnabled,
      targets: {
        downloads: currentTargets.downloads,
        email: currentTargets.email,
        sftp: currentTargets.sftp
          ? {
              host: currentTargets.sftp.host,
              port: currentTargets.sftp.port,
              username: currentTargets.sftp.username,
              directory: currentTargets.sftp.directory,
            }
          : null,
        http: currentTargets.http
          ? {
              url: currentTargets.http.url,
              method: currentTargets.http.method,
              headerName: currentTargets.http.headerName,
            }
          : null,
      },
      alertUserIds: current.alertUserIds,
      alertEmails: current.alertEmails,
      ...fields,
    };
    return updateScheduledExport(tx, actor, id, merged, revision, {}, recorder(actor));
  },
});

export const deleteExportCommand = defineCommand({
  action: 'scheduled_export.delete',
  objectType: 'scheduled_export',
  permission: EDIT,
  input: z.object({ id: z.string().max(100), revision: revisionField }),
  run: async (tx, actor, { id, revision }) => {
    const before = await deleteScheduledExport(tx, id, revision);
    await recorder(actor)(tx, { action: 'scheduled_export.delete', id, before: auditView(before) });
    return before;
  },
});

export const runNowCommand = defineCommand({
  action: 'scheduled_export.run',
  objectType: 'scheduled_export',
  permission: EDIT,
  input: z.object({ id: z.string().max(100) }),
  run: async (tx, actor, { id }) => {
    const run = await requestRunNow(tx, actor.tenantId, id, actor.userId);
    await recorder(actor)(tx, { action: 'scheduled_export.run', id, after: { runId: run.id } });
    return run;
  },
});

/**
 * "Test connection" of the SFTP target, outside any transaction (a slow server must not hold the
 * database): connects through the outbound guard, signs in, opens SFTP, and answers the host key's
 * fingerprint, or a 400 on `targets.sftp.host` saying why it failed (a changed key included).
 */
export async function probeSftp(
  db: Db,
  tenantId: string,
  id: string,
  options: TargetOptions = {},
): Promise<{ fingerprint: string }> {
  const e = await db.tenant(tenantId, (tx) => getScheduledExport(tx, id));
  const sftp = openTargets(e.targets).sftp;
  if (!sftp)
    throw new AppError('BAD_REQUEST', 'targets.sftp: this export has no SFTP target', { field: 'targets.sftp' });
  try {
    return await testSftp(sftp, { ...options, timeoutMs: 10_000 });
  } catch (error) {
    const message =
      error instanceof HostKeyMismatchError ? error.message : `connection failed: ${(error as Error).message}`;
    throw new AppError('BAD_REQUEST', `targets.sftp.host: ${message}`, { field: 'targets.sftp.host' });
  }
}

/**
 * Pins the host key a probe saw (`fingerprint`, from `probeSftp` on the server, never from the
 * browser) when none is pinned: later runs refuse another key. `forget` clears the pin instead (the
 * server's key changed on purpose).
 */
export const sftpKeyCommand = defineCommand({
  action: 'scheduled_export.sftp_test',
  objectType: 'scheduled_export',
  permission: EDIT,
  input: z.object({
    id: z.string().max(100),
    forget: z.boolean().default(false),
    fingerprint: z
      .string()
      .regex(/^SHA256:[A-Za-z0-9+/]{43}$/)
      .nullable()
      .default(null),
  }),
  run: async (tx, actor, { id, forget, fingerprint }) => {
    const e = await getScheduledExport(tx, id);
    if (!e.targets.sftp)
      throw new AppError('BAD_REQUEST', 'targets.sftp: this export has no SFTP target', { field: 'targets.sftp' });
    const pinned = e.targets.sftp.hostKeySha256;
    if (forget) {
      await pinHostKey(tx, id, null);
      await recorder(actor)(tx, { action: 'scheduled_export.sftp_forget_key', id, before: { hostKeySha256: pinned } });
      return { fingerprint: null, pinned: false };
    }
    if (!fingerprint) throw new AppError('BAD_REQUEST', 'fingerprint: required', { field: 'fingerprint' });
    if (!pinned) await pinHostKey(tx, id, fingerprint);
    await recorder(actor)(tx, { action: 'scheduled_export.sftp_test', id, after: { hostKeySha256: fingerprint } });
    return { fingerprint, pinned: true };
  },
});
