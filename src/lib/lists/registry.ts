import type { ListDef } from './definition.ts';
import { customersList } from './defs/customers.ts';
import { loansList } from './defs/loans.ts';
import { offersList } from './defs/offers.ts';
import { paymentsList } from './defs/payments.ts';
import { applicationsList } from './defs/applications.ts';
import { collateralsList } from './defs/collaterals.ts';

/**
 * Every server-side list by name: the JSON API, the export job and custom views look lists up
 * here. Each entry also names its page: whoever may open that page (its route-manifest rule, asked
 * through allowedActions(…, 'list', entry)) may read and export the list, and no one else.
 */
export type ListEntry = {
  def: ListDef;
  path: string;
  fileBaseName: string;
  /** Whether the list has custom views (customers, offers, loans, collaterals, payments) and their pages. */
  hasCustomViews: boolean;
};

export const LISTS: Readonly<Record<string, ListEntry>> = {
  customers: { def: customersList, path: '/loans/customers', fileBaseName: 'customers', hasCustomViews: true },
  loans: { def: loansList, path: '/loans/loans', fileBaseName: 'loans', hasCustomViews: true },
  offers: { def: offersList, path: '/loans/offers', fileBaseName: 'offers', hasCustomViews: true },
  payments: { def: paymentsList, path: '/loans/payments', fileBaseName: 'payments', hasCustomViews: true },
  applications: {
    def: applicationsList,
    path: '/loans/loan-applications',
    fileBaseName: 'loan-applications',
    hasCustomViews: false,
  },
  collaterals: { def: collateralsList, path: '/loans/collaterals', fileBaseName: 'collaterals', hasCustomViews: true },
};

export function findList(name: string): ListEntry | undefined {
  return Object.hasOwn(LISTS, name) ? LISTS[name] : undefined;
}

export function resolveListDef(name: string): ListDef | undefined {
  return findList(name)?.def;
}

/**
 * The list a page path names: /loans/[list] (and its custom-view pages) is one route for every list,
 * and the segment is checked here against the registry. Unknown → undefined (the page answers 404).
 */
export function findListByPath(path: string): { name: string; entry: ListEntry } | undefined {
  const found = Object.entries(LISTS).find(([, entry]) => entry.path === path);
  return found ? { name: found[0], entry: found[1] } : undefined;
}
