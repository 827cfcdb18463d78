import { AppError } from '../errors/app-error.ts';
import type { Db, Tx } from '../db/index.ts';
import type { TenantsRow } from '../db/schema.generated.ts';

/** A lender. Global (not row-secured): the tenants table is read by id before a tenant is bound. */
export type Tenant = {
  id: string;
  slug: string;
  name: string;
  currency: string;
  locale: string;
  timeZone: string;
  languages: string[];
  defaultLanguage: string;
  /** The tenant configuration (login, language options, offer, notify form, cbs, auto_logout). */
  config: Record<string, unknown>;
  /** When the tenant's logo last changed (ms since the epoch; its URL's version), or null: the product's logo. */
  logoVersion?: number | null;
};

type TenantRow = Pick<
  TenantsRow,
  'id' | 'slug' | 'name' | 'currency' | 'locale' | 'time_zone' | 'languages' | 'default_language' | 'logo_updated_at'
> & {
  config: Record<string, unknown>;
};

function toTenant(row: TenantRow): Tenant {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    currency: row.currency.trim(),
    locale: row.locale,
    timeZone: row.time_zone,
    languages: row.languages,
    defaultLanguage: row.default_language,
    config: row.config,
    logoVersion: row.logo_updated_at ? new Date(row.logo_updated_at).getTime() : null,
  };
}

export async function findTenant(db: Db, tenantId: string): Promise<Tenant | null> {
  const rows = await db.system((tx) =>
    tx.query<TenantRow>(
      'select id, slug, name, currency, locale, time_zone, languages, default_language, config, logo_updated_at from tenants where id = $1 and is_active',
      [tenantId],
    ),
  );
  return rows[0] ? toTenant(rows[0]) : null;
}

/**
 * The tenant's business date ('YYYY-MM-DD'): the lending "today" for due dates, days past due and
 * value dates. Only the daily close moves it. Takes a transaction so a command reads it consistently
 * with the rows it changes.
 */
export async function businessDate(tx: Tx, tenantId: string): Promise<string> {
  const rows = await tx.query<Pick<TenantsRow, 'business_date'>>('select business_date from tenants where id = $1', [
    tenantId,
  ]);
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Unknown tenant');
  return rows[0].business_date;
}

/** The tenant's currency (trimmed) and business date ('YYYY-MM-DD'), read together for the pages that show money and default dates. */
export async function tenantMoneyDay(tx: Tx, tenantId: string): Promise<{ currency: string; businessDate: string }> {
  const [row] = await tx.query<{ currency: string; business_date: string }>(
    `select currency, to_char(business_date, 'YYYY-MM-DD') as business_date from tenants where id = $1`,
    [tenantId],
  );
  if (!row) throw new AppError('NOT_FOUND', 'Unknown tenant');
  return { currency: row.currency.trim(), businessDate: row.business_date };
}

/** An active tenant by its slug (the sign-in page's single sign-on button), or null. */
export async function findActiveTenantBySlug(
  db: Db,
  slug: string,
): Promise<{ id: string; slug: string; config: Record<string, unknown> } | null> {
  const [row] = await db.system((tx) =>
    tx.query<{ id: string; slug: string; config: Record<string, unknown> }>(
      'select id, slug, config from tenants where slug = $1 and is_active',
      [slug],
    ),
  );
  return row ?? null;
}
