import type { Tx } from '../db/index.ts';

export type CollateralSummary = {
  id: string; customer_id: string; type: string; description: string; currency: string; value: bigint; valuation_date: string; created_at: Date;
  linked_loans: number;
  /** Principal still outstanding on the active loans this collateral secures. */
  secured_principal: bigint;
  /** Loan-to-value: secured principal over the collateral's value, basis points; null when the value is 0. */
  ltv_bp: number | null;
};

const SELECT = `
  select c.id, c.customer_id, c.type, c.description, trim(c.currency) as currency, c.value, to_char(c.valuation_date, 'YYYY-MM-DD') as valuation_date,
         c.created_at, count(distinct lc.loan_id)::int as linked_loans,
         coalesce(sum(o.outstanding), 0)::int8 as secured_principal
    from collaterals c
    left join loan_collaterals lc on lc.tenant_id = c.tenant_id and lc.collateral_id = c.id
    left join lateral (
      select sum(i.principal_due - i.principal_paid - i.principal_written_off) as outstanding
        from loans l join loan_installments i on i.tenant_id = l.tenant_id and i.loan_id = l.id
       where l.tenant_id = lc.tenant_id and l.id = lc.loan_id and l.status = 'ACTIVE'
    ) o on true`;

function withLtv(rows: Omit<CollateralSummary, 'ltv_bp'>[]): CollateralSummary[] {
  return rows.map((r) => ({ ...r, ltv_bp: r.value > 0n ? Number((r.secured_principal * 10000n) / r.value) : null }));
}

/** A customer's collaterals with their linked loans and loan-to-value (spec §2 profile "collaterals"). */
export async function customerCollaterals(tx: Tx, customerId: string): Promise<CollateralSummary[]> {
  return withLtv(await tx.query(`${SELECT} where c.customer_id = $1 group by c.id, c.tenant_id order by c.created_at desc, c.id`, [customerId]));
}

export async function collateralSummary(tx: Tx, collateralId: string): Promise<CollateralSummary | null> {
  const rows = withLtv(await tx.query(`${SELECT} where c.id = $1 group by c.id, c.tenant_id`, [collateralId]));
  return rows[0] ?? null;
}
