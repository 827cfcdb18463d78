import type { AstroGlobal } from 'astro';
import type { TFunction } from 'i18next';
import type { Principal } from '../lib/auth/principal.ts';
import { getDb, type Db } from '../lib/db/index.ts';
import { getT, type Language } from '../lib/i18n/index.ts';
import { tenantTranslator } from '../lib/i18n/translations.ts';
import type { Tenant } from '../lib/tenancy/tenant.ts';
import type { CurrentUser } from '../islands/stores/user.ts';

export type PageContext = {
  db: Db;
  t: TFunction;
  language: Language;
  principal: Principal | undefined;
  tenant: Tenant | undefined;
};

/**
 * What every server-rendered page needs, from the locals the middleware set: the translator in the
 * user's language (with the tenant's overrides), the principal and tenant. Pages stay thin.
 */
export async function pageContext(Astro: AstroGlobal): Promise<PageContext> {
  const { principal, tenant, language } = Astro.locals;
  const db = await getDb();
  let t: TFunction;
  try {
    t = tenant ? await tenantTranslator(db, tenant.id, language) : await getT(language);
  } catch {
    // An unreadable overrides table must not take the page down: the bundled texts are complete.
    t = await getT(language);
  }
  return { db, t, language, principal, tenant };
}

/** The signed-in user in the §3 shape islands use, so they need not fetch /v1/users/me on load. */
export async function currentUserOf(db: Db, principal: Principal): Promise<CurrentUser> {
  const roles = await db.tenant(principal.tenantId, (tx) =>
    tx.query<{ name: string }>(
      'select r.name from user_roles ur join roles r on r.tenant_id = ur.tenant_id and r.id = ur.role_id where ur.user_id = $1 order by r.name',
      [principal.userId],
    ),
  );
  return {
    id: principal.userId,
    display_name: principal.displayName,
    email: principal.email,
    tenant_id: principal.tenantId,
    roles: roles.map((r) => ({ name: r.name })),
    data_permissions: principal.dataPermissions.map((p) => ({ field: p.field, value: p.value })),
    is_admin: principal.isAdmin,
    authorities: [...principal.authorities],
    language: principal.language,
    session_timeout: principal.sessionTimeout,
    password_change_required: principal.passwordChangeRequired,
  };
}
