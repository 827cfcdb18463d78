/**
 * Webhook endpoints (/admin/notifications/webhooks, /v1/webhooks): the queries and the commands that
 * add, change, delete, rotate the secret of, test and resend. Design: README.md next to this file.
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { openSecret, sealSecret } from '../auth/secret-box.ts';
import { need } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import type { WebhookEndpointsRow } from '../db/schema.generated.ts';
import { AppError } from '../errors/app-error.ts';
import { EVENT_AREAS, EVENT_TYPES } from '../events/catalog.ts';
import { defineCommand } from '../http/command.ts';
import { checkTargetAddress } from '../net/outbound.ts';
import { enqueueSend, moveCursorToTail } from './dispatch.ts';

export const TEST_EVENT_TYPE = 'webhook.test';
/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
export const MAX_URL_LENGTH = 2000;
export const MAX_DESCRIPTION_LENGTH = 500;

/** A new secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks' format). */
export function newSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64')}`;
}

/** Every pattern an endpoint may subscribe to: the named types, `area.*`, `area.object.*` and `*`. */
export function subscribablePatterns(): string[] {
  const areas = [...new Set(Object.values(EVENT_AREAS))].map((a) => `${a}.*`);
  const objects = [...new Set(EVENT_TYPES.map((t) => t.split('.').slice(0, 2).join('.') + '.*'))];
  return ['*', ...areas.sort(), ...objects.sort(), ...EVENT_TYPES];
}

function checkEvents(events: readonly string[]): string[] {
  const known = new Set(subscribablePatterns());
  // Any `area.object.*` of a covered area is fine too: unnamed actions publish as `<area>.record.<verb>`.
  const areas = new Set(Object.values(EVENT_AREAS) as string[]);
  const unknown = events.filter(
    (e) => !known.has(e) && !(/^[a-z_]+\.[a-z_]+\.\*$/.test(e) && areas.has(e.split('.')[0])),
  );
  if (events.length === 0)
    throw new AppError('BAD_REQUEST', 'events must name at least one event type', { field: 'events' });
  if (unknown.length)
    throw new AppError('BAD_REQUEST', `events: unknown event type ${unknown.slice(0, 3).join(', ')}`, {
      field: 'events',
      details: { unknown },
    });
  return [...new Set(events)];
}

export type WebhookEndpoint = {
  id: string;
  url: string;
  description: string;
  events: string[];
  isEnabled: boolean;
  disabledReason: string | null;
  revision: number;
  /** Until when the secret before the last rotation still signs (null: no overlap running). */
  previousSecretUntil: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

type EndpointRow = Omit<WebhookEndpointsRow, 'tenant_id' | 'secret_sealed' | 'previous_secret_sealed' | 'created_by'>;
const columns = (p = '') => `${p}id, ${p}url, ${p}description, ${p}event_types, ${p}is_enabled, ${p}disabled_reason,
  ${p}revision, case when ${p}previous_secret_until > now() then ${p}previous_secret_until end as previous_secret_until,
  ${p}created_at, ${p}updated_at`;
const COLUMNS = columns();

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.event_types,
    isEnabled: row.is_enabled,
    disabledReason: row.disabled_reason,
    revision: row.revision,
    previousSecretUntil: row.previous_secret_until,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function getWebhook(tx: Tx, id: string): Promise<WebhookEndpoint | null> {
  if (!UUID.test(id)) return null;
  const [row] = await tx.query<EndpointRow>(`select ${COLUMNS} from webhook_endpoints where id = $1`, [id]);
  return row ? toEndpoint(row) : null;
}

async function mustGet(tx: Tx, id: string): Promise<WebhookEndpoint> {
  const endpoint = await getWebhook(tx, id);
  if (!endpoint) throw new AppError('NOT_FOUND', 'This webhook does not exist.');
  return endpoint;
}

export type WebhookSummary = WebhookEndpoint & {
  lastDeliveryAt: Date | null;
  lastStatus: string | null;
  lastResponseStatus: number | null;
  failed: number;
  pending: number;
  delivered: number;
};

type SummaryRow = EndpointRow & {
  last_delivery_at: Date | null;
  last_status: string | null;
  last_response_status: number | null;
  failed: number;
  pending: number;
  delivered: number;
};

/** Every endpoint with its last delivery and its counts of failed, pending and delivered deliveries. */
export async function listWebhooks(tx: Tx): Promise<WebhookSummary[]> {
  const rows = await tx.query<SummaryRow>(
    `select ${columns('e.')},
       l.last_attempt_at as last_delivery_at, l.status as last_status, l.last_status as last_response_status,
       coalesce(c.failed, 0)::int as failed, coalesce(c.pending, 0)::int as pending, coalesce(c.delivered, 0)::int as delivered
     from webhook_endpoints e
     left join lateral (
       select d.last_attempt_at, d.status, d.last_status from webhook_deliveries d
        where d.tenant_id = e.tenant_id and d.endpoint_id = e.id and d.last_attempt_at is not null
        order by d.last_attempt_at desc limit 1) l on true
     left join lateral (
       select count(*) filter (where d.status = 'failed') as failed,
              count(*) filter (where d.status = 'pending') as pending,
              count(*) filter (where d.status = 'delivered') as delivered
         from webhook_deliveries d where d.tenant_id = e.tenant_id and d.endpoint_id = e.id) c on true
     order by e.created_at, e.id`,
  );
  return rows.map((row) => ({
    ...toEndpoint(row),
    lastDeliveryAt: row.last_delivery_at,
    lastStatus: row.last_status,
    lastResponseStatus: row.last_response_status,
    failed: row.failed,
    pending: row.pending,
    delivered: row.delivered,
  }));
}

/** The JSON shape of an endpoint in /v1 (never a secret). */
export function webhookJson(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events,
    enabled: endpoint.isEnabled,
    disabledReason: endpoint.disabledReason,
    revision: endpoint.revision,
    previousSecretUntil: endpoint.previousSecretUntil,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}

function auditView(endpoint: WebhookEndpoint) {
  return {
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events,
    enabled: endpoint.isEnabled,
  };
}

/** The signing secrets of an endpoint: the current one, and the previous one while its overlap runs. */
export async function signingSecrets(tx: Tx, endpointId: string): Promise<string[]> {
  const [row] = await tx.query<Pick<WebhookEndpointsRow, 'secret_sealed' | 'previous_secret_sealed'>>(
    `select secret_sealed, case when previous_secret_until > now() then previous_secret_sealed end as previous_secret_sealed
       from webhook_endpoints where id = $1`,
    [endpointId],
  );
  if (!row) return [];
  return [row.secret_sealed, row.previous_secret_sealed].filter((s): s is string => !!s).map((s) => openSecret(s));
}

const urlField = z.string().max(MAX_URL_LENGTH);
const eventsField = z.array(z.string().max(200)).max(200);
const descriptionField = z.string().max(MAX_DESCRIPTION_LENGTH);

/** Options of the commands' URL check (tests with a local receiver allow private targets). */
export type WebhookTargetOptions = { allowPrivate?: boolean };
let targetOptions: WebhookTargetOptions = {};
/** Tests only: the URL check's options for the commands of this process. */
export function setWebhookTargetOptionsForTests(options: WebhookTargetOptions): void {
  targetOptions = options;
}

async function checkUrl(raw: string): Promise<string> {
  if (!raw.trim()) throw new AppError('BAD_REQUEST', 'url is required', { field: 'url' });
  const url = await checkTargetAddress(raw, 'url', ['https:', 'http:'], targetOptions);
  return url.toString();
}

const actorId = (actor: { kind?: string; userId: string }) => (actor.kind === 'system' ? null : actor.userId);

export const createWebhookCommand = defineCommand({
  action: 'webhook.create',
  objectType: 'webhook',
  permission: need('admin.webhooks.edit'),
  input: z
    .object({
      url: urlField,
      events: eventsField,
      description: descriptionField.optional(),
      enabled: z.boolean().optional(),
    })
    .strict(),
  run: async (tx, actor, input) => {
    const url = await checkUrl(input.url);
    const events = checkEvents(input.events);
    const secret = newSecret();
    const enabled = input.enabled ?? true;
    if (enabled) await moveCursorIfIdle(tx, actor.tenantId);
    const [row] = await tx.query<EndpointRow>(
      `insert into webhook_endpoints (tenant_id, url, description, event_types, is_enabled, secret_sealed, created_by)
       values ($1, $2, $3, $4, $5, $6, $7) returning ${COLUMNS}`,
      [actor.tenantId, url, input.description?.trim() ?? '', events, enabled, sealSecret(secret), actorId(actor)],
    );
    const endpoint = toEndpoint(row);
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'webhook.create',
      objectType: 'webhook',
      objectId: endpoint.id,
      after: auditView(endpoint),
      outcome: 'success',
    });
    return { endpoint, secret };
  },
});

/**
 * A tenant with no enabled endpoint has nothing to catch up on: its first (re-)enabled endpoint
 * starts reading the outbox from now on instead of walking every event since the cursor last moved.
 */
async function moveCursorIfIdle(tx: Tx, tenantId: string): Promise<void> {
  const [row] = await tx.query<{ n: number }>(`select count(*)::int as n from webhook_endpoints where is_enabled`);
  if (row.n === 0) await moveCursorToTail(tx, tenantId);
}

export const updateWebhookCommand = defineCommand({
  action: 'webhook.update',
  objectType: 'webhook',
  permission: need('admin.webhooks.edit'),
  input: z
    .object({
      id: z.string().max(100),
      url: urlField.optional(),
      events: eventsField.optional(),
      description: descriptionField.optional(),
      enabled: z.boolean().optional(),
      expectedRevision: z.number().int().min(1).optional(),
    })
    .strict(),
  run: async (tx, actor, input) => {
    const before = await mustGet(tx, input.id);
    if (input.expectedRevision !== undefined && input.expectedRevision !== before.revision)
      throw new AppError('CONFLICT', 'Someone else changed this webhook; reload the page and try again.', {
        field: 'expectedRevision',
      });
    const url = input.url === undefined ? before.url : await checkUrl(input.url);
    const events = input.events === undefined ? before.events : checkEvents(input.events);
    const enabled = input.enabled ?? before.isEnabled;
    if (enabled && !before.isEnabled) await moveCursorIfIdle(tx, actor.tenantId);
    const [row] = await tx.query<EndpointRow>(
      `update webhook_endpoints set url = $2, event_types = $3, description = $4, is_enabled = $5,
         disabled_reason = case when $5 then null else disabled_reason end,
         revision = revision + 1, updated_at = now()
       where id = $1 returning ${COLUMNS}`,
      [input.id, url, events, input.description?.trim() ?? before.description, enabled],
    );
    const endpoint = toEndpoint(row);
    if (!enabled) await cancelPending(tx, endpoint.id);
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'webhook.update',
      objectType: 'webhook',
      objectId: endpoint.id,
      before: auditView(before),
      after: auditView(endpoint),
      outcome: 'success',
    });
    return endpoint;
  },
});

/** A disabled endpoint's pending deliveries stop (they can still be resent by hand). */
export async function cancelPending(tx: Tx, endpointId: string): Promise<void> {
  await tx.query(
    `update webhook_deliveries set status = 'cancelled', next_attempt_at = null
      where endpoint_id = $1 and status = 'pending'`,
    [endpointId],
  );
}

export const deleteWebhookCommand = defineCommand({
  action: 'webhook.delete',
  objectType: 'webhook',
  permission: need('admin.webhooks.edit'),
  input: z.object({ id: z.string().max(100) }).strict(),
  run: async (tx, actor, input) => {
    const before = await mustGet(tx, input.id);
    await tx.query(`delete from webhook_endpoints where id = $1`, [input.id]);
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'webhook.delete',
      objectType: 'webhook',
      objectId: input.id,
      before: auditView(before),
      outcome: 'success',
    });
    return before;
  },
});

export const rotateWebhookSecretCommand = defineCommand({
  action: 'webhook.rotate_secret',
  objectType: 'webhook',
  permission: need('admin.webhooks.edit'),
  input: z.object({ id: z.string().max(100) }).strict(),
  run: async (tx, actor, input) => {
    await mustGet(tx, input.id);
    const secret = newSecret();
    const [row] = await tx.query<EndpointRow>(
      `update webhook_endpoints set previous_secret_sealed = secret_sealed, secret_sealed = $2,
         previous_secret_until = now() + make_interval(secs => $3::double precision / 1000),
         revision = revision + 1, updated_at = now()
       where id = $1 returning ${COLUMNS}`,
      [input.id, sealSecret(secret), ROTATION_OVERLAP_MS],
    );
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'webhook.rotate_secret',
      objectType: 'webhook',
      objectId: input.id,
      outcome: 'success',
    });
    return { endpoint: toEndpoint(row), secret };
  },
});

export const testWebhookCommand = defineCommand({
  action: 'webhook.send_test',
  objectType: 'webhook',
  permission: need('admin.webhooks.edit'),
  input: z.object({ id: z.string().max(100) }).strict(),
  run: async (tx, actor, input) => {
    const endpoint = await mustGet(tx, input.id);
    const eventId = crypto.randomUUID();
    const payload = JSON.stringify({
      type: TEST_EVENT_TYPE,
      timestamp: new Date().toISOString(),
      data: { webhookId: endpoint.id, message: 'A test event sent from the webhook’s page.' },
    });
    const [delivery] = await tx.query<{ id: string }>(
      `insert into webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, msg_id, payload)
       values ($1, $2, $3, $4, $5, $6) returning id`,
      [actor.tenantId, endpoint.id, eventId, TEST_EVENT_TYPE, `msg_${eventId}`, payload],
    );
    await enqueueSend(tx, actor.tenantId, delivery.id, { manual: true });
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'webhook.send_test',
      objectType: 'webhook',
      objectId: endpoint.id,
      after: { deliveryId: delivery.id },
      outcome: 'success',
    });
    return { deliveryId: delivery.id, msgId: `msg_${eventId}` };
  },
});

export const resendWebhookDeliveryCommand = defineCommand({
  action: 'webhook.resend',
  objectType: 'webhook',
  permission: need('admin.webhooks.edit'),
  input: z.object({ id: z.string().max(100), deliveryId: z.string().max(100) }).strict(),
  run: async (tx, actor, input) => {
    await mustGet(tx, input.id);
    const [delivery] = UUID.test(input.deliveryId)
      ? await tx.query<{ id: string; msg_id: string }>(
          `select id, msg_id from webhook_deliveries where id = $1 and endpoint_id = $2`,
          [input.deliveryId, input.id],
        )
      : [];
    if (!delivery) throw new AppError('NOT_FOUND', 'This delivery does not exist.');
    await enqueueSend(tx, actor.tenantId, delivery.id, { manual: true });
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'webhook.resend',
      objectType: 'webhook',
      objectId: input.id,
      after: { deliveryId: delivery.id },
      outcome: 'success',
    });
    return { deliveryId: delivery.id, msgId: delivery.msg_id };
  },
});
