import type { Db } from '../db/index.ts';
import { formOf } from '../forms/build.ts';
import { saveCustomFieldForm } from '../forms/store.ts';
import type { Actor } from '../lending/actor.ts';

/**
 * The demo tenant's customized fields (issue 13), so the customer, application and collateral forms,
 * profiles, lists and exports show them on first start: customers "Employer" (text) and "Housing
 * status" (select), loan applications "Referral source" (select), collaterals "Registration number"
 * (text); with values on some demo rows. All optional, so every other flow works unchanged.
 */
export const DEMO_CUSTOMER_FIELDS = formOf([
  {
    id: 'extra',
    title: { en: 'Additional information', fr: 'Informations complémentaires' },
    fields: [
      { name: 'employer', widget: 'text', label: { en: 'Employer', fr: 'Employeur' }, schema: { maxLength: 120 } },
      {
        name: 'housing_status',
        widget: 'select',
        label: { en: 'Housing status', fr: 'Logement' },
        ui: {
          options: [
            { value: 'owner', label: { en: 'Owner', fr: 'Propriétaire' } },
            { value: 'tenant', label: { en: 'Tenant', fr: 'Locataire' } },
            { value: 'family', label: { en: 'Lives with family', fr: 'Hébergé par la famille' } },
          ],
        },
      },
    ],
  },
]);

export const DEMO_APPLICATION_FIELDS = formOf([
  {
    id: 'extra',
    title: { en: 'Additional information', fr: 'Informations complémentaires' },
    fields: [
      {
        name: 'referral_source',
        widget: 'select',
        label: { en: 'Referral source', fr: 'Origine de la demande' },
        ui: {
          options: [
            { value: 'branch', label: { en: 'Branch visit', fr: 'Visite en agence' } },
            { value: 'web', label: { en: 'Website', fr: 'Site web' } },
            { value: 'partner', label: { en: 'Partner', fr: 'Partenaire' } },
          ],
        },
      },
    ],
  },
]);

export const DEMO_COLLATERAL_FIELDS = formOf([
  {
    id: 'extra',
    title: { en: 'Additional information', fr: 'Informations complémentaires' },
    fields: [
      {
        name: 'registration_number',
        widget: 'text',
        label: { en: 'Registration number', fr: 'Numéro d’immatriculation' },
        schema: { maxLength: 40 },
      },
    ],
  },
]);

const EMPLOYERS = [
  'Boulangerie Martin',
  'Hôpital Saint-Louis',
  'Transports Durand',
  'Mairie de Lyon',
  'Atelier Moreau',
];
const HOUSING = ['owner', 'tenant', 'family'];
const REFERRALS = ['branch', 'web', 'partner'];

export async function seedDemoCustomFields(db: Db, tenantId: string): Promise<void> {
  await db.tenant(tenantId, async (tx) => {
    const [admin] = await tx.query<{ id: string }>(
      `select id::text as id from users where email like 'admin@%' order by email limit 1`,
    );
    if (!admin) return;
    const actor: Actor = { tenantId, userId: admin.id, isAdmin: true, kind: 'system' };
    await saveCustomFieldForm(tx, actor, 'customer', DEMO_CUSTOMER_FIELDS, null);
    await saveCustomFieldForm(tx, actor, 'loan_application', DEMO_APPLICATION_FIELDS, null);
    await saveCustomFieldForm(tx, actor, 'collateral', DEMO_COLLATERAL_FIELDS, null);
    // Values on every third customer (by name, so the same rows each time), a collateral in four.
    const customers = await tx.query<{ id: string }>(
      `select id from customers order by last_name, first_name, id limit 60`,
    );
    for (const [i, c] of customers.entries()) {
      if (i % 3 !== 0) continue;
      const values = {
        employer: EMPLOYERS[(i / 3) % EMPLOYERS.length],
        housing_status: HOUSING[(i / 3) % HOUSING.length],
      };
      await tx.query(`update customers set custom_fields = $2::jsonb where id = $1`, [c.id, JSON.stringify(values)]);
    }
    const collaterals = await tx.query<{ id: string }>(`select id from collaterals order by created_at, id limit 40`);
    for (const [i, k] of collaterals.entries()) {
      if (i % 4 !== 0) continue;
      const plate = `AB-${String(100 + i).padStart(3, '0')}-CD`;
      await tx.query(`update collaterals set custom_fields = $2::jsonb where id = $1`, [
        k.id,
        JSON.stringify({ registration_number: plate }),
      ]);
    }
    const applications = await tx.query<{ id: string }>(
      `select id from loan_applications order by submitted_at, id limit 40`,
    );
    for (const [i, a] of applications.entries()) {
      if (i % 2 !== 0) continue;
      await tx.query(`update loan_applications set custom_fields = $2::jsonb where id = $1`, [
        a.id,
        JSON.stringify({ referral_source: REFERRALS[(i / 2) % REFERRALS.length] }),
      ]);
    }
  });
}
