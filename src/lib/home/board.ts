import type { Principal } from '../auth/principal.ts';
import { mayOpen } from '../auth/allowed-actions.ts';
import type { Db, Tx } from '../db/index.ts';
import { scopeFilter } from '../tenancy/scope.ts';

/**
 * The home board's counts for the signed-in user: only cards whose page their role may open (the route manifest), only rows their
 * data permissions let them see (scopeFilter), and only from tables that exist. Every number is a
 * count(*) of real rows; a card the user may not open is absent, never zero.
 */
export type BoardCard = {
  key: 'users' | 'openErrorReports' | 'customers' | 'activeLoans' | 'overdueLoans' | 'myDownloads';
  value: number;
  href: string;
};

async function tableExists(tx: Tx, name: string): Promise<boolean> {
  const [row] = await tx.query<{ ok: boolean }>('select to_regclass($1) is not null as ok', [`public.${name}`]);
  return row.ok;
}

async function count(tx: Tx, sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await tx.query<{ n: number }>(sql, params);
  return row.n;
}

export async function loadBoard(
  db: Db,
  principal: Principal,
  options: { downloadsHref: string },
): Promise<BoardCard[]> {
  const can = (href: string) => mayOpen(principal, href);
  return db.tenant(principal.tenantId, async (tx) => {
    const cards: BoardCard[] = [];
    if (can('/admin/user/users')) {
      cards.push({
        key: 'users',
        value: await count(tx, 'select count(*)::int as n from users where is_active'),
        href: '/admin/user/users',
      });
    }
    if (can('/admin/platform/error-reports')) {
      cards.push({
        key: 'openErrorReports',
        value: await count(tx, 'select count(*)::int as n from error_reports where not is_resolved'),
        href: '/admin/platform/error-reports',
      });
    }
    if (can('/loans/customers') && (await tableExists(tx, 'customers'))) {
      const filter = await scopeFilter(tx, principal, null, {
        columns: ['c.branch_id', 'c.officer_id'],
        firstParam: 1,
      });
      cards.push({
        key: 'customers',
        value: await count(tx, `select count(*)::int as n from customers c where ${filter.sql}`, filter.params),
        href: '/loans/customers',
      });
    }
    if (can('/loans/loans') && (await tableExists(tx, 'loans')) && (await tableExists(tx, 'customers'))) {
      const filter = await scopeFilter(tx, principal, null, {
        columns: ['c.branch_id', 'c.officer_id', 'l.officer_id'],
        firstParam: 1,
      });
      const from = `from loans l join customers c on c.tenant_id = l.tenant_id and c.id = l.customer_id where ${filter.sql} and l.status = 'ACTIVE'`;
      cards.push({
        key: 'activeLoans',
        value: await count(tx, `select count(*)::int as n ${from}`, filter.params),
        href: '/loans/loans?tab=all_outstanding',
      });
      if (await tableExists(tx, 'loan_installments')) {
        // Overdue: an active loan with an installment due before the business date whose obligations are not met.
        const overdue = await count(
          tx,
          `select count(*)::int as n ${from}
             and exists (select 1 from loan_installments i, tenants t
                          where i.tenant_id = l.tenant_id and i.loan_id = l.id and t.id = l.tenant_id
                            and i.due_date < t.business_date and i.obligations_met_on is null)`,
          filter.params,
        );
        cards.push({ key: 'overdueLoans', value: overdue, href: '/loans/loans?tab=overdue' });
      }
    }
    cards.push({
      key: 'myDownloads',
      value: await count(tx, 'select count(*)::int as n from downloads where user_id = $1', [principal.userId]),
      href: options.downloadsHref,
    });
    return cards;
  });
}
