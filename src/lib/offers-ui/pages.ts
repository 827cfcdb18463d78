import type { Principal } from '../auth/principal.ts';
import { installmentEditsOf } from '../lending/commands/vary-installments.ts';
import { loanTranchesView } from '#lib/lending/commands/tranches.ts';
import { allowedActions } from '../auth/allowed-actions.ts';
import { assertInScope } from '../auth/data-permissions.ts';
import type { Db, Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { getApplicationView } from '../lending/applications.ts';
import { actorFromPrincipal } from '../lending/actor.ts';
import { getCustomer } from '../lending/customers.ts';
import { getLoanView, isUuid } from '../lending/loans.ts';
import { reshapeInfoOf } from '../lending/commands/reage-loan.ts';
import { getOffer, offerActions, offerJson } from '../lending/offers.ts';
import { listDecisions } from '../decisioning/decisions.ts';
import { listProducts, loadCalendar, productOf, productOfRecord, termsFor } from '../lending/products.ts';
import { fromDecimalString, fromMinor, isZero, toDecimalString } from '../money/money.ts';
import { businessDate } from '../tenancy/tenant.ts';
import type {
  CollateralsRow,
  LoanApplicationsRow,
  LoanDelinquencyHistoryRow,
  UsersRow,
} from '../db/schema.generated.ts';
import { listRescheduleRequests } from '../lending/commands/reschedule-loan.ts';

/**
 * What the offer, application and loan pages of the customer profile show, read through the
 * lending domain in one tenant transaction. Every loader first loads the customer through the
 * user's data permissions (the scoped loader of src/lib/auth/data-permissions.ts, as commands do)
 * and checks the object belongs to that customer: anything else is a 404, so typing another
 * branch's URL reveals nothing.
 */
async function assertCustomer(tx: Tx, principal: Principal, customerId: string) {
  await assertInScope(tx, principal, 'customer', customerId);
  return { customer: await getCustomer(tx, customerId) };
}

export async function loadOfferPage(db: Db, principal: Principal, customerId: string, offerId: string) {
  return db.tenant(principal.tenantId, async (tx) => {
    const { customer } = await assertCustomer(tx, principal, customerId);
    if (!isUuid(offerId)) throw new AppError('NOT_FOUND', 'Offer not found', { field: 'offerId' });
    const row = await getOffer(tx, offerId);
    if (row.customer_id !== customerId) throw new AppError('NOT_FOUND', 'Offer not found', { field: 'offerId' });
    const product = await productOf(tx, row);
    const today = await businessDate(tx, principal.tenantId);
    const dryRun = (await offerActions(tx, principal.tenantId, row)).map((e) => ({
      action: e.action,
      allowed: e.allowed,
      reason: e.reason?.code,
    }));
    const [application] = row.application_id
      ? await tx.query<Pick<LoanApplicationsRow, 'loan_id'>>(`select loan_id from loan_applications where id = $1`, [
          row.application_id,
        ])
      : [];
    return {
      customer,
      offer: offerJson(row),
      product: { id: product.id, name: product.name, currency: product.currency },
      limits: {
        currency: product.currency,
        minPrincipal: toDecimalString(fromMinor(product.min_principal, product.currency)),
        maxPrincipal: toDecimalString(fromMinor(product.max_principal, product.currency)),
        minRepayments: product.min_repayments,
        maxRepayments: product.max_repayments,
      },
      // The engine's terms for this offer, disbursed today; the simulation only changes amount and term.
      baseTerms: {
        ...termsFor(product, {
          principal: row.principal,
          numberOfRepayments: row.number_of_repayments,
          annualInterestRate: row.annual_interest_rate,
          disbursementDate: today,
        }),
        calendar: await loadCalendar(tx, row.customer_branch_id),
      },
      dryRun,
      applicationLoanId: application?.loan_id ?? null,
      businessDate: today,
      ...(await offerOrigin(tx, row)),
    };
  });
}

/** What made an offer: the strategy version (null for an offer typed by hand) and the decisions about it (the "why"). */
async function offerOrigin(tx: Tx, row: { id: string; strategy_id: string | null; strategy_version: number | null }) {
  const [strategy] = row.strategy_id
    ? await tx.query<{ id: string; name: string }>(`select id, name from strategies where id = $1`, [row.strategy_id])
    : [];
  return {
    strategy: strategy ? { id: strategy.id, name: strategy.name, version: row.strategy_version } : null,
    decisions: row.strategy_id ? await listDecisions(tx, { subjectType: 'offer', subjectId: row.id }, 10) : [],
  };
}

export async function loadApplicationPage(db: Db, principal: Principal, customerId: string, loanId: string) {
  return db.tenant(principal.tenantId, async (tx) => {
    const { customer } = await assertCustomer(tx, principal, customerId);
    await assertInScope(tx, principal, 'loan', loanId);
    const [row] = await tx.query<Pick<LoanApplicationsRow, 'id' | 'customer_id'>>(
      `select id, customer_id from loan_applications where loan_id = $1`,
      [loanId],
    );
    if (!row || row.customer_id !== customerId)
      throw new AppError('NOT_FOUND', 'Loan application not found', { field: 'loanId' });
    const application = await getApplicationView(tx, actorFromPrincipal(principal), row.id);
    const product = await productOfRecord(tx, 'loan_applications', application.id);
    const names = await tx.query<Pick<UsersRow, 'id' | 'display_name'>>(
      `select id, display_name from users where id = any($1::uuid[])`,
      [[application.submittedBy, application.decidedBy].filter((v): v is string => Boolean(v))],
    );
    return {
      customer,
      application,
      productName: product.name,
      userNames: Object.fromEntries(names.map((n) => [n.id, n.display_name])),
    };
  });
}

export type CollateralView = {
  id: string;
  type: string;
  description: string;
  value: string;
  currency: string;
  valuationDate: string;
};
export type DelinquencyView = {
  date: string;
  from: string | null;
  to: string | null;
  reason: string;
  pastDueDays: number;
  amount: string;
};

/** A collateral's value as the page shows it: the cleaned currency code and the decimal string. */
function collateralMoney(value: bigint, currency: string): { currency: string; value: string } {
  const money = fromMinor(value, currency);
  return { currency: money.currency, value: toDecimalString(money) };
}

export async function loadLoanPage(db: Db, principal: Principal, customerId: string, loanId: string) {
  return db.tenant(principal.tenantId, async (tx) => {
    const { customer } = await assertCustomer(tx, principal, customerId);
    await assertInScope(tx, principal, 'loan', loanId);
    const loan = await getLoanView(tx, loanId);
    if (loan.customerId !== customerId) throw new AppError('NOT_FOUND', 'Loan not found', { field: 'loanId' });
    const product = await productOfRecord(tx, 'loans', loanId);
    const collaterals = await tx.query<
      Pick<CollateralsRow, 'id' | 'type' | 'description' | 'value' | 'currency' | 'valuation_date'>
    >(
      `select c.id, c.type, c.description, c.value, c.currency, c.valuation_date from loan_collaterals lc
         join collaterals c on c.tenant_id = lc.tenant_id and c.id = lc.collateral_id where lc.loan_id = $1 order by c.valuation_date desc, c.id`,
      [loanId],
    );
    const history = await tx.query<
      Pick<
        LoanDelinquencyHistoryRow,
        'business_date' | 'from_classification' | 'to_classification' | 'reason' | 'past_due_days' | 'delinquent_amount'
      >
    >(
      `select business_date, from_classification, to_classification, reason, past_due_days, delinquent_amount
         from loan_delinquency_history where loan_id = $1 order by business_date desc, created_at desc limit 200`,
      [loanId],
    );
    const rescheduleRequests = await listRescheduleRequests(tx, principal, loanId);
    const [stored] = await tx.query<{ terms: Record<string, unknown> | null }>(
      'select terms from loans where id = $1',
      [loanId],
    );
    return {
      customer,
      loan,
      rescheduleRequests,
      productName: product.name,
      // Installment edits before disbursement (vary-installments.ts): what the product allows, what is saved.
      installmentOptions: {
        variable: product.allow_variable_installments === true,
        fixedEmi: product.allow_fixed_emi === true,
        variations: (installmentEditsOf(stored?.terms).variations as Record<string, unknown>[] | undefined) ?? [],
        fixedEmiAmount: (installmentEditsOf(stored?.terms).fixedEmiAmount as string | undefined) ?? null,
      },
      businessDate: await businessDate(tx, principal.tenantId),
      // Interest recalculation (issue 17): the page offers a pay-off quote.
      interestRecalculation: product.interest_recalculation === true,
      collaterals: collaterals.map((c): CollateralView => ({
        ...collateralMoney(c.value, c.currency),
        id: c.id,
        type: c.type,
        description: c.description,
        valuationDate: c.valuation_date,
      })),
      delinquency: history.map((h): DelinquencyView => ({
        date: h.business_date,
        from: h.from_classification,
        to: h.to_classification,
        reason: h.reason,
        pastDueDays: h.past_due_days,
        amount: toDecimalString(fromMinor(h.delinquent_amount, loan.currency)),
      })),
      reshape: await reshapeInfoOf(tx, loanId),
      /** Multi-disbursement products only (lending/commands/tranches.ts); null otherwise. */
      tranches: await loanTranchesView(tx, loanId, product),
    };
  });
}

type LoanPage = Awaited<ReturnType<typeof loadLoanPage>>;

/** The loan page's action set: what allowedActions says (the API route's rule AND the lifecycle's dry run). */
export function loanActionsFor(data: LoanPage, principal: Principal) {
  const can = allowedActions(principal, 'loan', { dryRun: data.loan.actions });
  const next = data.loan.installments.find((i) => !isZero(fromDecimalString(i.outstanding.total, data.loan.currency)));
  return {
    can: {
      transfer: can.disburse,
      repay: can.repay,
      writeOff: can.writeOff,
      reverse: can.reverseTransaction,
      reAge: can.reAge && data.reshape.eligible,
      reAmortize: can.reAmortize && data.reshape.eligible,
      undoReAge: can.undoReAge && data.reshape.undoable.reAge,
      undoReAmortize: can.undoReAmortize && data.reshape.undoable.reAmortize,
      // Before the transfer, on a product that allows it (the same permission as the transfer).
      vary: can.disburse && (data.installmentOptions.variable || data.installmentOptions.fixedEmi),
      charge: can.applyCharge,
      waive: can.waiveInterest || can.waiveCharges,
    },
    waiveKinds: [
      ...(can.waiveInterest ? ['interest' as const] : []),
      ...(can.waiveCharges ? ['charges' as const] : []),
    ],
    installments: data.installmentOptions,
    suggestedAmount: next?.outstanding.total ?? '',
    reversible: data.loan.transactions
      .filter(
        (t) =>
          !t.isReversed &&
          ['REPAYMENT', 'WAIVE_INTEREST', 'WAIVE_CHARGES', 'WRITE_OFF', 'FEE_APPLIED', 'PENALTY_APPLIED'].includes(
            t.type,
          ),
      )
      .map((t) => ({ id: t.id, label: `${t.date} · ${t.type} · ${t.amount} ${t.currency}` })),
  };
}

/** The new-application page: the customer (in scope) and the active products with their limits. */
export async function loadNewApplicationPage(db: Db, principal: Principal, customerId: string) {
  return db.tenant(principal.tenantId, async (tx) => {
    const { customer } = await assertCustomer(tx, principal, customerId);
    const products = (await listProducts(tx))
      .filter((p) => p.is_active)
      .map((p) => ({
        id: p.id,
        name: p.name,
        currency: p.currency,
        minPrincipal: toDecimalString(fromMinor(p.min_principal, p.currency)),
        maxPrincipal: toDecimalString(fromMinor(p.max_principal, p.currency)),
        minRepayments: p.min_repayments,
        maxRepayments: p.max_repayments,
      }));
    return { customer, products, businessDate: await businessDate(tx, principal.tenantId) };
  });
}
