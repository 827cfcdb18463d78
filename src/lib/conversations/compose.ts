import { scopeNodesFor, assertInScope, type ScopeHolder } from '../auth/data-permissions.ts';
import type { Tx } from '../db/index.ts';

/** What the "new conversation" page needs: customers to pick from (in scope) and the chosen one's contacts and loans. */
export type PickableCustomer = { id: string; name: string; email: string | null; phone: string | null };

export async function findCustomers(tx: Tx, holder: ScopeHolder, term: string): Promise<PickableCustomer[]> {
  const nodes = await scopeNodesFor(tx, holder);
  const q = term.trim().toLowerCase();
  if (!q) return [];
  const rows = await tx.query<{
    id: string;
    first_name: string;
    last_name: string;
    email: string | null;
    phone: string | null;
  }>(
    `select c.id, c.first_name, c.last_name, c.email, c.phone from customers c
      where ($1::uuid[] is null or c.branch_id = any($1::uuid[]) or c.officer_id = any($1::uuid[]))
        and (lower(c.first_name || ' ' || c.last_name) like $2 or lower(coalesce(c.email, '')) like $2 or coalesce(c.phone, '') like $2)
      order by lower(c.last_name), lower(c.first_name) limit 20`,
    [nodes, `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`],
  );
  return rows.map((r) => ({ id: r.id, name: `${r.first_name} ${r.last_name}`, email: r.email, phone: r.phone }));
}

export type Recipient = PickableCustomer & {
  optInStatus: string;
  optOutReason: string | null;
  loans: { id: string; accountNo: string; status: string }[];
};

/** The customer (in the holder's scope, else 404) with contacts, opt-in state and loans. */
export async function recipient(tx: Tx, holder: ScopeHolder, customerId: string): Promise<Recipient> {
  await assertInScope(tx, holder, 'customer', customerId);
  const [c] = await tx.query<{
    id: string;
    first_name: string;
    last_name: string;
    email: string | null;
    phone: string | null;
    opt_in_status: string;
  }>('select id, first_name, last_name, email, phone, opt_in_status from customers where id = $1', [customerId]);
  const loans = await tx.query<{ id: string; account_no: string; status: string }>(
    `select id, account_no, status from loans where customer_id = $1 order by created_at desc limit 50`,
    [customerId],
  );
  return {
    id: c.id,
    name: `${c.first_name} ${c.last_name}`,
    email: c.email,
    phone: c.phone,
    optInStatus: c.opt_in_status,
    optOutReason: null,
    loans: loans.map((l) => ({ id: l.id, accountNo: l.account_no, status: l.status })),
  };
}
