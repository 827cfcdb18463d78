import { dryRunMachine, transitionMachine, type DryRunEntry, type Machine } from './machine.ts';

/** Offer lifecycle of the spec: to_propose → pending (notified) → requested → disbursed; or rejected, expired. */
export const OFFER_STATUSES = ['to_propose', 'pending', 'requested', 'disbursed', 'rejected', 'expired'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];
export const OFFER_ACTIONS = ['notify', 'request', 'disburse', 'reject', 'expire'] as const;
export type OfferAction = (typeof OFFER_ACTIONS)[number];

export type OfferContext = {
  /** The tenant's business date and the offer's expiry ('YYYY-MM-DD'; string order is date order). */
  businessDate: string;
  expiresOn: string;
};

const isExpired = (c: OfferContext) => c.businessDate > c.expiresOn;
const expiredRefusal = { code: 'offer_expired', message: 'This offer has expired', kind: 'CONFLICT' as const };

export const offerMachine: Machine<OfferStatus, OfferAction, OfferContext> = {
  name: 'offer',
  states: OFFER_STATUSES,
  actions: {
    notify: { from: ['to_propose', 'pending'], to: 'pending', guard: (c) => (isExpired(c) ? expiredRefusal : null) },
    request: { from: ['to_propose', 'pending'], to: 'requested', guard: (c) => (isExpired(c) ? expiredRefusal : null) },
    disburse: { from: ['requested'], to: 'disbursed' },
    reject: { from: ['to_propose', 'pending', 'requested'], to: 'rejected' },
    expire: {
      from: ['to_propose', 'pending'],
      to: 'expired',
      guard: (c) =>
        isExpired(c)
          ? null
          : { code: 'offer_not_expired', message: 'This offer has not reached its expiry date', kind: 'CONFLICT' },
    },
  },
};

export function dryRunOffer(state: OfferStatus, context: OfferContext): DryRunEntry<OfferStatus, OfferAction>[] {
  return dryRunMachine(offerMachine, state, context);
}

export function transitionOffer(state: OfferStatus, action: OfferAction, context: OfferContext): OfferStatus {
  return transitionMachine(offerMachine, state, action, context);
}
