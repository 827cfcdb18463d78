import crypto from 'node:crypto';
import { AppError, isRetryableTxError, pgCode } from '../errors/app-error.ts';
import type { Db, Tx } from '../db/index.ts';
import { stringify } from '../http/respond.ts';
import type { IdempotencyKeysRow } from '../db/schema.generated.ts';

/**
 * Idempotent money commands (Stripe; IETF draft "The Idempotency-Key HTTP Header Field"):
 * - a key is scoped to (tenant, user) and kept at least 24 hours;
 * - the key is claimed in the command's own transaction: the key row is inserted first, then the
 *   command runs, then its answer is stored on the row, and all of it commits together. A server
 *   killed mid-command leaves nothing behind (its transaction never committed), so a retry with the
 *   key runs the command exactly once — an earlier design claimed in a separate transaction and a
 *   crash left the key "in flight" for 24 hours;
 * - concurrent duplicates are arbitrated by the unique key: on Postgres a second insert waits on the
 *   first's uncommitted row and then sees its answer; on PGlite transactions are serial anyway;
 * - the same key with the same request replays the stored answer (Idempotent-Replayed: true); with
 *   another request → 422; while the first is still running → 409 after a short wait (in this process
 *   the duplicate waits for the first request to settle; across processes it waits on the key row
 *   under `lock_timeout`), so a burst of retries of one request gets the first answer, not errors;
 * - a client error (4xx other than 409) is stored and replayed too (the command is rolled back to a
 *   savepoint, the refusal commits with the key); a conflict or server error rolls everything back,
 *   so the client can retry with the key;
 * - a committed `in_flight` row can only be left by the earlier two-transaction design after a crash:
 *   its command never committed (the answer was stored in the command's transaction), so it is taken
 *   over.
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
  /** Test hook: runs once this request holds the key in this process, before its transaction opens (holds it in flight). */
  beforeCommand?: () => Promise<void>;
};

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Validates the Idempotency-Key header value; 400 when missing or malformed. */
export function requireIdempotencyKey(value: string | null | undefined): string {
  const key = value?.trim().replace(/^"(.*)"$/, '$1');
  if (!key) {
    throw new AppError('BAD_REQUEST', 'The Idempotency-Key header is required for this operation', {
      field: 'Idempotency-Key',
    });
  }
  if (!KEY_PATTERN.test(key)) {
    throw new AppError('BAD_REQUEST', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters', {
      field: 'Idempotency-Key',
    });
  }
  return key;
}

/** JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return stringify(value ?? null);
}

/** Fingerprint of a request: method, path and canonical body. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return crypto
    .createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonical(body)}`)
    .digest('hex');
}

type KeyRow = Pick<IdempotencyKeysRow, 'id' | 'request_hash' | 'response_status' | 'response_body'> & {
  status: 'in_flight' | 'completed';
};

const PG_LOCK_NOT_AVAILABLE = '55P03';

function stillInFlight(): AppError {
  return new AppError('CONFLICT', 'A request with this Idempotency-Key is still being processed; retry later', {
    field: 'Idempotency-Key',
  });
}

/**
 * Claims the key inside the command's transaction: the inserted row (or the existing one, locked)
 * is this transaction's until it commits or rolls back. Waiting on another transaction's row is
 * bounded by `lock_timeout` (that transaction is a request still running in another process).
 */
async function claim(
  tx: Tx,
  scope: IdempotencyScope,
  key: string,
  hash: string,
  waitMs: number,
): Promise<{ claimedId: string } | { existing: KeyRow }> {
  const [{ previous }] = await tx.query<{ previous: string }>(
    `select current_setting('lock_timeout') as previous, set_config('lock_timeout', $1, true) as _set`,
    [`${Math.max(1, Math.round(waitMs))}ms`],
  );
  try {
    const inserted = await tx.query<Pick<IdempotencyKeysRow, 'id'>>(
      `insert into idempotency_keys (tenant_id, user_id, key, request_hash) values ($1, $2, $3, $4)
       on conflict (tenant_id, user_id, key) do nothing returning id`,
      [scope.tenantId, scope.userId, key, hash],
    );
    if (inserted[0]) return { claimedId: inserted[0].id };
    const [row] = await tx.query<KeyRow>(
      `select id, request_hash, status, response_status, response_body from idempotency_keys where user_id = $1 and key = $2 for update`,
      [scope.userId, key],
    );
    // Deleted between the insert and the select (expiry): run the whole transaction again.
    if (!row) throw Object.assign(new Error('idempotency key vanished; retry'), { code: '40001' });
    if (row.status === 'in_flight' && row.request_hash === hash) return { claimedId: row.id };
    return { existing: row };
  } catch (error) {
    if (pgCode(error) === PG_LOCK_NOT_AVAILABLE) throw stillInFlight();
    throw error;
  } finally {
    // Only the claim waits that briefly; the command's own row locks (the loan) wait as configured.
    await tx.query(`select set_config('lock_timeout', $1, true)`, [previous]).catch(() => undefined);
  }
}

function replayOrRefuse(row: KeyRow, hash: string): IdempotentResult {
  if (row.request_hash !== hash) {
    throw new AppError('UNPROCESSABLE', 'This Idempotency-Key was already used with a different request', {
      field: 'Idempotency-Key',
    });
  }
  return { status: row.response_status!, body: row.response_body!, isReplayed: true };
}

async function storeAnswer(tx: Tx, id: string, status: number, body: string): Promise<void> {
  await tx.query(
    `update idempotency_keys set status = 'completed', response_status = $2, response_body = $3, completed_at = now() where id = $1`,
    [id, status, body],
  );
}

/** A refusal that is the answer to this request, kept so a retry with the key gets the same one. */
function storableRefusal(error: unknown): AppError | null {
  const appError = error instanceof AppError ? error : null;
  return appError &&
    appError.status >= 400 &&
    appError.status < 500 &&
    appError.status !== 409 &&
    !isRetryableTxError(error)
    ? appError
    : null;
}

/**
 * Requests of this process holding a key (tenant, user, key): a duplicate waits here for the first
 * one to settle instead of taking a pooled connection to wait on the key row (PGlite has only one).
 */
const heldKeys = new Map<string, Promise<void>>();

/** Waits until the request holding the key in this process settles; 409 when it takes longer than waitMs. */
async function waitForHolder(held: Promise<void>, waitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const isSettled = await Promise.race([
    held.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(resolve, waitMs, false))),
  ]);
  clearTimeout(timer);
  if (!isSettled) throw stillInFlight();
}

/**
 * Runs `command` once per (tenant, user, key). `command` runs inside one db.tenant transaction and
 * returns the HTTP answer; the key's claim and the answer commit in that same transaction.
 */
export async function runIdempotent(
  db: Db,
  scope: IdempotencyScope,
  key: string,
  fingerprint: string,
  command: (tx: Tx) => Promise<CommandAnswer>,
  options: IdempotencyOptions = {},
): Promise<IdempotentResult> {
  const waitMs = options.inFlightWaitMs ?? 5000;
  const execute = () =>
    db.tenant(scope.tenantId, async (tx) => {
      const claimed = await claim(tx, scope, key, fingerprint, waitMs);
      if ('existing' in claimed) return replayOrRefuse(claimed.existing, fingerprint);
      await tx.query('savepoint idempotent_command');
      try {
        const answer = await command(tx);
        const body = stringify(answer.body);
        await storeAnswer(tx, claimed.claimedId, answer.status, body);
        return { status: answer.status, body, isReplayed: false };
      } catch (error) {
        const refusal = storableRefusal(error);
        if (!refusal) throw error;
        // Undo whatever the command wrote, keep the claim, and store the refusal as the answer.
        await tx.query('rollback to savepoint idempotent_command');
        const body = stringify(refusal.toJSON());
        await storeAnswer(tx, claimed.claimedId, refusal.status, body);
        return { status: refusal.status, body, isReplayed: false };
      }
    });
  const slot = `${scope.tenantId}\u0000${scope.userId}\u0000${key}`;
  const held = heldKeys.get(slot);
  if (held) {
    // A duplicate: once the first settles its answer is stored (or it rolled back and this one
    // claims the key); the database arbitrates either way, so duplicates go on side by side.
    await waitForHolder(held, waitMs);
    return execute();
  }
  let release!: () => void;
  heldKeys.set(slot, new Promise<void>((resolve) => (release = resolve)));
  try {
    if (options.beforeCommand) await options.beforeCommand();
    return await execute();
  } finally {
    heldKeys.delete(slot);
    release();
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
