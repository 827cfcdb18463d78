import { dryRunMachine, transitionMachine, type DryRunEntry, type Machine } from './machine.ts';

export const APPLICATION_STATUSES = ['submitted', 'approved', 'rejected', 'withdrawn'] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];
export const APPLICATION_ACTIONS = ['approve', 'reject', 'withdraw', 'edit'] as const;
export type ApplicationAction = (typeof APPLICATION_ACTIONS)[number];

export type ApplicationContext = {
  /** Who would act now. */
  actorId: string;
  actorIsAdmin: boolean;
  submittedBy: string;
  /** Requested principal in minor units. */
  principal: bigint;
  /** Tenant threshold above which only an admin may approve; null = no limit. */
  adminThreshold: bigint | null;
};

export const applicationMachine: Machine<ApplicationStatus, ApplicationAction, ApplicationContext> = {
  name: 'loan application',
  states: APPLICATION_STATUSES,
  actions: {
    approve: {
      from: ['submitted'],
      to: 'approved',
      // Maker-checker (security goal 21): the person who submitted can never approve.
      guard: (c) => {
        if (c.actorId === c.submittedBy) {
          return {
            code: 'self_approval',
            message: 'You submitted this application, so another user must approve it',
            kind: 'FORBIDDEN',
          };
        }
        if (c.adminThreshold !== null && c.principal > c.adminThreshold && !c.actorIsAdmin) {
          return {
            code: 'above_threshold',
            message: 'The amount is above the approval limit; an administrator must approve it',
            kind: 'FORBIDDEN',
          };
        }
        return null;
      },
    },
    reject: { from: ['submitted'], to: 'rejected' },
    withdraw: { from: ['submitted'], to: 'withdrawn' },
    // Amount, term and form fields may change until someone decides; the application stays submitted.
    edit: { from: ['submitted'], to: 'submitted' },
  },
};

export function dryRunApplication(
  state: ApplicationStatus,
  context: ApplicationContext,
): DryRunEntry<ApplicationStatus, ApplicationAction>[] {
  return dryRunMachine(applicationMachine, state, context);
}

export function transitionApplication(
  state: ApplicationStatus,
  action: ApplicationAction,
  context: ApplicationContext,
): ApplicationStatus {
  return transitionMachine(applicationMachine, state, action, context);
}
