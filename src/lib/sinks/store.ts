import type { Tx } from '../db/index.ts';
import type { EventSinksRow } from '../db/schema.generated.ts';
import { filterSql, openSettings, visibleSettings, type SinkType } from './settings.ts';

/** The reads of the sinks area: a sink as the pages and /v1 show it (settings masked), and its figures. */

export type SinkStatus = 'active' | 'paused';

export type SinkRow = Omit<EventSinksRow, 'type' | 'status' | 'sweep' | 'cursor_seq'> & {
  /** Read as text (`cursor_seq::text`), like the outbox's cursors. */
  cursor_seq: string | null;
  type: SinkType;
  status: SinkStatus;
  sweep: Record<string, { at: string; id: string }>;
};

const COLUMNS = `tenant_id, id, type, name, settings_sealed, settings_hint, event_filter, status, cursor_xid::text as cursor_xid,
  cursor_seq::text as cursor_seq, generation, revision, snapshot_stage, snapshot_after, sweep, delivered_count, first_event_at,
  last_event_at, last_delivered_at, last_run_at, last_error, last_error_at, last_test_at, last_test_ok, last_test_message,
  lease_owner, lease_until, created_by, created_at, updated_at`;

export async function getSinkRow(tx: Tx, id: string): Promise<SinkRow | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const [row] = await tx.query<SinkRow>(`select ${COLUMNS} from event_sinks where id = $1`, [id]);
  return row ?? null;
}

export async function listSinkRows(tx: Tx, type?: SinkType): Promise<SinkRow[]> {
  return tx.query<SinkRow>(
    `select ${COLUMNS} from event_sinks where ($1::text is null or type = $1) order by lower(name), id`,
    [type ?? null],
  );
}

export type SinkFigures = {
  /** Events after the cursor that the filter keeps (capped at 100,000). */
  lagEvents: number;
  /** When the oldest undelivered event happened (null: nothing waiting). */
  oldestPendingAt: string | null;
  lagSeconds: number;
  /** Events delivered per minute over the last hour. */
  perMinute: number;
  deliveredLastHour: number;
};

const LAG_CAP = 100_000;

export async function sinkFigures(tx: Tx, sink: SinkRow): Promise<SinkFigures> {
  const params = [sink.cursor_xid, sink.cursor_seq, sink.event_filter, LAG_CAP];
  const after = `($1::xid8 is null or (xid, seq) > ($1::xid8, $2::bigint)) and ${filterSql(sink.event_filter, 3)}`;
  const [lag] = await tx.query<{ n: number; oldest: string | null; age: number | null }>(
    `select (select count(*)::int from (select 1 from domain_events where ${after} limit $4) x) as n,
            to_char(o.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as oldest,
            extract(epoch from now() - o.occurred_at)::float8 as age
       from (select 1) one
       left join lateral (select occurred_at from domain_events where ${after} order by xid, seq limit 1) o on true`,
    params,
  );
  const [rate] = await tx.query<{ n: number }>(
    `select coalesce(sum(events), 0)::int as n from event_sink_batches
      where sink_id = $1 and delivered_at > now() - interval '1 hour'`,
    [sink.id],
  );
  return {
    lagEvents: lag.n,
    oldestPendingAt: lag.oldest,
    lagSeconds: lag.age === null ? 0 : Math.max(0, Math.round(lag.age)),
    perMinute: Math.round((rate.n / 60) * 10) / 10,
    deliveredLastHour: rate.n,
  };
}

/** A sink as /v1 answers it and the pages show it: never the sealed settings, only the hint and the plain fields. */
export type SinkView = {
  id: string;
  type: SinkType;
  name: string;
  status: SinkStatus;
  events: string[];
  settingsHint: string;
  settings: Record<string, string>;
  deliveredCount: string;
  snapshotPending: boolean;
  lastError: string | null;
  lastErrorAt: Date | null;
  lastDeliveredAt: Date | null;
  lastRunAt: Date | null;
  firstEventAt: Date | null;
  lastEventAt: Date | null;
  lastTest: { at: Date; ok: boolean; message: string } | null;
  revision: number;
  createdAt: Date;
  figures: SinkFigures;
};

/** The sink without its figures (what a write answers). */
export function sinkJson(sink: SinkRow): Omit<SinkView, 'figures'> {
  let settings: Record<string, string>;
  try {
    settings = visibleSettings(openSettings(sink.settings_sealed));
  } catch {
    settings = {}; // sealed with another SESSION_SECRET: the hint still shows what it was
  }
  return {
    id: sink.id,
    type: sink.type,
    name: sink.name,
    status: sink.status,
    events: sink.event_filter,
    settingsHint: sink.settings_hint,
    settings,
    deliveredCount: String(sink.delivered_count),
    snapshotPending: sink.snapshot_stage !== null,
    lastError: sink.last_error,
    lastErrorAt: sink.last_error_at,
    lastDeliveredAt: sink.last_delivered_at,
    lastRunAt: sink.last_run_at,
    firstEventAt: sink.first_event_at,
    lastEventAt: sink.last_event_at,
    lastTest:
      sink.last_test_at && sink.last_test_ok !== null
        ? { at: sink.last_test_at, ok: sink.last_test_ok, message: sink.last_test_message ?? '' }
        : null,
    revision: sink.revision,
    createdAt: sink.created_at,
  };
}

export async function sinkView(tx: Tx, sink: SinkRow): Promise<SinkView> {
  return { ...sinkJson(sink), figures: await sinkFigures(tx, sink) };
}

export async function listSinkViews(tx: Tx, type?: SinkType): Promise<SinkView[]> {
  const rows = await listSinkRows(tx, type);
  const out: SinkView[] = [];
  for (const row of rows) out.push(await sinkView(tx, row));
  return out;
}

/** Events exported per month (YYYY-MM), for the resource usage page. */
export async function exportedPerMonth(tx: Tx, months: readonly string[]): Promise<Record<string, number>> {
  const rows = await tx.query<{ month: string; n: number }>(
    `select to_char(delivered_at at time zone 'UTC', 'YYYY-MM') as month, sum(events)::int as n
       from event_sink_batches where to_char(delivered_at at time zone 'UTC', 'YYYY-MM') = any($1::text[]) group by 1`,
    [months],
  );
  return Object.fromEntries(rows.map((r) => [r.month, r.n]));
}
