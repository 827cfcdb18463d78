import type { Db } from '../db/index.ts';

export type DemoOptions = { password: string };

/**
 * Seeds the two demo tenants on an empty database; a database that already has tenants is left
 * alone. Returns whether it seeded.
 */
export async function seedDemo(db: Db, _options: DemoOptions): Promise<boolean> {
  const [{ count }] = await db.system((tx) => tx.query<{ count: number }>('select count(*)::int as count from tenants'));
  if (count > 0) return false;
  await db.owner(async (tx) => {
    await tx.query(
      `insert into tenants (id, slug, name, currency, locale, time_zone, languages, default_language, business_date) values
       ('demo-eu1', 'demo', 'Demo Lending', 'EUR', 'fr-FR', 'Europe/Paris', array['en','fr'], 'en', current_date),
       ('acme-us1', 'acme', 'Acme Credit', 'USD', 'en-US', 'America/New_York', array['en'], 'en', current_date)`,
    );
  });
  return true;
}
