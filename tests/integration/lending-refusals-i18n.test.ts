import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db } from '#lib/db/index.ts';
import { describeError } from '#lib/errors/messages.ts';
import { errorResponse } from '#lib/http/respond.ts';
import { applyLoanCharge } from '#lib/lending/commands/apply-loan-charge.ts';
import { reAgeLoan, reAmortizeLoan, undoReAgeLoan, undoReAmortizeLoan } from '#lib/lending/commands/reage-loan.ts';
import {
  approveRescheduleRequest,
  rejectRescheduleRequest,
  submitRescheduleRequest,
} from '#lib/lending/commands/reschedule-loan.ts';
import { disburseNextTranche, setLoanTranches } from '#lib/lending/commands/tranches.ts';
import { varyInstallments } from '#lib/lending/commands/vary-installments.ts';
import { loanPreClosure } from '#lib/lending/recalculation.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';
import { refused } from '../support/refused.ts';

/**
 * The refusals of the issue-17 commands are written in the caller's language: each carries a
 * `refusal.<code>` key of validation:messages, which the error mapping (describeError, used by every
 * JSON answer and form page) words in the request's language. At least one refusal per command, in
 * French; the English text stays the error's message, and `details.reason` its stable code.
 */
describe.each(testDbKinds())('issue-17 refusals in French on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    // The default product: cumulative, monthly, 12 %, one disbursement, no recalculation nor variations.
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
  });
  afterAll(async () => {
    await drop();
  });

  const run = <T>(fn: Parameters<typeof db.tenant<T>>[1]) => refused(db.tenant(f.tenantId, fn));
  const french = (error: unknown) => describeError(error, 'fr')?.body.message;

  test('tranches', async () => {
    const { loanId } = await f.approvedLoan({ principal: '1200.00', numberOfRepayments: 6 });
    const set = await run((tx) =>
      setLoanTranches(tx, f.checker, { loanId, tranches: [{ date: '2026-01-15', amount: '1200.00' }] }),
    );
    expect(set.message).toBe('The loan product does not pay loans out in tranches.');
    expect(french(set)).toBe('Ce produit de prêt ne décaisse pas les prêts en tranches.');
    const { loanId: active } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 6 });
    const next = await run((tx) => disburseNextTranche(tx, f.checker, { loanId: active }));
    expect(next).toMatchObject({ code: 'CONFLICT', details: { reason: 'not_multi_disbursement' } });
    expect(french(next)).toBe('Ce produit de prêt ne décaisse pas les prêts en tranches.');
  });

  test('reschedule requests: submit, approve, reject', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 6 });
    const input = { rescheduleFromDate: '2026-03-15', extraTerms: 1 };
    const request = await db.tenant(f.tenantId, (tx) => submitRescheduleRequest(tx, f.maker, loanId, input));
    const pending = await run((tx) => submitRescheduleRequest(tx, f.maker, loanId, input));
    expect(french(pending)).toBe('Une demande de rééchelonnement de ce prêt attend déjà une décision.');
    const self = await run((tx) => approveRescheduleRequest(tx, f.maker, loanId, request.id));
    expect(self).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'self_reschedule_approval' } });
    expect(french(self)).toBe(
      'Vous avez soumis cette demande de rééchelonnement : un autre utilisateur doit l’approuver.',
    );
    await db.tenant(f.tenantId, (tx) => rejectRescheduleRequest(tx, f.checker, loanId, request.id));
    const again = await run((tx) => rejectRescheduleRequest(tx, f.checker, loanId, request.id));
    expect(again).toMatchObject({ code: 'CONFLICT', details: { reason: 'wrong_state' } });
    expect(french(again)).toBe('Ce n’est pas possible dans le statut actuel du prêt.');
    // The schedule engine's own refusal, worded too (its reason kept).
    const notDue = await run((tx) =>
      submitRescheduleRequest(tx, f.maker, loanId, { rescheduleFromDate: '2026-03-16', extraTerms: 1 }),
    );
    expect(notDue).toMatchObject({
      code: 'BAD_REQUEST',
      details: { reason: 'RESCHEDULE_FROM_DATE_NOT_A_DUE_DATE' },
    });
    expect(french(notDue)).toBe('Le rééchelonnement doit partir de la date d’échéance d’une des échéances du prêt.');
  });

  test('re-age, re-amortisation and their undo', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 6 });
    const reAge = await run((tx) =>
      reAgeLoan(tx, f.admin, {
        loanId,
        startDate: '2026-09-01',
        frequencyType: 'MONTHS',
        frequencyNumber: 1,
        numberOfInstallments: 3,
      }),
    );
    expect(reAge).toMatchObject({ code: 'CONFLICT', details: { reason: 'reshape_not_supported' } });
    expect(french(reAge)).toBe(
      'Le réaménagement (re-age) n’est possible que pour les échéanciers progressifs avec l’imputation avancée des paiements.',
    );
    expect(french(await run((tx) => reAmortizeLoan(tx, f.admin, { loanId })))).toBe(
      'Le réamortissement n’est possible que pour les échéanciers progressifs avec l’imputation avancée des paiements.',
    );
    expect(french(await run((tx) => undoReAgeLoan(tx, f.admin, { loanId })))).toBe(
      'Ce prêt n’a aucun réaménagement à annuler.',
    );
    expect(french(await run((tx) => undoReAmortizeLoan(tx, f.admin, { loanId })))).toBe(
      'Ce prêt n’a aucun réamortissement à annuler.',
    );
  });

  test('installment variations', async () => {
    const { loanId } = await f.approvedLoan({ principal: '1200.00', numberOfRepayments: 6 });
    const error = await run((tx) =>
      varyInstallments(tx, f.maker, { loanId, variations: [{ type: 'DELETE', dueDate: '2026-03-15' }] }),
    );
    expect(error).toMatchObject({ code: 'UNPROCESSABLE', field: 'variations' });
    expect(french(error)).toBe('Ce produit de prêt n’autorise pas les échéances variables.');
  });

  test('pre-closure quote, through the JSON answer', async () => {
    const { loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 6 });
    const error = await run((tx) => loanPreClosure(tx, f.tenantId, loanId, null));
    const answer = errorResponse(error, 'req-1', 'fr');
    expect(answer.status).toBe(409);
    expect(await answer.json()).toMatchObject({
      error: {
        code: 'CONFLICT',
        message: 'Le produit de ce prêt ne recalcule pas les intérêts.',
        reason: 'not_recalculating',
      },
    });
    expect(error.message).toBe('This loan’s product does not recalculate interest.');
  });

  test('specified-due-date charge', async () => {
    const { loanId } = await f.approvedLoan({ principal: '1200.00', numberOfRepayments: 6 });
    const error = await run((tx) =>
      applyLoanCharge(tx, f.checker, { loanId, kind: 'fee', amount: '5.00', dueDate: '2026-02-01' }),
    );
    expect(error).toMatchObject({ code: 'CONFLICT', details: { reason: 'wrong_state' } });
    expect(french(error)).toBe('Ce n’est pas possible dans le statut actuel du prêt.');
  });
});
