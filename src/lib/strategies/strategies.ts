import type { Tx } from '../db/index.ts';
import type { StrategiesRow, StrategySimulationsRow, StrategyVersionsRow } from '../db/schema.generated.ts';
import { scopeNodesFor, type ScopeHolder } from '../auth/data-permissions.ts';
import { AppError } from '../errors/app-error.ts';
import { formatMinorPlain } from '../money/parse.ts';
import {
  dryRunStrategy,
  OPEN_STAGES,
  type StrategyContext,
  type StrategyStatus,
  type VersionStage,
} from './lifecycle.ts';
import type { StrategyTerms } from './terms.ts';

/** Reading strategies, their versions and simulations (migration 0605). Writes are in commands.ts. */

export type StrategyRow = Omit<StrategiesRow, 'status'> & { status: StrategyStatus };
export type StrategyVersionRow = Omit<StrategyVersionsRow, 'stage' | 'terms'> & {
  stage: VersionStage;
  terms: StrategyTerms | null;
};
export type SimulationStatus = 'queued' | 'running' | 'done' | 'failed';
export type SimulationRow = Omit<StrategySimulationsRow, 'status' | 'results'> & {
  status: SimulationStatus;
  results: SimulationResults | null;
};

/** Figures of one side (draft, live baseline or live with the draft), amounts in minor units as decimal strings. */
export type SideFigures = {
  offers: number;
  amount: string;
  expectedLoss: string;
  byClass: { riskClass: string; offers: number; amount: string; expectedLoss: string }[];
};
export type SimulationResults = {
  currency: string;
  digits: number;
  customers: number;
  /** The draft's terms alone. */
  draft: SideFigures;
  /** What the live strategies give today (a customer counts once, with the largest offer). */
  live: SideFigures;
  /** What they would give with the draft live (the draft replaces this strategy's own live version). */
  withDraft: SideFigures;
  /** Observed default rates by risk class (defaulted / disbursed loans), and the portfolio's. */
  defaultRates: { riskClass: string; disbursed: number; defaulted: number }[];
  portfolioRate: { disbursed: number; defaulted: number };
  changed: number;
  liveStrategies: { id: string; name: string; version: number }[];
  ms: number;
};

export type StrategyListItem = StrategyRow & { open_version: number | null; open_stage: VersionStage | null };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (id: unknown): id is string => typeof id === 'string' && UUID.test(id);

export async function listStrategies(
  tx: Tx,
  opts: { status?: StrategyStatus | null } = {},
): Promise<StrategyListItem[]> {
  return tx.query<StrategyListItem>(
    `select s.*, v.version as open_version, v.stage as open_stage
       from strategies s
       left join strategy_versions v on v.strategy_id = s.id and v.stage = any($2::text[])
      where ($1::text is null or s.status = $1)
      order by s.updated_at desc, s.id`,
    [opts.status ?? null, OPEN_STAGES],
  );
}

export async function findStrategy(tx: Tx, id: string, opts: { lock?: boolean } = {}): Promise<StrategyRow | null> {
  if (!isUuid(id)) return null;
  const [row] = await tx.query<StrategyRow>(`select * from strategies where id = $1${opts.lock ? ' for update' : ''}`, [
    id,
  ]);
  return row ?? null;
}

export async function getStrategy(tx: Tx, id: string, opts: { lock?: boolean } = {}): Promise<StrategyRow> {
  const row = await findStrategy(tx, id, opts);
  if (!row) throw new AppError('NOT_FOUND', 'Strategy not found');
  return row;
}

/** Every version, newest first. */
export async function strategyVersions(tx: Tx, strategyId: string): Promise<StrategyVersionRow[]> {
  return tx.query<StrategyVersionRow>(`select * from strategy_versions where strategy_id = $1 order by version desc`, [
    strategyId,
  ]);
}

export function openVersionOf(versions: readonly StrategyVersionRow[]): StrategyVersionRow | null {
  return versions.find((v) => OPEN_STAGES.includes(v.stage)) ?? null;
}

export function liveVersionOf(
  strategy: StrategyRow,
  versions: readonly StrategyVersionRow[],
): StrategyVersionRow | null {
  return strategy.live_version === null ? null : (versions.find((v) => v.version === strategy.live_version) ?? null);
}

/** What the lifecycle's guards look at, for one actor. */
export function contextOf(
  strategy: StrategyRow,
  versions: readonly StrategyVersionRow[],
  actorId: string,
): StrategyContext {
  const open = openVersionOf(versions);
  const live = liveVersionOf(strategy, versions);
  return {
    status: strategy.status,
    openStage: open?.stage ?? null,
    simulationDone: open ? open.stage === 'simulated' || open.stage === 'validated' : false,
    providerValidatedBy: open?.provider_validated_by ?? null,
    clientValidatedBy: open?.client_validated_by ?? null,
    liveVersion: strategy.live_version,
    liveValidatedBy: live?.live_validated_by ?? null,
    actorId,
  };
}

export async function findSimulation(tx: Tx, strategyId: string, simulationId: string): Promise<SimulationRow | null> {
  if (!isUuid(simulationId)) return null;
  const [row] = await tx.query<SimulationRow>(`select * from strategy_simulations where id = $1 and strategy_id = $2`, [
    simulationId,
    strategyId,
  ]);
  return row ?? null;
}

export async function latestSimulation(tx: Tx, strategyId: string): Promise<SimulationRow | null> {
  const [row] = await tx.query<SimulationRow>(
    `select * from strategy_simulations where strategy_id = $1 order by created_at desc, id limit 1`,
    [strategyId],
  );
  return row ?? null;
}

export type SimulationChange = {
  customer_id: string;
  customer_name: string;
  live_outcome: 'offer' | 'none';
  draft_outcome: 'offer' | 'none';
  live_amount: bigint | null;
  draft_amount: bigint | null;
  risk_class: string | null;
  reason: string;
};

/** The viewer's customers: those of a branch or officer in their data-permission scope (null nodes: all). */
const IN_SCOPE = `($2::uuid[] is null or cu.branch_id = any($2::uuid[]) or cu.officer_id = any($2::uuid[]))`;

/**
 * A page of the customers whose outcome the draft changes, in customer id order after `afterId`:
 * only the viewer's customers (their data permissions), like every customer list. The simulation's
 * totals still cover the whole tenant; `simulationChangesOutsideScope` says how many are not listed.
 */
export async function simulationChanges(
  tx: Tx,
  simulationId: string,
  viewer: ScopeHolder,
  opts: { afterId?: string | null; limit: number },
): Promise<SimulationChange[]> {
  return tx.query<SimulationChange>(
    `select c.customer_id, coalesce(nullif(trim(cu.first_name || ' ' || cu.last_name), ''), c.customer_id::text) as customer_name,
            c.live_outcome, c.draft_outcome, c.live_amount, c.draft_amount, c.risk_class, c.reason
       from strategy_simulation_changes c
       left join customers cu on cu.id = c.customer_id
      where c.simulation_id = $1 and ${IN_SCOPE} and ($3::uuid is null or c.customer_id > $3::uuid)
      order by c.customer_id
      limit $4`,
    [simulationId, await scopeNodesFor(tx, viewer), isUuid(opts.afterId) ? opts.afterId : null, opts.limit],
  );
}

/** How many changed customers of the simulation lie outside the viewer's scope (not listed to them). */
export async function simulationChangesOutsideScope(
  tx: Tx,
  simulationId: string,
  viewer: ScopeHolder,
): Promise<number> {
  const nodes = await scopeNodesFor(tx, viewer);
  if (nodes === null) return 0;
  const [row] = await tx.query<{ n: number }>(
    `select count(*)::int as n
       from strategy_simulation_changes c
       left join customers cu on cu.id = c.customer_id
      where c.simulation_id = $1 and not coalesce(${IN_SCOPE}, false)`,
    [simulationId, nodes],
  );
  return row?.n ?? 0;
}

export function strategyJson(s: StrategyRow) {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    status: s.status,
    liveVersion: s.live_version,
    requestedBy: s.requested_by,
    requestedAt: s.requested_at,
    updatedAt: s.updated_at,
  };
}

export function versionJson(v: StrategyVersionRow) {
  return {
    id: v.id,
    version: v.version,
    stage: v.stage,
    requestNote: v.request_note,
    terms: v.terms,
    encodedBy: v.encoded_by,
    encodedAt: v.encoded_at,
    simulationId: v.simulation_id,
    providerValidatedBy: v.provider_validated_by,
    providerValidatedAt: v.provider_validated_at,
    clientValidatedBy: v.client_validated_by,
    clientValidatedAt: v.client_validated_at,
    implementedBy: v.implemented_by,
    implementedAt: v.implemented_at,
    liveValidatedBy: v.live_validated_by,
    liveValidatedAt: v.live_validated_at,
  };
}

export function simulationJson(s: SimulationRow) {
  return {
    id: s.id,
    strategyId: s.strategy_id,
    version: s.strategy_version,
    status: s.status,
    customersDone: s.customers_done,
    customersTotal: s.customers_total,
    businessDate: s.business_date,
    results: s.results,
    error: s.error,
    createdAt: s.created_at,
    startedAt: s.started_at,
    finishedAt: s.finished_at,
  };
}

export function changeJson(c: SimulationChange, digits: number) {
  return {
    customerId: c.customer_id,
    customerName: c.customer_name,
    liveOutcome: c.live_outcome,
    draftOutcome: c.draft_outcome,
    liveAmount: c.live_amount === null ? null : formatMinorPlain(BigInt(c.live_amount), digits),
    draftAmount: c.draft_amount === null ? null : formatMinorPlain(BigInt(c.draft_amount), digits),
    riskClass: c.risk_class,
    reason: c.reason,
  };
}

/** Everything the API and the strategy page show about one strategy, with the lifecycle's dry run for `actorId`. */
export async function strategyDetail(tx: Tx, id: string, actorId: string) {
  const strategy = await getStrategy(tx, id);
  const versions = await strategyVersions(tx, strategy.id);
  const open = openVersionOf(versions);
  const live = liveVersionOf(strategy, versions);
  const simulation = open?.simulation_id
    ? await findSimulation(tx, strategy.id, open.simulation_id)
    : await latestSimulation(tx, strategy.id);
  return {
    strategy,
    versions,
    open,
    live,
    simulation,
    actions: dryRunStrategy(strategy.status, contextOf(strategy, versions, actorId)),
  };
}
export type StrategyDetail = Awaited<ReturnType<typeof strategyDetail>>;

export function detailJson(d: StrategyDetail) {
  return {
    ...strategyJson(d.strategy),
    openVersion: d.open ? versionJson(d.open) : null,
    live: d.live ? versionJson(d.live) : null,
    versions: d.versions.map((v) => ({ version: v.version, stage: v.stage })),
    simulation: d.simulation ? simulationJson(d.simulation) : null,
    actions: d.actions.map((a) => ({ action: a.action, allowed: a.allowed, reason: a.reason?.code ?? null })),
  };
}

/** Display names of the users who acted (ids that are not users, e.g. 'system', stay as they are). */
export async function userNames(tx: Tx, ids: readonly (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => isUuid(id)))];
  if (wanted.length === 0) return new Map();
  const rows = await tx.query<{ id: string; display_name: string }>(
    `select id::text as id, display_name from users where id = any($1::uuid[])`,
    [wanted],
  );
  return new Map(rows.map((r) => [r.id, r.display_name]));
}
