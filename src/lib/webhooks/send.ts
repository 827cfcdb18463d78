/**
 * One attempt of one delivery (the `webhooks.send` job): sign the stored body with the endpoint's
 * secrets (Standard Webhooks, the `standardwebhooks` package), POST it through the outbound guard
 * (public addresses only, redirects never followed, 10 s timeout), record the attempt, and decide
 * what follows: delivered (2xx), the endpoint disabled (410), the next attempt's job (schedule.ts,
 * or the 429's Retry-After), or failed after the last attempt. No transaction is held while the
 * request is in flight.
 */
import { Webhook } from 'standardwebhooks';
import type { Db } from '../db/index.ts';
import type { WebhookDeliveriesRow } from '../db/schema.generated.ts';
import { sendHttp, type HttpAnswer } from '../net/outbound.ts';
import { cancelPending, signingSecrets } from './endpoints.ts';
import { enqueueSend } from './dispatch.ts';
import { MAX_ATTEMPTS, retryAfterMs, retryDelayMs } from './schedule.ts';

export const SEND_TIMEOUT_MS = 10_000;
const KEPT_BODY = 2048;

export type SendOptions = {
  /** The clock of the schedule (tests move it); the signature always carries the real time. */
  now?: Date;
  /** A manual attempt (resend, test event): recorded, changes no schedule. */
  manual?: boolean;
  allowPrivate?: boolean;
  timeoutMs?: number;
  random?: () => number;
};

export type AttemptOutcome = {
  status: 'delivered' | 'retry' | 'failed' | 'disabled' | 'manual';
  responseStatus: number | null;
  error: string | null;
  nextAttemptAt: Date | null;
};

/** The headers of one attempt: the same webhook-id every time, the time of this attempt, one signature per secret. */
export function signedHeaders(msgId: string, payload: string, secrets: readonly string[], at = new Date()) {
  const signature = secrets.map((secret) => new Webhook(secret).sign(msgId, at, payload)).join(' ');
  return {
    'content-type': 'application/json',
    'user-agent': 'lending-backoffice-webhooks/1',
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

type Loaded = Pick<WebhookDeliveriesRow, 'id' | 'endpoint_id' | 'msg_id' | 'payload' | 'status' | 'attempts'> & {
  url: string;
  is_enabled: boolean;
};

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    return (code ? `${code}: ` : '') + error.message;
  }
  return String(error);
}

export async function attemptDelivery(
  db: Db,
  tenantId: string,
  deliveryId: string,
  options: SendOptions = {},
): Promise<AttemptOutcome | null> {
  const loaded = await db.tenant(tenantId, async (tx) => {
    const [row] = await tx.query<Loaded>(
      `select d.id, d.endpoint_id, d.msg_id, d.payload, d.status, d.attempts, e.url, e.is_enabled
         from webhook_deliveries d join webhook_endpoints e on e.tenant_id = d.tenant_id and e.id = d.endpoint_id
        where d.id = $1`,
      [deliveryId],
    );
    if (!row) return null;
    if (!options.manual && row.status !== 'pending') return null; // already done (a job run twice)
    if (!options.manual && !row.is_enabled) {
      await cancelPending(tx, row.endpoint_id);
      return null;
    }
    return { row, secrets: await signingSecrets(tx, row.endpoint_id) };
  });
  if (!loaded) return null;
  const { row, secrets } = loaded;
  const startedAt = new Date();
  const headers = signedHeaders(row.msg_id, row.payload, secrets, startedAt);
  let answer: HttpAnswer | null = null;
  let error: string | null = null;
  const started = performance.now();
  try {
    answer = await sendHttp(row.url, {
      method: 'POST',
      headers,
      body: row.payload,
      timeoutMs: options.timeoutMs ?? SEND_TIMEOUT_MS,
      maxResponseBytes: KEPT_BODY,
      ...(options.allowPrivate !== undefined ? { allowPrivate: options.allowPrivate } : {}),
    });
  } catch (e) {
    error = describe(e);
  }
  const durationMs = answer?.durationMs ?? Math.round(performance.now() - started);
  const status = answer?.status ?? null;
  if (answer && !error && (status! < 200 || status! >= 300))
    error = status! >= 300 && status! < 400 ? `redirect to ${answer.headers.location ?? '?'} not followed` : null;
  const now = options.now ?? new Date();
  const isOk = status !== null && status >= 200 && status < 300;

  return db.tenant(tenantId, async (tx) => {
    await tx.query(
      `insert into webhook_attempts (tenant_id, delivery_id, endpoint_id, attempt, is_manual, started_at, duration_ms,
         request_headers, response_status, response_body, error)
       values ($1, $2, $3, (select count(*) + 1 from webhook_attempts where delivery_id = $2), $4, $5, $6, $7::jsonb, $8, $9, $10)`,
      [
        tenantId,
        row.id,
        row.endpoint_id,
        !!options.manual,
        startedAt,
        durationMs,
        JSON.stringify(headers),
        status,
        answer ? answer.body.slice(0, KEPT_BODY) : null,
        error,
      ],
    );
    const lastError = isOk ? null : (error ?? `HTTP ${status}`);
    const record = (set: string, params: unknown[] = []) =>
      tx.query<{ id: string }>(
        `update webhook_deliveries set last_status = $2, last_error = $3, last_attempt_at = $4, ${set}
          where id = $1 and (${options.manual ? 'true' : `status = 'pending' and attempts = ${Number(row.attempts)}`})
          returning id`,
        [row.id, status, lastError, startedAt, ...params],
      );
    const outcome = (s: AttemptOutcome['status'], nextAttemptAt: Date | null = null): AttemptOutcome => ({
      status: s,
      responseStatus: status,
      error: lastError,
      nextAttemptAt,
    });

    if (status === 410) {
      await tx.query(
        `update webhook_endpoints set is_enabled = false, updated_at = now(), revision = revision + 1,
           disabled_reason = $2 where id = $1`,
        [row.endpoint_id, `410 Gone answered on ${startedAt.toISOString()}`],
      );
      await record(`status = 'failed', attempts = attempts + ${options.manual ? 0 : 1}, next_attempt_at = null`);
      await cancelPending(tx, row.endpoint_id);
      return outcome('disabled');
    }
    if (isOk) {
      await record(
        `status = 'delivered', delivered_at = $4, next_attempt_at = null, attempts = attempts + ${options.manual ? 0 : 1}`,
      );
      return outcome('delivered');
    }
    if (options.manual) {
      // A failed test event (no schedule of its own) is failed; a failed resend leaves the schedule as it was.
      await record(`status = case when status = 'pending' and next_attempt_at is null then 'failed' else status end`);
      return outcome('manual');
    }
    const attempt = row.attempts + 1; // automatic attempts only: manual ones do not count
    const delay =
      attempt >= MAX_ATTEMPTS
        ? null
        : ((status === 429 ? retryAfterMs(answer?.headers['retry-after'], now) : null) ??
          retryDelayMs(attempt, options.random?.() ?? Math.random()));
    if (delay === null) {
      await record(`status = 'failed', attempts = attempts + 1, next_attempt_at = null`);
      return outcome('failed');
    }
    const nextAt = new Date(now.getTime() + delay);
    const [updated] = await record(`attempts = attempts + 1, next_attempt_at = $5`, [nextAt]);
    // Fenced by the attempt count: a second run of the same job (a lost lease) queues nothing more.
    if (updated) await enqueueSend(tx, tenantId, row.id, { runAt: nextAt, attempt: attempt + 1 });
    return outcome('retry', nextAt);
  });
}
