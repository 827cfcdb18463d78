import type { ListDef } from './definition.ts';
import { customersList } from './defs/customers.ts';
import { loansList } from './defs/loans.ts';
import { offersList } from './defs/offers.ts';
import { paymentsList } from './defs/payments.ts';
import { applicationsList } from './defs/applications.ts';
import { collateralsList } from './defs/collaterals.ts';

/**
 * Every server-side list by name: the JSON API, the export job and custom views look lists up
 * here. Each entry also names its page and the permission that opens it (the same as the page's
 * route-manifest entry), so the API never shows a list to someone the page would refuse.
 */
export type ListEntry = {
  def: ListDef; path: string; permission: string; fileBaseName: string;
  /** Whether the list has custom views (customers, offers, loans, collaterals, payments) and their pages. */
  hasCustomViews: boolean;
};

export const LISTS: Readonly<Record<string, ListEntry>> = {
  customers: { def: customersList, path: '/loans/customers', permission: 'loans.customers.view', fileBaseName: 'customers', hasCustomViews: true },
  loans: { def: loansList, path: '/loans/loans', permission: 'loans.loans.view', fileBaseName: 'loans', hasCustomViews: true },
  offers: { def: offersList, path: '/loans/offers', permission: 'loans.offers.view', fileBaseName: 'offers', hasCustomViews: true },
  payments: { def: paymentsList, path: '/loans/payments', permission: 'loans.payments.view', fileBaseName: 'payments', hasCustomViews: true },
  applications: { def: applicationsList, path: '/loans/loan-applications', permission: 'loans.loan_applications.view', fileBaseName: 'loan-applications', hasCustomViews: false },
  collaterals: { def: collateralsList, path: '/loans/collaterals', permission: 'loans.collaterals.view', fileBaseName: 'collaterals', hasCustomViews: true },
};

export function findList(name: string): ListEntry | undefined {
  return Object.hasOwn(LISTS, name) ? LISTS[name] : undefined;
}

export function resolveListDef(name: string): ListDef | undefined {
  return findList(name)?.def;
}
