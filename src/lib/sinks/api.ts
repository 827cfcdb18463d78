import { requirePrincipal } from '../auth/principal.ts';
import { getDb, type Db } from '../db/index.ts';
import { errorResponse, json } from '../http/respond.ts';
import { runCommand } from '../http/command.ts';
import { actorFromPrincipal } from '../lending/actor.ts';
import type { ApiContext } from '../lending/api.ts';
import { testEventSinkCommand } from './commands.ts';
import { testTarget } from './run.ts';
import { openSettings } from './settings.ts';
import type { SinkRow } from './store.ts';
import { errorText } from './target.ts';

export type SinkTestResult = { ok: boolean; message: string; at: string };

/**
 * Reaches a sink's target with its saved settings (outside any product transaction: the remote
 * server may take seconds), then records the outcome on the sink.
 */
export async function runSinkTest(db: Db, tenantId: string, sink: SinkRow): Promise<SinkTestResult> {
  let ok = false;
  let message: string;
  try {
    message = await testTarget(openSettings(sink.settings_sealed));
    ok = true;
  } catch (error) {
    message = errorText(error);
  }
  const at = new Date().toISOString();
  await db.tenant(tenantId, (tx) =>
    tx.query(
      `update event_sinks set last_test_at = $2::timestamptz, last_test_ok = $3, last_test_message = $4 where id = $1`,
      [sink.id, at, ok, message],
    ),
  );
  return { ok, message, at };
}

/** POST /v1/event-sinks/{id}/test: the test command (permission, audit), then the connection. */
export async function testSinkEndpoint(ctx: ApiContext, id: string): Promise<Response> {
  try {
    const principal = requirePrincipal(ctx.principal);
    const actor = actorFromPrincipal(principal, { ip: ctx.ip, requestId: ctx.requestId });
    const db = await getDb();
    const sink = await runCommand(
      { db, actor, permissionSubject: principal, objectId: id, language: ctx.language },
      testEventSinkCommand,
      () => ({ id }),
    );
    return json(await runSinkTest(db, actor.tenantId, sink));
  } catch (error) {
    return errorResponse(error, ctx.requestId, ctx.language);
  }
}
