import {
  dryRunMachine,
  transitionMachine,
  type DryRunEntry,
  type Machine,
  type Refusal,
} from '../lending/lifecycle/machine.ts';

/**
 * A lending strategy's lifecycle (spec §4): the strategy is draft (never live), live or inactive; its
 * open version (at most one) moves requested → encoded → simulated → validated (two signatures, the
 * provider's and the client's, by two different people) → implemented. Each step is its own action
 * with its own permission (commands.ts); the dry run gives the pages their buttons and the reasons
 * of the disabled ones, and the commands refuse with the same reasons.
 */
export const STRATEGY_STATUSES = ['draft', 'live', 'inactive'] as const;
export type StrategyStatus = (typeof STRATEGY_STATUSES)[number];
export const VERSION_STAGES = ['requested', 'encoded', 'simulated', 'validated', 'implemented', 'superseded'] as const;
export type VersionStage = (typeof VERSION_STAGES)[number];
export const OPEN_STAGES: readonly VersionStage[] = ['requested', 'encoded', 'simulated', 'validated'];

export const STRATEGY_ACTIONS = [
  'request_version',
  'encode',
  'simulate',
  'validate_provider',
  'validate_client',
  'implement',
  'validate_live',
  'deactivate',
  'reactivate',
] as const;
export type StrategyAction = (typeof STRATEGY_ACTIONS)[number];

export type StrategyContext = {
  /** The strategy's status (steps on the draft keep it). */
  status: StrategyStatus;
  /** The open version's stage (null: no open version). */
  openStage: VersionStage | null;
  /** The open version's simulation of its current terms has finished. */
  simulationDone: boolean;
  providerValidatedBy: string | null;
  clientValidatedBy: string | null;
  liveVersion: number | null;
  liveValidatedBy: string | null;
  /** Who would act (the four-eyes rule of the two signatures). */
  actorId: string;
};

const conflict = (code: string, message: string): Refusal => ({ code, message, kind: 'CONFLICT' });
const ALL = STRATEGY_STATUSES;

const needOpen = (c: StrategyContext) =>
  c.openStage ? null : conflict('no_open_version', 'This strategy has no open draft version; request one first');
const needEncoded = (c: StrategyContext) =>
  needOpen(c) ??
  (c.openStage === 'requested' ? conflict('not_encoded', 'The draft has no terms yet; encode it first') : null);
const needSimulated = (c: StrategyContext) =>
  needEncoded(c) ??
  (c.simulationDone ? null : conflict('not_simulated', 'The draft’s terms have no finished simulation yet'));

function signGuard(side: 'provider' | 'client') {
  return (c: StrategyContext): Refusal | null => {
    const refusal = needSimulated(c);
    if (refusal) return refusal;
    const own = side === 'provider' ? c.providerValidatedBy : c.clientValidatedBy;
    const other = side === 'provider' ? c.clientValidatedBy : c.providerValidatedBy;
    if (own) return conflict('already_validated', `The draft is already validated by the ${side}`);
    if (other && other === c.actorId)
      return conflict(
        'same_person',
        'You already validated this draft for the other side; the provider and the client must be two different people',
      );
    return null;
  };
}

export const strategyMachine: Machine<StrategyStatus, StrategyAction, StrategyContext> = {
  name: 'strategy',
  states: STRATEGY_STATUSES,
  actions: {
    request_version: {
      from: ['live', 'inactive'],
      to: (c) => c.status,
      guard: (c) => (c.openStage ? conflict('open_version', 'This strategy already has an open draft version') : null),
    },
    encode: { from: ALL, to: (c) => c.status, guard: needOpen },
    simulate: { from: ALL, to: (c) => c.status, guard: needEncoded },
    validate_provider: { from: ALL, to: (c) => c.status, guard: signGuard('provider') },
    validate_client: { from: ALL, to: (c) => c.status, guard: signGuard('client') },
    implement: {
      from: ALL,
      to: 'live',
      // An inactive strategy goes live again only through reactivate (its own permission); a new
      // version of it is implemented once it is live again.
      guard: (c) =>
        (c.status === 'inactive'
          ? conflict('inactive', 'This strategy is inactive; reactivate it before implementing a new version')
          : null) ??
        needSimulated(c) ??
        (c.providerValidatedBy && c.clientValidatedBy
          ? null
          : conflict('not_validated', 'The draft needs both the provider’s and the client’s validation')),
    },
    validate_live: {
      from: ['live'],
      to: 'live',
      guard: (c) => (c.liveValidatedBy ? conflict('already_validated', 'The live version is already validated') : null),
    },
    deactivate: { from: ['live'], to: 'inactive' },
    reactivate: {
      from: ['inactive'],
      to: 'live',
      guard: (c) => (c.liveVersion ? null : conflict('no_live_version', 'This strategy has never been live')),
    },
  },
};

export function dryRunStrategy(
  state: StrategyStatus,
  context: StrategyContext,
): DryRunEntry<StrategyStatus, StrategyAction>[] {
  return dryRunMachine(strategyMachine, state, context);
}

export function transitionStrategy(
  state: StrategyStatus,
  action: StrategyAction,
  context: StrategyContext,
): StrategyStatus {
  return transitionMachine(strategyMachine, state, action, context);
}

/** The permission of each action (src/lib/auth/permissions.ts), for buttons and the manifest. */
export const ACTION_PERMISSION = {
  request_version: 'strategies.strategies.request',
  encode: 'strategies.strategies.encode_draft',
  simulate: 'strategies.strategies.generate_simulation',
  validate_provider: 'strategies.strategies.validate_draft_provider',
  validate_client: 'strategies.strategies.validate_draft_client',
  implement: 'strategies.strategies.implement',
  validate_live: 'strategies.strategies.validate_live',
  deactivate: 'strategies.strategies.deactivate_live',
  reactivate: 'strategies.strategies.reactivate_inactive',
} as const satisfies Record<StrategyAction, string>;
