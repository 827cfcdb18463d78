import type { z } from 'zod';
import { recordAudit } from '../audit/record-audit.ts';
import { allows, type PermissionSubject, type Rule } from '../auth/permissions.ts';
import type { Db, Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import type { Language } from '../i18n/index.ts';
import type { Actor } from '../lending/actor.ts';

/**
 * A write, defined once: the permission it needs, the shape of its input (a zod schema), and what it
 * does inside one tenant transaction. Two thin adapters run it: `commandEndpoint`
 * (src/lib/lending/api.ts) for the /v1 JSON API that islands call, and `formCommand`
 * (src/components/pages/form-command.ts) for the plain HTML form of a page that works without
 * JavaScript. Both go through `runCommand`, so the check, the transaction and the audit of a refusal
 * are the same whichever way the write arrives. Why one way: docs/adr/0005-page-layer.md.
 */
export type Command<I, O> = {
  /** Audit action of a refusal, e.g. 'collateral.update' (a success is audited by the command itself). */
  action: string;
  objectType: string;
  permission: Rule;
  input: z.ZodType<I>;
  run: (tx: Tx, actor: Actor, input: I, request: CommandRequest) => Promise<O>;
};

/** What a command may need to know about the request beyond its input: the writer's language reads typed amounts ("1200,50" in French). */
export type CommandRequest = { language: Language };

/** Who runs a command, on which database, about which object (for the audit of a refusal), in which language. */
export type CommandCall = {
  db: Db;
  actor: Actor;
  permissionSubject: PermissionSubject;
  objectId?: string | null;
  language?: Language;
};

/** Defines a command (only gives the object its type). */
export function defineCommand<I, O>(command: Command<I, O>): Command<I, O> {
  return command;
}

async function auditRefusal(
  db: Db,
  actor: Actor,
  command: Command<unknown, unknown>,
  objectId: string | null,
  error: unknown,
): Promise<void> {
  const status = error instanceof AppError ? error.status : 500;
  try {
    await db.tenant(actor.tenantId, (tx) =>
      recordAudit(tx, {
        tenantId: actor.tenantId,
        actorId: actor.userId,
        actorKind: actor.kind ?? 'user',
        ip: actor.ip,
        requestId: actor.requestId,
        action: command.action,
        objectType: command.objectType,
        objectId,
        outcome: status === 403 ? 'denied' : 'failed',
        reason: error instanceof Error ? error.message : String(error),
      }),
    );
  } catch {
    // The audit of a refusal must never turn the refusal into a 500.
  }
}

/**
 * Runs a command: the permission, then the input (read by `readInput`) through its schema, then the
 * work in one tenant transaction.
 * A refusal (AppError, zod error) is audited and thrown on for the adapter to answer in its own form.
 */
export async function runCommand<I, O>(
  call: CommandCall,
  command: Command<I, O>,
  readInput: () => unknown,
): Promise<O> {
  try {
    // The permission first: a caller who may not run the command learns nothing about its input rules.
    if (!allows(call.permissionSubject, command.permission))
      throw new AppError('FORBIDDEN', 'You do not have permission to do this');
    const input = command.input.parse(await readInput());
    return await call.db.tenant(call.actor.tenantId, (tx) =>
      command.run(tx, call.actor, input, { language: call.language ?? 'en' }),
    );
  } catch (error) {
    await auditRefusal(call.db, call.actor, command as Command<unknown, unknown>, call.objectId ?? null, error);
    throw error;
  }
}
