import type { Db } from '../db/index.ts';
import { addDays } from '../schedule/dates.ts';
import { businessDate } from '../tenancy/tenant.ts';
import { createOffer } from '../lending/offers.ts';
import type { CustomersRow, LoanProductsRow, UsersRow } from '../db/schema.generated.ts';

/**
 * Offers still to propose in one branch of a demo tenant. The simulated history notifies every offer
 * two days after creating it, so a fresh demo would otherwise have (almost) nothing for an officer
 * to notify; the loans-workspace walkthrough (and its browser test) starts from one of these.
 * Created through the lending domain (createOffer: product limits, audit), by the tenant's first
 * administrator, for customers of the branch that have no open offer yet.
 */
export async function seedDemoOffers(
  db: Db,
  tenantId: string,
  options: { branchCode: string; count: number },
): Promise<number> {
  return db.tenant(tenantId, async (tx) => {
    const [admin] = await tx.query<Pick<UsersRow, 'id'>>(
      `select u.id from users u join user_roles ur on ur.tenant_id = u.tenant_id and ur.user_id = u.id
         join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id
        where r.is_admin order by u.created_at, u.id limit 1`,
    );
    const products = await tx.query<
      Pick<
        LoanProductsRow,
        | 'id'
        | 'min_principal'
        | 'max_principal'
        | 'default_principal'
        | 'min_repayments'
        | 'max_repayments'
        | 'default_repayments'
      >
    >(
      `select id, min_principal, max_principal, default_principal, min_repayments, max_repayments, default_repayments
         from loan_products where is_active and repayment_frequency = 'MONTHS' order by code limit 1`,
    );
    const product = products[0];
    if (!admin || !product) return 0;
    const customers = await tx.query<Pick<CustomersRow, 'id'>>(
      `select c.id from customers c join hierarchy_nodes b on b.tenant_id = c.tenant_id and b.id = c.branch_id
        where b.code = $1 and not exists (select 1 from offers o where o.customer_id = c.id and o.status in ('to_propose', 'pending', 'requested'))
        order by c.last_name, c.first_name, c.id limit $2`,
      [options.branchCode, options.count],
    );
    const today = await businessDate(tx, tenantId);
    const actor = { tenantId, userId: admin.id, isAdmin: true, kind: 'system' as const };
    for (const customer of customers) {
      const principal = product.default_principal ?? product.min_principal * 2n;
      await createOffer(tx, actor, {
        customerId: customer.id,
        productId: product.id,
        principal: principal > product.max_principal ? product.max_principal : principal,
        numberOfRepayments:
          product.default_repayments ?? Math.min(product.max_repayments, Math.max(product.min_repayments, 12)),
        expiresOn: addDays(today, 30),
      });
    }
    return customers.length;
  });
}
