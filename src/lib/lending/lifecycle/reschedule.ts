import { dryRunMachine, transitionMachine, type DryRunEntry, type Machine } from './machine.ts';

/** A loan reschedule request (Fineract LoanRescheduleRequest): submitted, then approved or rejected. */
export const RESCHEDULE_STATUSES = ['submitted', 'approved', 'rejected'] as const;
export type RescheduleStatus = (typeof RESCHEDULE_STATUSES)[number];

export const RESCHEDULE_ACTIONS = ['approve', 'reject'] as const;
export type RescheduleAction = (typeof RESCHEDULE_ACTIONS)[number];

/** Maker-checker: who decides, and who submitted. */
export type RescheduleContext = { actorId: string; submittedBy: string };

export const rescheduleMachine: Machine<RescheduleStatus, RescheduleAction, RescheduleContext> = {
  name: 'reschedule request',
  states: RESCHEDULE_STATUSES,
  actions: {
    approve: {
      from: ['submitted'],
      to: 'approved',
      guard: (c) =>
        c.actorId === c.submittedBy
          ? {
              code: 'self_reschedule_approval',
              message: 'You submitted this reschedule request, so another user must approve it',
              kind: 'FORBIDDEN',
            }
          : null,
    },
    // Anyone allowed to decide may reject, the submitter included (it withdraws the request).
    reject: { from: ['submitted'], to: 'rejected' },
  },
};

export function dryRunReschedule(
  state: RescheduleStatus,
  context: RescheduleContext,
): DryRunEntry<RescheduleStatus, RescheduleAction>[] {
  return dryRunMachine(rescheduleMachine, state, context);
}

export function transitionReschedule(
  state: RescheduleStatus,
  action: RescheduleAction,
  context: RescheduleContext,
): RescheduleStatus {
  return transitionMachine(rescheduleMachine, state, action, context);
}
