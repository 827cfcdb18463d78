import type { AstroGlobal } from 'astro';
import type { TFunction } from 'i18next';
import type { Principal } from '#lib/auth/principal.ts';
import { pageDb, type Db } from '../server/db.ts';
import { getT, type Language } from '#lib/i18n/index.ts';
import { tenantTranslator } from '#lib/i18n/translations.ts';
import type { Tenant } from '#lib/tenancy/tenant.ts';
import { currentUser, type CurrentUser } from '#lib/tenancy/users.ts';

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
  const db = await pageDb();
  let t: TFunction;
  try {
    t = tenant ? await tenantTranslator(db, tenant.id, language) : await getT(language);
  } catch {
    // An unreadable overrides table must not take the page down: the bundled texts are complete.
    t = await getT(language);
  }
  return { db, t, language, principal, tenant };
}

/**
 * The signed-in user in the shape of GET /v1/users/me (the same builder as GET /v1/users/me), so islands seed the
 * $user store from the page instead of fetching it on load.
 */
export async function currentUserOf(db: Db, principal: Principal): Promise<CurrentUser> {
  return db.tenant(principal.tenantId, (tx) => currentUser(tx, principal.userId));
}
