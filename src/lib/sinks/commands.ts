import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { need } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import { AppError, pgCode } from '../errors/app-error.ts';
import { cursorBefore } from '../events/outbox.ts';
import { defineCommand } from '../http/command.ts';
import type { Actor } from '../lending/actor.ts';
import { queueSinkRun } from './run.ts';
import {
  checkEventFilter,
  checkSettings,
  openSettings,
  SETTINGS_FIELDS,
  sealSettings,
  settingsHint,
  SINK_TYPES,
  type SinkSettings,
  type SinkType,
} from './settings.ts';
import { getSinkRow, type SinkRow } from './store.ts';

/**
 * The writes of admin › notifications › events and /v1/event-sinks, as commands (the form pages and
 * the API run the same ones), each audited without its settings (only the masked hint).
 */

const EDIT = need('admin.events.edit');
const optionalText = (max: number) => z.string().max(max).optional();
const settingsFields = {
  connectionString: optionalText(2000),
  schema: optionalText(63),
  projectId: optionalText(100),
  dataset: optionalText(100),
  credentials: optionalText(20_000),
  apiEndpoint: optionalText(500),
  baseUrl: optionalText(500),
  tenantIdentifier: optionalText(100),
  username: optionalText(100),
  password: optionalText(200),
  officeId: z.union([z.string().max(12), z.number()]).optional(),
  loanProductId: z.union([z.string().max(12), z.number()]).optional(),
};
const eventsField = z.union([z.array(z.string().max(100)).max(100), z.string().max(5000)]).optional();

function checkName(raw: string | undefined): string {
  const name = (raw ?? '').trim();
  if (!name) throw new AppError('BAD_REQUEST', 'name is required', { field: 'name' });
  if (name.length > 100) throw new AppError('BAD_REQUEST', 'name must be at most 100 characters', { field: 'name' });
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(name))
    throw new AppError('BAD_REQUEST', 'name must not contain control characters', { field: 'name' });
  return name;
}

function settingsInput(input: Record<string, unknown>, type: SinkType): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (!(key in settingsFields) || value === undefined) continue;
    if (!SETTINGS_FIELDS[type].includes(key))
      throw new AppError('BAD_REQUEST', `${key} is not a setting of a ${type} sink`, { field: key });
    out[key] = value;
  }
  return out;
}

const notFound = () => new AppError('NOT_FOUND', 'This event sink does not exist.');

async function loadSink(tx: Tx, id: string): Promise<SinkRow> {
  const sink = await getSinkRow(tx, id);
  if (!sink) throw notFound();
  return sink;
}

function auditView(sink: Pick<SinkRow, 'type' | 'name' | 'status' | 'event_filter' | 'settings_hint'>) {
  return {
    type: sink.type,
    name: sink.name,
    status: sink.status,
    events: sink.event_filter,
    settings: sink.settings_hint,
  };
}

async function audit(tx: Tx, actor: Actor, action: string, id: string, before: unknown, after: unknown) {
  await recordAudit(tx, {
    ...auditActor(actor),
    action,
    objectType: 'event_sink',
    objectId: id,
    ...(before ? { before } : {}),
    ...(after ? { after } : {}),
    outcome: 'success',
  });
}

const nameTaken = (error: unknown): never => {
  if (pgCode(error) === '23505')
    throw new AppError('ALREADY_EXISTS', 'name is already used by another sink', { field: 'name' });
  throw error;
};

export const createEventSinkCommand = defineCommand({
  action: 'event_sink.create',
  objectType: 'event_sink',
  permission: EDIT,
  input: z
    .object({ type: z.enum(SINK_TYPES), name: z.string().max(500), events: eventsField, ...settingsFields })
    .strict(),
  run: async (tx, actor, input) => {
    const name = checkName(input.name);
    const events = checkEventFilter(input.events);
    const settings = await checkSettings(input.type, settingsInput(input, input.type));
    const [row] = await tx
      .query<{ id: string }>(
        `insert into event_sinks (tenant_id, type, name, settings_sealed, settings_hint, event_filter, snapshot_stage, created_by)
         values ($1, $2, $3, $4, $5, $6::text[], 'customers', $7) returning id`,
        [
          actor.tenantId,
          input.type,
          name,
          sealSettings(settings),
          settingsHint(settings),
          events,
          actor.kind === 'user' || actor.kind === 'token' ? actor.userId : null,
        ],
      )
      .catch(nameTaken);
    const sink = await loadSink(tx, row.id);
    await audit(tx, actor, 'event_sink.create', sink.id, null, auditView(sink));
    await queueSinkRun(tx, actor.tenantId, sink.id);
    return sink;
  },
});

export const updateEventSinkCommand = defineCommand({
  action: 'event_sink.update',
  objectType: 'event_sink',
  permission: EDIT,
  input: z
    .object({
      id: z.string().max(100),
      expectedRevision: z.coerce.number().int().optional(),
      name: z.string().max(500).optional(),
      events: eventsField,
      ...settingsFields,
    })
    .strict(),
  run: async (tx, actor, input) => {
    const before = await loadSink(tx, input.id);
    await tx.query('select 1 from event_sinks where id = $1 for update', [before.id]);
    if (input.expectedRevision !== undefined && input.expectedRevision !== before.revision)
      throw new AppError('CONFLICT', 'This sink was changed by someone else: reload it and try again.', {
        field: 'expectedRevision',
      });
    const name = input.name === undefined ? before.name : checkName(input.name);
    const events = input.events === undefined ? before.event_filter : checkEventFilter(input.events);
    const raw = settingsInput(input, before.type);
    let settings: SinkSettings | null = null;
    if (Object.keys(raw).length) {
      let previous: SinkSettings | null;
      try {
        previous = openSettings(before.settings_sealed);
      } catch {
        previous = null;
      }
      settings = await checkSettings(before.type, raw, previous);
    }
    await tx
      .query(
        `update event_sinks set name = $2, event_filter = $3::text[], revision = revision + 1, updated_at = now(),
                settings_sealed = coalesce($4, settings_sealed), settings_hint = coalesce($5, settings_hint),
                generation = generation + case when $4::text is null then 0 else 1 end,
                -- new connection settings may name a new target: copy the tables again (events: replay)
                snapshot_stage = case when $4::text is null then snapshot_stage else 'customers' end,
                snapshot_after = case when $4::text is null then snapshot_after else null end
          where id = $1`,
        [before.id, name, events, settings ? sealSettings(settings) : null, settings ? settingsHint(settings) : null],
      )
      .catch(nameTaken);
    const after = await loadSink(tx, before.id);
    await audit(tx, actor, 'event_sink.update', after.id, auditView(before), auditView(after));
    return after;
  },
});

export const deleteEventSinkCommand = defineCommand({
  action: 'event_sink.delete',
  objectType: 'event_sink',
  permission: EDIT,
  input: z.object({ id: z.string().max(100) }).strict(),
  run: async (tx, actor, input) => {
    const before = await loadSink(tx, input.id);
    await tx.query('delete from event_sinks where id = $1', [before.id]);
    await audit(tx, actor, 'event_sink.delete', before.id, auditView(before), null);
    return before;
  },
});

function statusCommand(action: 'pause' | 'resume') {
  return defineCommand({
    action: `event_sink.${action}`,
    objectType: 'event_sink',
    permission: EDIT,
    input: z.object({ id: z.string().max(100) }).strict(),
    run: async (tx, actor, input) => {
      const before = await loadSink(tx, input.id);
      const status = action === 'pause' ? 'paused' : 'active';
      await tx.query(
        `update event_sinks set status = $2, revision = revision + 1, updated_at = now(),
                last_error = case when $2 = 'active' then null else last_error end
          where id = $1`,
        [before.id, status],
      );
      const after = await loadSink(tx, before.id);
      await audit(tx, actor, `event_sink.${action}`, after.id, auditView(before), auditView(after));
      if (status === 'active') await queueSinkRun(tx, actor.tenantId, after.id);
      return after;
    },
  });
}

export const pauseEventSinkCommand = statusCommand('pause');
export const resumeEventSinkCommand = statusCommand('resume');

/** A point in time: an ISO moment, or a form's `YYYY-MM-DDTHH:MM` / `YYYY-MM-DD` read as UTC. */
export function parseSince(raw: string): string {
  const text = raw.trim();
  const withZone = /^\d{4}-\d{2}-\d{2}$/.test(text)
    ? `${text}T00:00:00Z`
    : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$/.test(text)
      ? `${text}Z`
      : text;
  const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/.test(withZone)
    ? new Date(withZone)
    : null;
  const day = text.slice(0, 10);
  const midnight = new Date(`${day}T00:00:00Z`);
  const isRealDay =
    /^\d{4}-\d{2}-\d{2}$/.test(day) && !Number.isNaN(midnight.getTime()) && midnight.toISOString().startsWith(day);
  if (
    !at ||
    !isRealDay ||
    Number.isNaN(at.getTime()) ||
    at.getUTCFullYear() < 2000 ||
    at.getTime() > Date.now() + 86_400_000
  )
    throw new AppError('BAD_REQUEST', 'since must be a date and time such as 2026-01-31T12:00Z, not in the future', {
      field: 'since',
    });
  return at.toISOString();
}

/**
 * Replay from a point in time: the cursor goes back to just before the first event at or after
 * `since` (`cursorBefore`), the snapshot is taken again, and the sink is active. The target converges
 * to the same state because every write is an upsert by id.
 */
export const replayEventSinkCommand = defineCommand({
  action: 'event_sink.replay',
  objectType: 'event_sink',
  permission: EDIT,
  input: z.object({ id: z.string().max(100), since: z.string().max(64) }).strict(),
  run: async (tx, actor, input) => {
    const before = await loadSink(tx, input.id);
    const since = parseSince(input.since);
    const cursor = await cursorBefore(tx, since);
    await tx.query(
      `update event_sinks set cursor_xid = $2::xid8, cursor_seq = $3::bigint, status = 'active',
              snapshot_stage = 'customers', snapshot_after = null, sweep = '{}', generation = generation + 1,
              revision = revision + 1, updated_at = now(), last_error = null, last_error_at = null
        where id = $1`,
      [before.id, cursor?.xid ?? null, cursor?.seq ?? null],
    );
    const after = await loadSink(tx, before.id);
    await audit(tx, actor, 'event_sink.replay', after.id, auditView(before), { ...auditView(after), since });
    await queueSinkRun(tx, actor.tenantId, after.id);
    return { sink: after, since };
  },
});

/**
 * "Test connection", step 1 (the command: permission, audit, the sealed settings read in a short
 * transaction). Step 2, the connection itself, runs after the transaction (`runSinkTest`): a
 * database connection is never held while a remote server answers.
 */
export const testEventSinkCommand = defineCommand({
  action: 'event_sink.test',
  objectType: 'event_sink',
  permission: EDIT,
  input: z.object({ id: z.string().max(100) }).strict(),
  run: async (tx, actor, input) => {
    const sink = await loadSink(tx, input.id);
    await audit(tx, actor, 'event_sink.test', sink.id, null, null);
    return sink;
  },
});
