import { expect, test } from 'vitest';
import en from '#lib/i18n/locales/en/lending.json' with { type: 'json' };
import fr from '#lib/i18n/locales/fr/lending.json' with { type: 'json' };
import { LOAN_ACTIONS, LOAN_STATUSES, dryRunLoan } from './loan.ts';
import { APPLICATION_ACTIONS, APPLICATION_STATUSES, dryRunApplication } from './application.ts';
import { OFFER_ACTIONS, OFFER_STATUSES, dryRunOffer } from './offer.ts';
import { LOAN_TRANSACTION_TYPES } from '../transaction-types.ts';

// Every button label, status and refusal reason the UI can show has its English and French text.
test('lending labels exist in English and French', () => {
  for (const locale of [en, fr]) {
    for (const s of LOAN_STATUSES) expect(locale.loanStatus[s]).toBeTruthy();
    for (const s of APPLICATION_STATUSES) expect(locale.applicationStatus[s]).toBeTruthy();
    for (const s of OFFER_STATUSES) expect(locale.offerStatus[s]).toBeTruthy();
    for (const a of [...LOAN_ACTIONS, ...APPLICATION_ACTIONS, ...OFFER_ACTIONS])
      expect(locale.action[a as keyof typeof locale.action]).toBeTruthy();
    for (const t of Object.keys(LOAN_TRANSACTION_TYPES))
      expect(locale.transactionType[t as keyof typeof locale.transactionType]).toBeTruthy();
  }
});

test('every refusal reason a dry run can give is translated', () => {
  const codes = new Set<string>();
  const zero = { outstanding: 0n, interestOutstanding: 0n, chargesOutstanding: 0n, hasReversibleTransactions: false };
  for (const s of LOAN_STATUSES) for (const e of dryRunLoan(s, zero)) if (e.reason) codes.add(e.reason.code);
  for (const s of APPLICATION_STATUSES) {
    for (const e of dryRunApplication(s, {
      actorId: 'a',
      actorIsAdmin: false,
      submittedBy: 'a',
      principal: 2n,
      adminThreshold: 1n,
    }))
      if (e.reason) codes.add(e.reason.code);
    for (const e of dryRunApplication(s, {
      actorId: 'b',
      actorIsAdmin: false,
      submittedBy: 'a',
      principal: 2n,
      adminThreshold: 1n,
    }))
      if (e.reason) codes.add(e.reason.code);
  }
  for (const s of OFFER_STATUSES) {
    for (const ctx of [
      { businessDate: '2026-01-01', expiresOn: '2026-02-01' },
      { businessDate: '2026-03-01', expiresOn: '2026-02-01' },
    ]) {
      for (const e of dryRunOffer(s, ctx)) if (e.reason) codes.add(e.reason.code);
    }
  }
  expect(codes.size).toBeGreaterThanOrEqual(9);
  for (const code of codes) {
    expect(en.refusal[code as keyof typeof en.refusal], code).toBeTruthy();
    expect(fr.refusal[code as keyof typeof fr.refusal], code).toBeTruthy();
  }
});
