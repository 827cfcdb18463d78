import { describe, expect, test } from 'vitest';
import { AppError } from '#lib/errors/app-error.ts';
import { LOAN_ACTIONS, LOAN_STATUSES, dryRunLoan, transitionLoan, type LoanContext, type LoanStatus } from './loan.ts';
import {
  APPLICATION_ACTIONS,
  APPLICATION_STATUSES,
  dryRunApplication,
  transitionApplication,
  type ApplicationContext,
} from './application.ts';
import { dryRunReschedule, transitionReschedule } from './reschedule.ts';
import { OFFER_ACTIONS, OFFER_STATUSES, dryRunOffer, transitionOffer, type OfferContext } from './offer.ts';

const owing: LoanContext = {
  outstanding: 10_000n,
  interestOutstanding: 500n,
  chargesOutstanding: 200n,
  hasReversibleTransactions: true,
  creditBalance: 300n,
};

// The full transition table written out by hand: [state, action] → target state (absent = refused).
const LOAN_TABLE: Record<string, LoanStatus> = {
  'SUBMITTED_AND_PENDING_APPROVAL approve': 'APPROVED',
  'SUBMITTED_AND_PENDING_APPROVAL reject': 'REJECTED',
  'SUBMITTED_AND_PENDING_APPROVAL withdraw': 'WITHDRAWN_BY_CLIENT',
  'APPROVED undoApproval': 'SUBMITTED_AND_PENDING_APPROVAL',
  'APPROVED disburse': 'ACTIVE',
  'ACTIVE repay': 'ACTIVE',
  'ACTIVE waiveInterest': 'ACTIVE',
  'ACTIVE waiveCharges': 'ACTIVE',
  'ACTIVE applyCharge': 'ACTIVE',
  'ACTIVE writeOff': 'CLOSED_WRITTEN_OFF',
  'ACTIVE reverseTransaction': 'ACTIVE',
  'CLOSED_OBLIGATIONS_MET reverseTransaction': 'ACTIVE',
  'OVERPAID reverseTransaction': 'ACTIVE',
  'CLOSED_WRITTEN_OFF reverseTransaction': 'ACTIVE',
  'OVERPAID refundCredit': 'ACTIVE',
  'ACTIVE reAge': 'ACTIVE',
  'ACTIVE reAmortize': 'ACTIVE',
  'ACTIVE reschedule': 'ACTIVE',
};

describe('loan state machine', () => {
  for (const state of LOAN_STATUSES) {
    for (const action of LOAN_ACTIONS) {
      const expected = LOAN_TABLE[`${state} ${action}`];
      test(`${state} --${action}--> ${expected ?? 'refused'}`, () => {
        const entry = dryRunLoan(state, owing).find((e) => e.action === action)!;
        expect(entry.allowed).toBe(expected !== undefined);
        if (expected) {
          expect(entry.to).toBe(expected);
          expect(transitionLoan(state, action, owing)).toBe(expected);
        } else {
          expect(entry.reason?.code).toBe('wrong_state');
          expect(() => transitionLoan(state, action, owing)).toThrowError(AppError);
        }
      });
    }
  }

  test('a repayment that clears everything closes the loan with obligations met', () => {
    expect(transitionLoan('ACTIVE', 'repay', { ...owing, outstandingAfter: 0n, creditBalanceAfter: 0n })).toBe(
      'CLOSED_OBLIGATIONS_MET',
    );
  });
  test('an overpayment leaves the loan OVERPAID', () => {
    expect(transitionLoan('ACTIVE', 'repay', { ...owing, outstandingAfter: 0n, creditBalanceAfter: 1n })).toBe(
      'OVERPAID',
    );
  });
  test('repaying, writing off a loan with nothing outstanding is refused with a reason', () => {
    const settled = { ...owing, outstanding: 0n, interestOutstanding: 0n, chargesOutstanding: 0n };
    const byAction = Object.fromEntries(dryRunLoan('ACTIVE', settled).map((e) => [e.action, e]));
    expect(byAction.repay.reason?.code).toBe('nothing_outstanding');
    expect(byAction.writeOff.reason?.code).toBe('nothing_outstanding');
    expect(byAction.waiveInterest.reason?.code).toBe('no_interest_outstanding');
    expect(byAction.waiveCharges.reason?.code).toBe('no_charges_outstanding');
  });
  test('refunding the whole credit balance closes an overpaid loan; part of it keeps it OVERPAID; none is refused', () => {
    const overpaid: LoanContext = {
      outstanding: 0n,
      interestOutstanding: 0n,
      chargesOutstanding: 0n,
      hasReversibleTransactions: true,
      creditBalance: 300n,
    };
    expect(transitionLoan('OVERPAID', 'refundCredit', { ...overpaid, creditBalanceAfter: 0n })).toBe(
      'CLOSED_OBLIGATIONS_MET',
    );
    expect(transitionLoan('OVERPAID', 'refundCredit', { ...overpaid, creditBalanceAfter: 100n })).toBe('OVERPAID');
    expect(
      dryRunLoan('OVERPAID', { ...overpaid, creditBalance: 0n }).find((e) => e.action === 'refundCredit')?.reason?.code,
    ).toBe('no_credit_balance');
  });
  test('reversal with nothing to reverse is refused', () => {
    const entry = dryRunLoan('ACTIVE', { ...owing, hasReversibleTransactions: false }).find(
      (e) => e.action === 'reverseTransaction',
    )!;
    expect(entry).toMatchObject({ allowed: false, reason: { code: 'nothing_to_reverse' } });
  });
  test('refusal becomes a CONFLICT error naming the reason', () => {
    try {
      transitionLoan('CLOSED_OBLIGATIONS_MET', 'repay', owing);
      expect.unreachable();
    } catch (error) {
      expect((error as AppError).code).toBe('CONFLICT');
      expect((error as AppError).details).toEqual({ reason: 'wrong_state' });
    }
  });
});

const app = (over: Partial<ApplicationContext> = {}): ApplicationContext => ({
  actorId: 'checker',
  actorIsAdmin: false,
  submittedBy: 'maker',
  principal: 100_000n,
  adminThreshold: 500_000n,
  ...over,
});

describe('application state machine', () => {
  const TABLE: Record<string, string> = {
    'submitted approve': 'approved',
    'submitted reject': 'rejected',
    'submitted withdraw': 'withdrawn',
    'submitted edit': 'submitted',
  };
  for (const state of APPLICATION_STATUSES) {
    for (const action of APPLICATION_ACTIONS) {
      const expected = TABLE[`${state} ${action}`];
      test(`${state} --${action}--> ${expected ?? 'refused'}`, () => {
        const entry = dryRunApplication(state, app()).find((e) => e.action === action)!;
        expect(entry.allowed).toBe(expected !== undefined);
        if (expected) expect(transitionApplication(state, action, app())).toBe(expected);
        else expect(() => transitionApplication(state, action, app())).toThrowError(/Cannot/);
      });
    }
  }
  test('self-approval is refused as FORBIDDEN', () => {
    const entry = dryRunApplication('submitted', app({ actorId: 'maker' })).find((e) => e.action === 'approve')!;
    expect(entry).toMatchObject({ allowed: false, reason: { code: 'self_approval', kind: 'FORBIDDEN' } });
    expect(() =>
      transitionApplication('submitted', 'approve', app({ actorId: 'maker', actorIsAdmin: true })),
    ).toThrowError(/another user/);
  });
  test('above the threshold only an admin approves; at the threshold anyone else may', () => {
    expect(dryRunApplication('submitted', app({ principal: 500_001n }))[0]).toMatchObject({
      allowed: false,
      reason: { code: 'above_threshold' },
    });
    expect(dryRunApplication('submitted', app({ principal: 500_001n, actorIsAdmin: true }))[0]).toMatchObject({
      allowed: true,
      to: 'approved',
    });
    expect(dryRunApplication('submitted', app({ principal: 500_000n }))[0]).toMatchObject({ allowed: true });
    expect(dryRunApplication('submitted', app({ principal: 10n ** 12n, adminThreshold: null }))[0]).toMatchObject({
      allowed: true,
    });
  });
  test('the submitter may still reject, withdraw or edit', () => {
    const entries = dryRunApplication('submitted', app({ actorId: 'maker' }));
    expect(entries.filter((e) => e.allowed).map((e) => e.action)).toEqual(['reject', 'withdraw', 'edit']);
  });
});

describe('offer state machine', () => {
  const live: OfferContext = { businessDate: '2026-01-10', expiresOn: '2026-01-31' };
  const expired: OfferContext = { businessDate: '2026-02-01', expiresOn: '2026-01-31' };
  const TABLE: Record<string, string> = {
    'to_propose notify': 'pending',
    'pending notify': 'pending',
    'to_propose request': 'requested',
    'pending request': 'requested',
    'requested disburse': 'disbursed',
    'to_propose reject': 'rejected',
    'pending reject': 'rejected',
    'requested reject': 'rejected',
  };
  for (const state of OFFER_STATUSES) {
    for (const action of OFFER_ACTIONS) {
      const expected = TABLE[`${state} ${action}`];
      test(`${state} --${action}--> ${expected ?? 'refused'} (live offer)`, () => {
        const entry = dryRunOffer(state, live).find((e) => e.action === action)!;
        expect(entry.allowed).toBe(expected !== undefined);
        if (expected) expect(transitionOffer(state, action, live)).toBe(expected);
        else expect(() => transitionOffer(state, action, live)).toThrowError(AppError);
      });
    }
  }
  test('an expired offer can no longer be notified or requested, only expired or rejected', () => {
    const allowed = dryRunOffer('pending', expired)
      .filter((e) => e.allowed)
      .map((e) => e.action);
    expect(allowed).toEqual(['reject', 'expire']);
    expect(dryRunOffer('pending', expired).find((e) => e.action === 'request')?.reason?.code).toBe('offer_expired');
    expect(transitionOffer('to_propose', 'expire', expired)).toBe('expired');
  });
  test('an offer is not expired before its date', () => {
    expect(dryRunOffer('to_propose', live).find((e) => e.action === 'expire')?.reason?.code).toBe('offer_not_expired');
    expect(
      dryRunOffer('to_propose', { businessDate: '2026-01-31', expiresOn: '2026-01-31' }).find(
        (e) => e.action === 'expire',
      )?.allowed,
    ).toBe(false);
  });
});

describe('reschedule request state machine', () => {
  test('the submitter cannot approve (FORBIDDEN), another user can; anyone may reject; decided requests are final', () => {
    const self = { actorId: 'maker', submittedBy: 'maker' };
    const other = { actorId: 'checker', submittedBy: 'maker' };
    const mine = dryRunReschedule('submitted', self).find((e) => e.action === 'approve')!;
    expect(mine.allowed).toBe(false);
    expect(mine.reason).toMatchObject({ code: 'self_reschedule_approval', kind: 'FORBIDDEN' });
    expect(transitionReschedule('submitted', 'approve', other)).toBe('approved');
    expect(transitionReschedule('submitted', 'reject', self)).toBe('rejected');
    for (const state of ['approved', 'rejected'] as const)
      for (const e of dryRunReschedule(state, other)) expect(e.reason?.code).toBe('wrong_state');
  });
});
