import crypto from 'node:crypto';
import { AppError, isRetryableTxError } from '../errors/app-error.ts';
import type { Db, Tx } from '../db/index.ts';
import { stringify } from '../http/respond.ts';

/**
 * Idempotent money commands (Stripe; IETF draft "The Idempotency-Key HTTP Header Field"):
 * - a key is scoped to (tenant, user) and kept at least 24 hours;
 * - the first request claims the key in its own short transaction (insert … on conflict do nothing),
 *   so exactly one request runs the command, on Postgres (the unique index arbitrates concurrent
 *   inserts) and on PGlite (one connection: transactions are serial);
 * - the command's transaction stores the answer with the key, so "applied" and "answer stored"
 *   commit together — a crash in between cannot apply a command twice;
 * - the same key with the same request replays the stored answer (Idempotent-Replayed: true); with
 *   another request → 422; while the first is still running → 409 (after a short wait, so a burst of
 *   retries of one request gets the first answer rather than errors);
 * - a client error (4xx other than 409) is stored and replayed too; a conflict or server error
 *   releases the key so the client can retry with it.
 */
export type IdempotencyScope = { tenantId: string; userId: string };

export type CommandAnswer = { status: number; body: unknown };

export type IdempotentResult = {
  status: number;
  /** The exact JSON text of the answer: byte-identical on replays. */
  body: string;
  isReplayed: boolean;
};

export type IdempotencyOptions = {
  /** How long a duplicate waits for the first request to finish before answering 409. Default 5 s. */
  inFlightWaitMs?: number;
  /** Test hook: runs after the key is claimed, before the command's transaction opens (holds it in flight). */
  beforeCommand?: () => Promise<void>;
};

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Validates the Idempotency-Key header value; 400 when missing or malformed. */
export function requireIdempotencyKey(value: string | null | undefined): string {
  const key = value?.trim().replace(/^"(.*)"$/, '$1');
  if (!key) {
    throw new AppError('BAD_REQUEST', 'The Idempotency-Key header is required for this operation', { field: 'Idempotency-Key' });
  }
  if (!KEY_PATTERN.test(key)) {
    throw new AppError('BAD_REQUEST', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters', { field: 'Idempotency-Key' });
  }
  return key;
}

/** JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return stringify(value ?? null);
}

/** Fingerprint of a request: method, path and canonical body. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return crypto.createHash('sha256').update(`${method.toUpperCase()} ${path}\n${canonical(body)}`).digest('hex');
}

type KeyRow = { id: string; request_hash: string; status: 'in_flight' | 'completed'; response_status: number | null; response_body: string | null };

async function claim(db: Db, scope: IdempotencyScope, key: string, hash: string): Promise<{ claimedId: string } | { existing: KeyRow }> {
  return db.tenant(scope.tenantId, async (tx) => {
    const inserted = await tx.query<{ id: string }>(
      `insert into idempotency_keys (tenant_id, user_id, key, request_hash) values ($1, $2, $3, $4)
       on conflict (tenant_id, user_id, key) do nothing returning id`,
      [scope.tenantId, scope.userId, key, hash],
    );
    if (inserted[0]) return { claimedId: inserted[0].id };
    const rows = await tx.query<KeyRow>(
      `select id, request_hash, status, response_status, response_body from idempotency_keys where user_id = $1 and key = $2`,
      [scope.userId, key],
    );
    if (!rows[0]) throw Object.assign(new Error('idempotency key vanished; retry'), { code: '40001' });
    return { existing: rows[0] };
  });
}

async function readKey(db: Db, scope: IdempotencyScope, key: string): Promise<KeyRow | null> {
  const rows = await db.tenant(scope.tenantId, (tx) =>
    tx.query<KeyRow>(`select id, request_hash, status, response_status, response_body from idempotency_keys where user_id = $1 and key = $2`, [scope.userId, key]),
  );
  return rows[0] ?? null;
}

function replayOrRefuse(row: KeyRow, hash: string): IdempotentResult | null {
  if (row.request_hash !== hash) {
    throw new AppError('UNPROCESSABLE', 'This Idempotency-Key was already used with a different request', { field: 'Idempotency-Key' });
  }
  if (row.status === 'completed') return { status: row.response_status!, body: row.response_body!, isReplayed: true };
  return null;
}

async function storeAnswer(tx: Tx, id: string, status: number, body: string): Promise<void> {
  await tx.query(
    `update idempotency_keys set status = 'completed', response_status = $2, response_body = $3, completed_at = now() where id = $1`,
    [id, status, body],
  );
}

/**
 * Runs `command` once per (tenant, user, key). `command` runs inside one db.tenant transaction and
 * returns the HTTP answer; the answer is stored with the key in that same transaction.
 */
export async function runIdempotent(
  db: Db,
  scope: IdempotencyScope,
  key: string,
  fingerprint: string,
  command: (tx: Tx) => Promise<CommandAnswer>,
  options: IdempotencyOptions = {},
): Promise<IdempotentResult> {
  const claimed = await claim(db, scope, key, fingerprint);
  if ('existing' in claimed) {
    const answer = replayOrRefuse(claimed.existing, fingerprint);
    if (answer) return answer;
    // Still in flight: wait a little for the first request's answer, then give up with 409.
    const deadline = Date.now() + (options.inFlightWaitMs ?? 5000);
    for (let delay = 10; Date.now() < deadline; delay = Math.min(delay * 2, 200)) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(deadline - Date.now(), 0))));
      const row = await readKey(db, scope, key);
      if (!row) break; // the first request failed and released the key
      const replay = replayOrRefuse(row, fingerprint);
      if (replay) return replay;
    }
    throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still being processed; retry later', { field: 'Idempotency-Key' });
  }
  const id = claimed.claimedId;
  try {
    if (options.beforeCommand) await options.beforeCommand();
    return await db.tenant(scope.tenantId, async (tx) => {
      const answer = await command(tx);
      const body = stringify(answer.body);
      await storeAnswer(tx, id, answer.status, body);
      return { status: answer.status, body, isReplayed: false };
    });
  } catch (error) {
    const appError = error instanceof AppError ? error : null;
    const isStorable = appError && appError.status >= 400 && appError.status < 500 && appError.status !== 409 && !isRetryableTxError(error);
    if (isStorable) {
      // The refusal is the answer to this request: keep it so a retry with the key gets the same one.
      const body = stringify(appError.toJSON());
      await db.tenant(scope.tenantId, (tx) => storeAnswer(tx, id, appError.status, body));
      return { status: appError.status, body, isReplayed: false };
    }
    await db.tenant(scope.tenantId, (tx) => tx.query(`delete from idempotency_keys where id = $1 and status = 'in_flight'`, [id]));
    throw error;
  }
}

/** Deletes keys older than the retention (at least 24 hours) for one tenant; returns how many. */
export async function deleteExpiredIdempotencyKeys(db: Db, tenantId: string, retentionHours = 24): Promise<number> {
  const hours = Math.max(retentionHours, 24);
  const rows = await db.tenant(tenantId, (tx) =>
    tx.query<{ n: number }>(`select delete_expired_idempotency_keys(make_interval(hours => $1)) as n`, [hours]),
  );
  return rows[0].n;
}
