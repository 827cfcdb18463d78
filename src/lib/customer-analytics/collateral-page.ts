import type { Tx } from '../db/index.ts';
import { listCustomerFiles } from '../customer-files/files.ts';
import { getCustomer } from '../lending/customers.ts';
import { loansForCollateral } from '../lending/collaterals.ts';
import { visibleCollateral } from './collaterals.ts';

/**
 * What /loans/collaterals/:id shows: the collateral (null when missing or outside the caller's
 * scope: the page answers 404 either way), its customer, the customer's loans marked linked or not,
 * and the customer's documents.
 */
export async function collateralPageData(tx: Tx, collateralId: string, scopeNodes: string[] | null) {
  const c = await visibleCollateral(tx, collateralId, scopeNodes);
  if (!c) return null;
  const customer = await getCustomer(tx, c.customer_id);
  const loans = await loansForCollateral(tx, c.customer_id, c.id);
  const files = await listCustomerFiles(tx, c.customer_id, 'document');
  return { c, customer: { first_name: customer.first_name, last_name: customer.last_name }, loans, files };
}
