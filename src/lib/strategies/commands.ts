import { z } from 'zod';
import type { Tx } from '../db/index.ts';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { need } from '../auth/permissions.ts';
import { getModel, getVersion, markVersionUsed } from '../decisioning/models.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import { enqueueJob } from '../jobs/queue.ts';
import type { Actor } from '../lending/actor.ts';
import { getProduct } from '../lending/products.ts';
import { businessDate } from '../tenancy/tenant.ts';
import { ACTION_PERMISSION, transitionStrategy, type StrategyAction } from './lifecycle.ts';
import { SIMULATION_JOB } from './simulation-job-name.ts';
import { registerSimulationJob } from './simulation.ts';
import {
  contextOf,
  getStrategy,
  liveVersionOf,
  openVersionOf,
  strategyDetail,
  strategyVersions,
  type StrategyDetail,
  type StrategyRow,
  type StrategyVersionRow,
} from './strategies.ts';
import { strategyTermsSchema, type StrategyTerms } from './terms.ts';

/**
 * The strategy lifecycle's steps as commands (src/lib/http/command.ts), run by /v1/strategies… and by
 * the strategy pages' forms. Each step needs its own permission; the lifecycle (lifecycle.ts) says
 * whether the strategy's state allows it, and every change is audited with before and after.
 */

// The simulation job's handler is known wherever its job can be queued.
registerSimulationJob();

const idField = z.string().trim().max(100);
const strategyId = z.object({ strategyId: idField }).strict();

type Snapshot = {
  status: string;
  liveVersion: number | null;
  version: {
    version: number;
    stage: string;
    terms: StrategyTerms | null;
    signatures: Record<string, string | null>;
  } | null;
};

function snapshotOf(strategy: StrategyRow, version: StrategyVersionRow | null): Snapshot {
  return {
    status: strategy.status,
    liveVersion: strategy.live_version,
    version: version
      ? {
          version: version.version,
          stage: version.stage,
          terms: version.terms,
          signatures: {
            provider: version.provider_validated_by,
            client: version.client_validated_by,
            liveValidation: version.live_validated_by,
          },
        }
      : null,
  };
}

function audit(tx: Tx, actor: Actor, action: string, id: string, before: unknown, after: unknown) {
  return recordAudit(tx, {
    ...auditActor(actor),
    action,
    objectType: 'strategy',
    objectId: id,
    outcome: 'success',
    before,
    after,
  });
}

export type StrategyState = { strategy: StrategyRow; versions: StrategyVersionRow[] };

async function load(tx: Tx, id: string): Promise<StrategyState> {
  const strategy = await getStrategy(tx, id, { lock: true });
  return { strategy, versions: await strategyVersions(tx, strategy.id) };
}

/** Loads, checks the lifecycle for `action`, runs `change` and audits before/after. */
async function step(
  tx: Tx,
  actor: Actor,
  id: string,
  action: StrategyAction,
  change: (state: StrategyState, open: StrategyVersionRow | null) => Promise<void>,
): Promise<StrategyDetail> {
  const before = await load(tx, id);
  const open = openVersionOf(before.versions);
  transitionStrategy(before.strategy.status, action, contextOf(before.strategy, before.versions, actor.userId));
  await change(before, open);
  await tx.query(`update strategies set updated_at = now(), row_version = row_version + 1 where id = $1`, [id]);
  const after = await load(tx, id);
  const changed = (s: StrategyState) =>
    openVersionOf(s.versions) ?? s.versions.find((v) => v.id === open?.id) ?? liveVersionOf(s.strategy, s.versions);
  await audit(
    tx,
    actor,
    `strategy.${action}`,
    id,
    snapshotOf(before.strategy, open ?? liveVersionOf(before.strategy, before.versions)),
    snapshotOf(after.strategy, changed(after)),
  );
  return strategyDetail(tx, id, actor.userId);
}

// ---------------------------------------------------------------------------------------------
// request

export const requestStrategyInput = z
  .object({
    /** A new strategy (name) or a new draft version of an existing one (strategyId). */
    name: z.string().trim().min(1).max(120).optional(),
    strategyId: idField.optional(),
    description: z.string().trim().max(2000).default(''),
    note: z.string().trim().max(2000).default(''),
  })
  .strict()
  .refine((v) => Boolean(v.name) !== Boolean(v.strategyId), {
    message: 'Give either the name of a new strategy or the strategy to draft a new version of',
    path: ['name'],
  });

export const requestStrategyCommand = defineCommand({
  action: 'strategy.request',
  objectType: 'strategy',
  permission: need('strategies.strategies.request'),
  input: requestStrategyInput,
  run: async (tx, actor, input): Promise<StrategyDetail> => {
    if (input.strategyId) {
      return step(tx, actor, input.strategyId, 'request_version', async ({ strategy, versions }) => {
        const next = (versions[0]?.version ?? 0) + 1;
        const live = liveVersionOf(strategy, versions);
        // The live terms are the starting point of the new draft; it is still only requested.
        await tx.query(
          `insert into strategy_versions (tenant_id, strategy_id, version, stage, request_note, terms)
           values ($1, $2, $3, 'requested', $4, $5::jsonb)`,
          [actor.tenantId, strategy.id, next, input.note, live?.terms ? JSON.stringify(live.terms) : null],
        );
      });
    }
    const [taken] = await tx.query<{ id: string }>(`select id from strategies where lower(name) = lower($1)`, [
      input.name,
    ]);
    if (taken) throw new AppError('ALREADY_EXISTS', 'A strategy with this name already exists', { field: 'name' });
    const [row] = await tx.query<{ id: string }>(
      `insert into strategies (tenant_id, name, description, requested_by) values ($1, $2, $3, $4) returning id`,
      [actor.tenantId, input.name, input.description, actor.userId],
    );
    await tx.query(
      `insert into strategy_versions (tenant_id, strategy_id, version, stage, request_note) values ($1, $2, 1, 'requested', $3)`,
      [actor.tenantId, row.id, input.note],
    );
    const state = await load(tx, row.id);
    await audit(tx, actor, 'strategy.request', row.id, null, snapshotOf(state.strategy, state.versions[0]));
    return strategyDetail(tx, row.id, actor.userId);
  },
});

// ---------------------------------------------------------------------------------------------
// encode

export const encodeDraftInput = z.object({ strategyId: idField, terms: strategyTermsSchema }).strict();

/** The terms' references: a model version of a model of this tenant (RLS), an active product. */
async function checkTerms(tx: Tx, terms: StrategyTerms): Promise<void> {
  const version = await getVersion(tx, terms.modelVersionId).catch(() => null);
  if (!version || version.model_id !== terms.modelId) {
    await getModel(tx, terms.modelId).catch(() => {
      throw new AppError('UNPROCESSABLE', 'This decision model does not exist', { field: 'modelId' });
    });
    throw new AppError('UNPROCESSABLE', 'This version does not belong to the chosen decision model', {
      field: 'modelVersionId',
    });
  }
  const product = await getProduct(tx, terms.productId).catch(() => null);
  if (!product) throw new AppError('UNPROCESSABLE', 'This product does not exist', { field: 'productId' });
  if (!product.is_active) throw new AppError('UNPROCESSABLE', 'This product is not active', { field: 'productId' });
}

export const encodeDraftCommand = defineCommand({
  action: 'strategy.encode',
  objectType: 'strategy',
  permission: need(ACTION_PERMISSION.encode),
  input: encodeDraftInput,
  run: async (tx, actor, input): Promise<StrategyDetail> => {
    await checkTerms(tx, input.terms);
    return step(tx, actor, input.strategyId, 'encode', async (_state, open) => {
      // The pinned model version becomes immutable now, so what is simulated and signed is what goes
      // live: editing the model from here on makes a new version, which the strategist must encode to
      // use. Lock order: the strategy row (step), then the version row; model edits lock only the latter.
      await getVersion(tx, input.terms.modelVersionId, { lock: true });
      await markVersionUsed(tx, input.terms.modelVersionId);
      // New terms: the simulation and both signatures were of the old ones.
      await tx.query(
        `update strategy_versions set terms = $2::jsonb, stage = 'encoded', encoded_by = $3, encoded_at = now(),
           simulation_id = null, provider_validated_by = null, provider_validated_at = null,
           client_validated_by = null, client_validated_at = null
         where id = $1`,
        [open!.id, JSON.stringify(input.terms), actor.userId],
      );
    });
  },
});

// ---------------------------------------------------------------------------------------------
// simulate

export const generateSimulationCommand = defineCommand({
  action: 'strategy.simulate',
  objectType: 'strategy',
  permission: need(ACTION_PERMISSION.simulate),
  input: strategyId,
  run: async (tx, actor, input): Promise<StrategyDetail & { simulationId: string }> => {
    let simulationId = '';
    const state = await step(tx, actor, input.strategyId, 'simulate', async ({ strategy }, open) => {
      const date = await businessDate(tx, actor.tenantId);
      const [sim] = await tx.query<{ id: string }>(
        `insert into strategy_simulations (tenant_id, strategy_id, strategy_version, business_date, requested_by)
         values ($1, $2, $3, $4, $5) returning id`,
        [actor.tenantId, strategy.id, open!.version, date, actor.userId],
      );
      simulationId = sim.id;
      // A new simulation of the same terms: the stage goes back to encoded until it finishes; the signatures were of the old figures.
      await tx.query(
        `update strategy_versions set simulation_id = $2, stage = 'encoded',
           provider_validated_by = null, provider_validated_at = null, client_validated_by = null, client_validated_at = null
         where id = $1`,
        [open!.id, sim.id],
      );
      await enqueueJob(tx, {
        name: SIMULATION_JOB,
        tenantId: actor.tenantId,
        payload: { simulationId: sim.id },
        maxAttempts: 2,
        createdBy: actor.userId,
      });
    });
    return { ...state, simulationId };
  },
});

// ---------------------------------------------------------------------------------------------
// validations, implementation, live validation, deactivation, reactivation

/** A lifecycle step on one strategy (input `{ strategyId }`), with the step's own permission and audit action. */
function stepCommand(
  action: StrategyAction,
  change: (tx: Tx, actor: Actor, state: StrategyState, open: StrategyVersionRow | null) => Promise<void>,
) {
  return defineCommand({
    action: `strategy.${action}`,
    objectType: 'strategy',
    permission: need(ACTION_PERMISSION[action]),
    input: strategyId,
    run: (tx, actor, input): Promise<StrategyDetail> =>
      step(tx, actor, input.strategyId, action, (state, open) => change(tx, actor, state, open)),
  });
}

/** A signature of the open draft; with both, the draft is validated. */
function sign(side: 'provider' | 'client') {
  return async (tx: Tx, actor: Actor, _state: StrategyState, open: StrategyVersionRow | null) => {
    const column = side === 'provider' ? 'provider_validated' : 'client_validated';
    await tx.query(`update strategy_versions set ${column}_by = $2, ${column}_at = now() where id = $1`, [
      open!.id,
      actor.userId,
    ]);
    await tx.query(
      `update strategy_versions set stage = 'validated'
        where id = $1 and provider_validated_by is not null and client_validated_by is not null`,
      [open!.id],
    );
  };
}

export const validateDraftProviderCommand = stepCommand('validate_provider', sign('provider'));
export const validateDraftClientCommand = stepCommand('validate_client', sign('client'));

export const implementStrategyCommand = stepCommand('implement', async (tx, actor, { strategy }, open) => {
  const terms = open!.terms!;
  await checkTerms(tx, terms);
  await tx.query(`update strategy_versions set stage = 'superseded' where strategy_id = $1 and stage = 'implemented'`, [
    strategy.id,
  ]);
  await tx.query(
    `update strategy_versions set stage = 'implemented', implemented_by = $2, implemented_at = now() where id = $1`,
    [open!.id, actor.userId],
  );
  await tx.query(`update strategies set status = 'live', live_version = $2 where id = $1`, [
    strategy.id,
    open!.version,
  ]);
  await markVersionUsed(tx, terms.modelVersionId); // already marked at encode; idempotent
});

export const validateLiveCommand = stepCommand('validate_live', async (tx, actor, { strategy, versions }) => {
  const live = liveVersionOf(strategy, versions)!;
  await tx.query(`update strategy_versions set live_validated_by = $2, live_validated_at = now() where id = $1`, [
    live.id,
    actor.userId,
  ]);
});

export const deactivateStrategyCommand = stepCommand('deactivate', async (tx, _actor, { strategy }) => {
  await tx.query(`update strategies set status = 'inactive' where id = $1`, [strategy.id]);
});

export const reactivateStrategyCommand = stepCommand('reactivate', async (tx, _actor, { strategy }) => {
  await tx.query(`update strategies set status = 'live' where id = $1`, [strategy.id]);
});
