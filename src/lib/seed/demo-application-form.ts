import type { Db } from '../db/index.ts';
import type { ProductRow } from '../lending/products.ts';
import { formatMinor } from '../money/money.ts';
import { formOf } from '../forms/build.ts';
import { parseFormDocument } from '../forms/check.ts';
import type { FormDocument } from '../forms/document.ts';

/**
 * The demo's public application form (issue 13): a personal loan, in English and French, published at
 * /application/<slug>. Four steps and a review: the loan (amount within the product's range, number of
 * repayments, purpose with icons and a conditional "describe"), about you, a document upload, consent.
 * Every customer and application field is bound, so a submission creates (or finds) the customer and
 * the application.
 */
export function demoApplicationForm(
  product: Pick<
    ProductRow,
    'min_principal' | 'max_principal' | 'digits_after_decimal' | 'min_repayments' | 'max_repayments'
  >,
): FormDocument {
  const digits = product.digits_after_decimal;
  const min = formatMinor(product.min_principal, digits);
  const max = formatMinor(product.max_principal, digits);
  return parseFormDocument(
    formOf([
      {
        id: 'loan',
        title: { en: 'Your loan', fr: 'Votre prêt' },
        fields: [
          {
            name: 'amount',
            widget: 'money',
            label: { en: 'Amount', fr: 'Montant' },
            required: true,
            schema: { minAmount: min, maxAmount: max },
            ui: {
              bind: 'application.principal',
              help: { en: `From ${min} to ${max}.`, fr: `De ${min} à ${max}.` },
            },
          },
          {
            name: 'repayments',
            widget: 'number',
            label: { en: 'Number of monthly repayments', fr: 'Nombre de mensualités' },
            required: true,
            schema: { type: 'integer', minimum: product.min_repayments, maximum: product.max_repayments },
            ui: {
              bind: 'application.numberOfRepayments',
              help: {
                en: `From ${product.min_repayments} to ${product.max_repayments}.`,
                fr: `De ${product.min_repayments} à ${product.max_repayments}.`,
              },
            },
          },
          {
            name: 'purpose',
            widget: 'icon_radio',
            label: { en: 'Purpose of the loan', fr: 'Objet du prêt' },
            required: true,
            ui: {
              options: [
                { value: 'home', label: { en: 'Home', fr: 'Logement' }, icon: 'home' },
                { value: 'car', label: { en: 'Car', fr: 'Voiture' }, icon: 'car' },
                { value: 'studies', label: { en: 'Studies', fr: 'Études' }, icon: 'graduation-cap' },
                { value: 'health', label: { en: 'Health', fr: 'Santé' }, icon: 'heart-pulse' },
                { value: 'other', label: { en: 'Other', fr: 'Autre' }, icon: 'other' },
              ],
            },
          },
          {
            name: 'purposeOther',
            widget: 'textarea',
            label: { en: 'Describe the purpose', fr: 'Décrivez l’objet du prêt' },
            required: true,
            schema: { maxLength: 500 },
            ui: { rows: 3, visibleWhen: { field: 'purpose', in: ['other'] } },
          },
        ],
      },
      {
        id: 'about',
        title: { en: 'About you', fr: 'Vous concernant' },
        fields: [
          {
            name: 'firstName',
            widget: 'text',
            label: { en: 'First name', fr: 'Prénom' },
            required: true,
            schema: { maxLength: 100 },
            ui: { bind: 'customer.firstName' },
          },
          {
            name: 'lastName',
            widget: 'text',
            label: { en: 'Last name', fr: 'Nom' },
            required: true,
            schema: { maxLength: 100 },
            ui: { bind: 'customer.lastName' },
          },
          {
            name: 'nationalId',
            widget: 'text',
            label: { en: 'National ID number', fr: 'Numéro d’identité' },
            required: true,
            schema: { minLength: 4, maxLength: 40 },
            ui: { bind: 'customer.nationalId' },
          },
          {
            name: 'dateOfBirth',
            widget: 'date',
            label: { en: 'Date of birth', fr: 'Date de naissance' },
            required: true,
            schema: { formatMinimum: '1900-01-01' },
            ui: { bind: 'customer.dateOfBirth' },
          },
          {
            name: 'phone',
            widget: 'phone',
            label: { en: 'Mobile phone', fr: 'Téléphone mobile' },
            required: true,
            ui: { bind: 'customer.phone' },
          },
          {
            name: 'email',
            widget: 'email',
            label: { en: 'E-mail', fr: 'E-mail' },
            ui: {
              bind: 'customer.email',
              help: { en: 'We send your receipt here.', fr: 'Nous y envoyons votre accusé de réception.' },
            },
          },
        ],
      },
      {
        id: 'documents',
        title: { en: 'Documents', fr: 'Documents' },
        fields: [
          {
            name: 'idDocument',
            widget: 'file',
            label: { en: 'Identity document or payslip', fr: 'Pièce d’identité ou bulletin de salaire' },
            required: true,
            ui: { accept: ['application/pdf', 'image/jpeg', 'image/png'], maxBytes: 5 * 1024 * 1024 },
          },
        ],
      },
      {
        id: 'consent',
        title: { en: 'Consent', fr: 'Consentement' },
        fields: [
          {
            name: 'consent',
            widget: 'consent',
            label: { en: 'I agree', fr: 'J’accepte' },
            required: true,
            ui: {
              consentText: {
                en: 'I confirm that the information given is accurate, and I agree that the lender processes it to study my application, including checks with credit bureaus.',
                fr: 'Je certifie l’exactitude des informations fournies et j’accepte que le prêteur les traite pour étudier ma demande, y compris par des vérifications auprès des bureaux de crédit.',
              },
            },
          },
        ],
      },
    ]),
  );
}

/**
 * Publishes the demo form of a tenant at `slug` (version 1) for its personal-loan product (code
 * SIM-EMI, else its first active product). Does nothing when the tenant has no product or the slug is taken.
 */
export async function seedDemoApplicationForm(db: Db, tenantId: string, slug: string): Promise<string | null> {
  return db.tenant(tenantId, async (tx) => {
    const [product] = await tx.query<ProductRow>(
      `select * from loan_products where is_active order by (code = 'SIM-EMI') desc, created_at limit 1`,
    );
    if (!product) return null;
    if ((await tx.query('select 1 from application_forms where slug = $1', [slug])).length) return null;
    const document = demoApplicationForm(product);
    const [form] = await tx.query<{ id: string }>(
      `insert into application_forms (tenant_id, slug, name, description, draft, product_ids, created_by)
       values ($1, $2, $3, $4, $5::jsonb, $6::uuid[], 'system:seed') returning id`,
      [
        tenantId,
        slug,
        'Personal loan',
        'Demo public application form (EN/FR).',
        JSON.stringify(document),
        [product.id],
      ],
    );
    await tx.query(
      `insert into application_form_versions (tenant_id, form_id, version, document, product_ids, published_by)
       values ($1, $2, 1, $3::jsonb, $4::uuid[], 'system:seed')`,
      [tenantId, form.id, JSON.stringify(document), [product.id]],
    );
    await tx.query('update application_forms set published_version = 1 where id = $1', [form.id]);
    return form.id;
  });
}
