import type { Tx } from '../db/index.ts';
import { stringify } from '../http/respond.ts';
import type { AuditLogRow } from '../db/schema.generated.ts';
import { domainEventType } from '../events/catalog.ts';
import { writeDomainEvent } from '../events/outbox.ts';

export type AuditOutcome = 'success' | 'denied' | 'failed';

export type AuditEntry = {
  tenantId: string;
  /** User id, API client id, or 'system' for jobs. */
  actorId: string | null;
  actorKind?: 'user' | 'token' | 'system';
  /** Verb such as 'loan.repay', 'application.approve'. */
  action: string;
  objectType: string;
  objectId?: string | null;
  before?: unknown;
  after?: unknown;
  ip?: string | null;
  requestId?: string | null;
  outcome: AuditOutcome;
  /** Why a denied or failed action did not happen. */
  reason?: string | null;
};

/** Who acted, and from where: the fields every command's audit row takes from its actor. */
export function auditActor(actor: {
  tenantId: string;
  userId: string;
  kind?: 'user' | 'token' | 'system';
  ip?: string | null;
  requestId?: string | null;
}): Pick<AuditEntry, 'tenantId' | 'actorId' | 'actorKind' | 'ip' | 'requestId'> {
  return {
    tenantId: actor.tenantId,
    actorId: actor.userId,
    actorKind: actor.kind ?? 'user',
    ip: actor.ip,
    requestId: actor.requestId,
  };
}

/**
 * Appends one row to the audit trail (security goal 25) inside the caller's transaction, so the row
 * exists exactly when the change it describes does. For refused or failed actions, whose own
 * transaction rolled back, call it in a fresh `db.tenant` transaction. Rows are immutable (trigger).
 * bigint values (money) are stored as decimal strings of minor units.
 *
 * A successful change of a published entity (customer, offer, application, loan, payment, collateral,
 * task, conversation) also writes its domain event here, in the same transaction: the outbox that
 * webhooks and event sinks deliver from (src/lib/events).
 */
export async function recordAudit(tx: Tx, entry: AuditEntry): Promise<string> {
  const toJson = (value: unknown) => (value === undefined || value === null ? null : stringify(value));
  const rows = await tx.query<Pick<AuditLogRow, 'id'>>(
    `insert into audit_log (tenant_id, actor_id, actor_kind, action, object_type, object_id, before, after, ip, request_id, outcome, reason)
     values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11, $12) returning id`,
    [
      entry.tenantId,
      entry.actorId,
      entry.actorKind ?? 'user',
      entry.action,
      entry.objectType,
      entry.objectId ?? null,
      toJson(entry.before),
      toJson(entry.after),
      entry.ip ?? null,
      entry.requestId ?? null,
      entry.outcome,
      entry.reason ?? null,
    ],
  );
  const eventType = entry.outcome === 'success' ? domainEventType(entry.action, entry.objectType) : null;
  if (eventType) {
    await writeDomainEvent(tx, {
      tenantId: entry.tenantId,
      type: eventType,
      objectType: entry.objectType,
      objectId: entry.objectId ?? null,
      actorId: entry.actorId,
      data: {
        object: entry.objectType,
        id: entry.objectId ?? null,
        action: entry.action,
        ...(entry.before === undefined || entry.before === null ? {} : { before: entry.before }),
        ...(entry.after === undefined || entry.after === null ? {} : { after: entry.after }),
      },
    });
  }
  return rows[0].id;
}

/** An `audit_log` row without its tenant; the outcome check constraint narrows one column. */
export type AuditRow = Omit<AuditLogRow, 'tenant_id' | 'outcome'> & { outcome: AuditOutcome };

/** The audit trail of one object, oldest first. */
export async function listAudit(tx: Tx, objectType: string, objectId: string): Promise<AuditRow[]> {
  return tx.query<AuditRow>(
    `select id, occurred_at, actor_id, actor_kind, action, object_type, object_id, before, after, ip, request_id, outcome, reason
       from audit_log where object_type = $1 and object_id = $2 order by occurred_at, id`,
    [objectType, objectId],
  );
}
