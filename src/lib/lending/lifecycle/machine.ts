import { AppError } from '#lib/errors/app-error.ts';

/**
 * A small state machine with a dry run (Fineract DefaultLoanLifecycleStateMachine.dryTransition):
 * every action lists the states it starts from, where it leads, and an optional guard that looks at
 * the context and names why the action is refused. The UI shows buttons from `dryRun`; commands call
 * `transition`, which throws the same reason as a CONFLICT/FORBIDDEN error.
 */
export type Refusal = {
  /** Stable code the UI translates (lending:refusal.<code>). */
  code: string;
  /** English explanation for logs, API errors and tests. */
  message: string;
  /** FORBIDDEN when it is about who acts (maker-checker), CONFLICT when about the object's state. */
  kind?: 'FORBIDDEN' | 'CONFLICT';
};

export type ActionSpec<S extends string, C> = {
  from: readonly S[];
  to: S | ((context: C) => S);
  guard?: (context: C) => Refusal | null;
};

export type Machine<S extends string, A extends string, C> = {
  readonly name: string;
  readonly states: readonly S[];
  readonly actions: { readonly [K in A]: ActionSpec<S, C> };
};

export type DryRunEntry<S extends string, A extends string> = {
  action: A;
  allowed: boolean;
  /** Target state when allowed. */
  to?: S;
  reason?: Refusal;
};

function check<S extends string, A extends string, C>(
  machine: Machine<S, A, C>,
  state: S,
  action: A,
  context: C,
): DryRunEntry<S, A> {
  const spec = machine.actions[action];
  if (!spec.from.includes(state)) {
    return {
      action,
      allowed: false,
      reason: {
        code: 'wrong_state',
        message: `Cannot ${action} a ${machine.name} in state ${state}`,
        kind: 'CONFLICT',
      },
    };
  }
  const refusal = spec.guard?.(context) ?? null;
  if (refusal) return { action, allowed: false, reason: refusal };
  return { action, allowed: true, to: typeof spec.to === 'function' ? spec.to(context) : spec.to };
}

/** Every action of the machine, allowed or not, with the reason when not. */
export function dryRunMachine<S extends string, A extends string, C>(
  machine: Machine<S, A, C>,
  state: S,
  context: C,
): DryRunEntry<S, A>[] {
  return (Object.keys(machine.actions) as A[]).map((action) => check(machine, state, action, context));
}

/** The state after `action`, or an AppError naming why it is refused. */
export function transitionMachine<S extends string, A extends string, C>(
  machine: Machine<S, A, C>,
  state: S,
  action: A,
  context: C,
): S {
  const entry = check(machine, state, action, context);
  if (!entry.allowed) {
    const reason = entry.reason!;
    throw new AppError(reason.kind ?? 'CONFLICT', reason.message, { details: { reason: reason.code } });
  }
  return entry.to!;
}
