import type { Db } from '../db/index.ts';

/**
 * The demo tenants' message templates (EN and FR), seeded before the demo history because the
 * collection workflows send some of them. Idempotent (by code).
 */
type Seed = [
  code: string,
  name: string,
  channel: 'email' | 'sms',
  purpose: 'service' | 'marketing',
  subjectEn: string,
  bodyEn: string,
  subjectFr: string,
  bodyFr: string,
];

export const DEMO_TEMPLATES: Seed[] = [
  [
    'payment_reminder',
    'Payment reminder (e-mail)',
    'email',
    'service',
    'Payment reminder for loan {{loanNumber}}',
    'Dear {{firstName}} {{lastName}},\n\nYour loan {{loanNumber}} is {{daysPastDue}} days past due; the amount overdue is {{amountOverdue}}. Please make your payment as soon as possible, or reply to this e-mail if you need help.\n\nKind regards',
    'Rappel de paiement pour le prêt {{loanNumber}}',
    'Bonjour {{firstName}} {{lastName}},\n\nVotre prêt {{loanNumber}} est en retard de {{daysPastDue}} jours ; le montant impayé est de {{amountOverdue}}. Merci de régler au plus vite, ou de répondre à ce message si vous avez besoin d’aide.\n\nCordialement',
  ],
  [
    'payment_reminder_sms',
    'Payment reminder (SMS)',
    'sms',
    'service',
    '',
    '{{firstName}}, your loan {{loanNumber}} is {{daysPastDue}} days past due ({{amountOverdue}}). Please pay or reply to this SMS.',
    '',
    '{{firstName}}, votre prêt {{loanNumber}} a {{daysPastDue}} jours de retard ({{amountOverdue}}). Merci de régler ou de répondre à ce SMS.',
  ],
  [
    'promise_reminder',
    'Promise to pay reminder (SMS)',
    'sms',
    'service',
    '',
    '{{firstName}}, a reminder of your promise to pay on loan {{loanNumber}}. Thank you.',
    '',
    '{{firstName}}, rappel de votre promesse de paiement pour le prêt {{loanNumber}}. Merci.',
  ],
  [
    'bullet_maturity_reminder',
    'Bullet loan maturity reminder (e-mail)',
    'email',
    'service',
    'Your loan {{loanNumber}} reaches maturity soon',
    'Dear {{firstName}} {{lastName}},\n\nYour loan {{loanNumber}} is repaid in one payment at maturity, which is coming soon. Please make sure the amount is available.\n\nKind regards',
    'Votre prêt {{loanNumber}} arrive bientôt à échéance',
    'Bonjour {{firstName}} {{lastName}},\n\nVotre prêt {{loanNumber}} se rembourse en une fois à l’échéance, qui approche. Merci de prévoir le montant.\n\nCordialement',
  ],
  [
    'new_offer',
    'New offer (marketing e-mail)',
    'email',
    'marketing',
    'A new offer for you, {{firstName}}',
    'Dear {{firstName}} {{lastName}},\n\nYou may be eligible for a new loan offer. Reply to this e-mail to know more.\n\nKind regards',
    'Une nouvelle offre pour vous, {{firstName}}',
    'Bonjour {{firstName}} {{lastName}},\n\nVous pourriez bénéficier d’une nouvelle offre de prêt. Répondez à ce message pour en savoir plus.\n\nCordialement',
  ],
];

export async function seedDemoTemplates(db: Db, tenantIds: string[]): Promise<void> {
  for (const tenantId of tenantIds)
    await db.tenant(tenantId, async (tx) => {
      for (const [code, name, channel, purpose, subjectEn, bodyEn, subjectFr, bodyFr] of DEMO_TEMPLATES)
        await tx.query(
          `insert into message_templates (tenant_id, code, name, channel, purpose, subject_en, body_en, subject_fr, body_fr)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict (tenant_id, code) do nothing`,
          [tenantId, code, name, channel, purpose, subjectEn, bodyEn, subjectFr, bodyFr],
        );
    });
}
