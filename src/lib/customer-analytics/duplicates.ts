import type { Tx } from '../db/index.ts';

/** Phone numbers compare on digits and a leading '+' only ("+33 1 00-00" = "+33100 00"). */
export function normalisePhone(phone: string): string {
  const trimmed = phone.trim();
  return (trimmed.startsWith('+') ? '+' : '') + trimmed.replace(/\D/g, '');
}

export type DuplicateMatch = { id: string; first_name: string; last_name: string; field: 'phone' | 'nationalId' };

/**
 * Existing customers of the tenant with the same national id (case and spaces ignored) or the same phone
 * (digits compared), for the add-customer form's duplicate check (customers/add). Searches the
 * whole tenant, not only the user's branch: a duplicate elsewhere is still a duplicate.
 */
export async function findDuplicateCustomers(
  tx: Tx,
  input: { phone?: string | null; nationalId?: string | null },
): Promise<DuplicateMatch[]> {
  const phone = input.phone ? normalisePhone(input.phone) : null;
  const nationalId = input.nationalId?.replace(/\s+/g, '').toUpperCase() || null;
  if (!phone && !nationalId) return [];
  return tx.query<DuplicateMatch>(
    `select id, first_name, last_name,
            case when $2::text is not null and upper(replace(national_id, ' ', '')) = $2 then 'nationalId' else 'phone' end as field
       from customers
      where ($2::text is not null and upper(replace(national_id, ' ', '')) = $2)
         or ($1::text is not null and length($1) > 3 and regexp_replace(phone, '[^0-9+]', '', 'g') = $1)
      order by last_name, first_name limit 5`,
    [phone, nationalId],
  );
}
