import { z } from 'zod';
import { AppError } from '../errors/app-error.ts';
import { getDb, type Db, type Tx } from '../db/index.ts';
import { errorResponse, json, stringify } from '../http/respond.ts';
import { localizeErrorBody } from '../errors/messages.ts';
import type { Language } from '../i18n/index.ts';
import { zodAmount, zodDate } from '../http/input-fields.ts';
import { requirePrincipal, type Principal } from '../auth/principal.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { actorFromPrincipal, type Actor } from './actor.ts';
import { clientIp } from '../auth/client-ip.ts';
import { getLoanView, transactionJson } from './loans.ts';
import { resolveScopeNodes } from '../tenancy/scope.ts';
import { assertInScope } from '../auth/data-permissions.ts';
import type { RefusalAudit } from '../auth/guard.ts';
import { runCommand, type Command } from '../http/command.ts';
import {
  requestFingerprint,
  requireIdempotencyKey,
  runIdempotent,
  type CommandAnswer,
  type IdempotencyOptions,
} from './idempotency.ts';

/**
 * The HTTP glue of the lending /v1 endpoints, kept out of Astro so it can be tested with plain
 * Request objects: the endpoint files only build an ApiContext and call one of these. Whether the
 * caller may call the route at all is the guard's decision (src/lib/auth/route-manifest.ts API_ROUTES),
 * made before the endpoint runs; here only the object is checked: it must lie in the caller's scope
 * (src/lib/auth/data-permissions.ts, the same loader for reads and commands) and its lifecycle must
 * allow the command.
 */
export type ApiContext = {
  request: Request;
  principal: Principal | undefined;
  requestId: string;
  ip: string | null;
  /** Database override (tests); default the process database. */
  db?: Db;
  idempotency?: IdempotencyOptions;
  /** Language of the answer's messages (the user's, else the tenant's default); default English. */
  language?: Language;
};

async function dbOf(ctx: ApiContext): Promise<Db> {
  return ctx.db ?? getDb();
}

async function audit(
  db: Db,
  actor: Actor,
  entry: { action: string; objectType: string; objectId?: string | null; outcome: 'denied' | 'failed'; reason: string },
) {
  try {
    await db.tenant(actor.tenantId, (tx) =>
      recordAudit(tx, {
        tenantId: actor.tenantId,
        actorId: actor.userId,
        actorKind: actor.kind ?? 'user',
        ip: actor.ip,
        requestId: actor.requestId,
        ...entry,
      }),
    );
  } catch {
    // The audit of a refusal must never turn the refusal into a 500.
  }
}

function signedIn(ctx: ApiContext): { principal: Principal; actor: Actor } {
  const principal = requirePrincipal(ctx.principal);
  return { principal, actor: actorFromPrincipal(principal, { ip: ctx.ip, requestId: ctx.requestId }) };
}

/** Writes the audit row of a command the guard refused for lack of permission. */
export async function auditRefusal(
  db: Db,
  principal: Principal,
  request: { ip: string | null; requestId: string },
  refused: RefusalAudit,
): Promise<void> {
  const actor = actorFromPrincipal(principal, request);
  await audit(db, actor, { ...refused, outcome: 'denied', reason: 'You do not have permission to do this.' });
}

async function readBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('BAD_REQUEST', 'The request body must be valid JSON.');
  }
}

export type MoneyCommandSpec<B> = {
  /** Audit action, e.g. 'loan.repay'. */
  action: string;
  objectType: string;
  objectId: string;
  schema: z.ZodType<B>;
  run: (tx: Tx, actor: Actor, body: B) => Promise<CommandAnswer>;
  /** When set, the caller's hierarchy data permissions must cover this loan (else 404). */
  loanId?: string;
  /** When set, the caller's data permissions must cover this offer's customer (else 404). */
  offerId?: string;
  /** When set, the caller's data permissions must cover this loan application's customer (else 404). */
  applicationId?: string;
};

type Visibility = { loanId?: string; offerId?: string; applicationId?: string };

const queues = new Map<string, Promise<unknown>>();

/** Runs fn after every earlier fn queued under the same key has settled (in-process FIFO). */
export async function queueByKey<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, settled);
  try {
    return await run;
  } finally {
    if (queues.get(key) === settled) queues.delete(key);
  }
}

/** Hierarchy nodes the principal may see (data permissions), or null when unrestricted. */
export function scopeNodesOf(tx: Tx, principal: Principal): Promise<string[] | null> {
  return resolveScopeNodes(tx, principal, null);
}

/**
 * Another branch's loan, offer or application answers exactly like a missing one: 404. Reads and
 * commands both go through the scoped loader of src/lib/auth/data-permissions.ts.
 */
async function assertVisible(tx: Tx, principal: Principal, on: Visibility): Promise<void> {
  if (on.loanId !== undefined) await assertInScope(tx, principal, 'loan', on.loanId);
  if (on.offerId !== undefined) await assertInScope(tx, principal, 'offer', on.offerId);
  if (on.applicationId !== undefined) await assertInScope(tx, principal, 'application', on.applicationId);
}

/**
 * A money command over HTTP: Idempotency-Key (required), body validation, the
 * command in one transaction with its stored answer, and an audit row for refusals and failures.
 */
export async function moneyCommand<B>(ctx: ApiContext, spec: MoneyCommandSpec<B>): Promise<Response> {
  const db = await dbOf(ctx);
  let actor: Actor | undefined;
  try {
    const auth = signedIn(ctx);
    actor = auth.actor;
    const principal = auth.principal;
    const key = requireIdempotencyKey(ctx.request.headers.get('idempotency-key'));
    const raw = await readBody(ctx.request);
    const body = spec.schema.parse(raw);
    const url = new URL(ctx.request.url);
    const fingerprint = requestFingerprint(ctx.request.method, url.pathname, raw);
    const a = actor;
    const execute = () =>
      runIdempotent(
        db,
        { tenantId: a.tenantId, userId: a.userId },
        key,
        fingerprint,
        async (tx) => {
          await assertVisible(tx, principal, spec);
          return spec.run(tx, a, body);
        },
        ctx.idempotency,
      );
    // Commands on one loan queue up in this process before taking a pooled connection: they would
    // wait on the loan's row lock anyway, and waiting there would hold connections others need.
    // Across processes the row lock (select … for update) is what keeps them one at a time.
    const result =
      spec.loanId !== undefined ? await queueByKey(`${a.tenantId}:${spec.loanId}`, execute) : await execute();
    if (result.status >= 400 && !result.isReplayed) {
      await audit(db, a, {
        action: spec.action,
        objectType: spec.objectType,
        objectId: spec.objectId,
        outcome: result.status === 403 ? 'denied' : 'failed',
        reason: result.body,
      });
    }
    const headers = new Headers({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    if (result.isReplayed) headers.set('Idempotent-Replayed', 'true');
    // A stored refusal is replayed in the language of whoever reads it now.
    const answer = result.status >= 400 ? localizeErrorBody(result.body, ctx.language ?? 'en') : result.body;
    return new Response(answer, { status: result.status, headers });
  } catch (error) {
    const who = actor ?? (error as { actor?: Actor }).actor;
    if (who) {
      const status = error instanceof AppError ? error.status : 500;
      await audit(db, who, {
        action: spec.action,
        objectType: spec.objectType,
        objectId: spec.objectId,
        outcome: status === 403 ? 'denied' : 'failed',
        reason: error instanceof Error ? error.message : String(error),
      });
    }
    return errorResponse(error, ctx.requestId, ctx.language);
  }
}

/** A non-money mutation (customers, offers, products): audited on refusal or failure, one transaction. */
export async function mutation<B>(ctx: ApiContext, spec: MoneyCommandSpec<B>): Promise<Response> {
  const db = await dbOf(ctx);
  let actor: Actor | undefined;
  try {
    const auth = signedIn(ctx);
    actor = auth.actor;
    const body = spec.schema.parse(await readBody(ctx.request));
    const a = actor;
    const answer = await db.tenant(a.tenantId, async (tx) => {
      await assertVisible(tx, auth.principal, spec);
      return spec.run(tx, a, body);
    });
    return new Response(stringify(answer.body), {
      status: answer.status,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    });
  } catch (error) {
    const who = actor ?? (error as { actor?: Actor }).actor;
    if (who) {
      const status = error instanceof AppError ? error.status : 500;
      await audit(db, who, {
        action: spec.action,
        objectType: spec.objectType,
        objectId: spec.objectId,
        outcome: status === 403 ? 'denied' : 'failed',
        reason: error instanceof Error ? error.message : String(error),
      });
    }
    return errorResponse(error, ctx.requestId, ctx.language);
  }
}

/**
 * The JSON adapter of a command (src/lib/http/command.ts): the body (or what `input` builds from it
 * and the URL's ids) goes through the command's schema, the command runs through runCommand — the
 * same path as a page's form post — and `answer` shapes the JSON reply.
 */
export async function commandEndpoint<I, O>(
  ctx: ApiContext,
  command: Command<I, O>,
  spec: {
    objectId?: string | null;
    input?: (body: unknown) => unknown;
    /** Reads the input from the request itself instead of a JSON body (file uploads, imports). */
    readInput?: (request: Request) => Promise<unknown>;
    answer: (output: O) => { status: number; body: unknown };
  },
): Promise<Response> {
  try {
    const principal = requirePrincipal(ctx.principal);
    const actor = actorFromPrincipal(principal, { ip: ctx.ip, requestId: ctx.requestId });
    const readInput = async () => {
      if (spec.readInput) return spec.readInput(ctx.request);
      const body = await readBody(ctx.request);
      return spec.input ? spec.input(body) : body;
    };
    const output = await runCommand(
      { db: await dbOf(ctx), actor, permissionSubject: principal, objectId: spec.objectId, language: ctx.language },
      command,
      readInput,
    );
    const reply = spec.answer(output);
    return new Response(stringify(reply.body), {
      status: reply.status,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    });
  } catch (error) {
    return errorResponse(error, ctx.requestId, ctx.language);
  }
}

/** A read: one tenant transaction, the named objects loaded through the caller's scope, JSON answer. */
export async function query(
  ctx: ApiContext,
  run: (tx: Tx, actor: Actor, url: URL, principal: Principal) => Promise<unknown>,
  options: Visibility = {},
): Promise<Response> {
  try {
    const { actor, principal } = signedIn(ctx);
    const db = await dbOf(ctx);
    const body = await db.tenant(actor.tenantId, async (tx) => {
      await assertVisible(tx, principal, options);
      return run(tx, actor, new URL(ctx.request.url), principal);
    });
    return json(body);
  } catch (error) {
    return errorResponse(error, ctx.requestId, ctx.language);
  }
}

/**
 * Decimal amount in JSON: a string such as "10.00" (a number is read as written), checked at the
 * edge by the one money parser (src/lib/money/parse.ts: no exponent, sign, separator, NaN…); the
 * command checks the currency's decimals and the bound once it knows the currency.
 */
export const amountField = zodAmount();
/** A real calendar date 'YYYY-MM-DD'; the command applies the field's business rule. */
export const dateField = zodDate();

/** Answer of a loan money command: the transaction and the loan after it. */
export async function loanAnswer(tx: Tx, status: number, transaction: unknown, loanId: string): Promise<CommandAnswer> {
  return { status, body: { transaction: transactionJson(transaction as never), loan: await getLoanView(tx, loanId) } };
}

/** Builds the ApiContext from an Astro endpoint context (structural type: no Astro import here). */
export function apiContext(context: {
  request: Request;
  locals: { principal?: Principal; requestId: string; language?: Language };
  clientAddress?: string;
}): ApiContext {
  let direct: string | undefined;
  try {
    direct = context.clientAddress;
  } catch {
    direct = undefined; // not available for prerendered or internal requests
  }
  return {
    request: context.request,
    principal: context.locals.principal,
    requestId: context.locals.requestId,
    ip: clientIp(direct, context.request.headers.get('x-forwarded-for')),
    language: context.locals.language,
  };
}
