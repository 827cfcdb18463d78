import crypto from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Tx } from '../db/index.ts';
import { formatMinor } from '../money/money.ts';
import { businessDate } from '../tenancy/tenant.ts';
import type { Actor } from './actor.ts';
import { auditSuccess, positiveAmount } from './commands/common.ts';
import { submitApplication } from './commands/submit-application.ts';
import { dryRunOffer, transitionOffer, type OfferAction, type OfferStatus } from './lifecycle/offer.ts';
import { assertUuid } from './loans.ts';
import { assertWithinProduct, getProduct } from './products.ts';

export type OfferRow = {
  id: string; code: string; customer_id: string; product_id: string; currency: string; principal: bigint; number_of_repayments: number;
  annual_interest_rate: string; expires_on: string; status: OfferStatus; notified_at: Date | null; notified_by: string | null;
  notify_channel: string | null; notify_feedback: string | null; notify_comment: string | null; rejected_reason: string | null;
  application_id: string | null; loan_id: string | null; created_at: Date; updated_at: Date; version: number;
};

export const NOTIFY_CHANNELS = ['Message', 'PhoneCall', 'InPerson', 'Other'] as const;
export const NOTIFY_FEEDBACK = ['Uninterested', 'Neutral', 'Interested', 'Unknown'] as const;

/** A short code a customer can quote: unambiguous letters and digits (no 0/O, 1/I). */
function offerCode(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  return Array.from(crypto.randomBytes(8), (b) => alphabet[b % alphabet.length]).join('');
}

export async function createOffer(
  tx: Tx,
  actor: Actor,
  input: { customerId: string; productId: string; principal: string | bigint; numberOfRepayments: number; annualInterestRate?: string; expiresOn: string },
): Promise<OfferRow> {
  assertUuid(input.customerId, 'customerId');
  const product = await getProduct(tx, input.productId);
  const principal = positiveAmount(input.principal, product.digits_after_decimal, 'principal');
  assertWithinProduct(product, principal, input.numberOfRepayments);
  const today = await businessDate(tx, actor.tenantId);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(input.expiresOn) || input.expiresOn < today) {
    throw new AppError('BAD_REQUEST', `expiresOn must be a date YYYY-MM-DD not before ${today}`, { field: 'expiresOn' });
  }
  const [row] = await tx.query<OfferRow>(
    `insert into offers (tenant_id, code, customer_id, product_id, currency, principal, number_of_repayments, annual_interest_rate, expires_on)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *`,
    [actor.tenantId, offerCode(), input.customerId, product.id, product.currency, principal, input.numberOfRepayments,
      input.annualInterestRate ?? product.annual_interest_rate, input.expiresOn],
  );
  await auditSuccess(tx, actor, 'offer.create', 'offer', row.id, null, { status: row.status, principal, code: row.code });
  return row;
}

async function lockOffer(tx: Tx, offerId: string): Promise<OfferRow> {
  assertUuid(offerId, 'offerId');
  const rows = await tx.query<OfferRow>(`select * from offers where id = $1 for update`, [offerId]);
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Offer not found', { field: 'offerId' });
  return rows[0];
}

async function moveOffer(tx: Tx, actor: Actor, offer: OfferRow, action: OfferAction): Promise<OfferStatus> {
  const today = await businessDate(tx, actor.tenantId);
  return transitionOffer(offer.status, action, { businessDate: today, expiresOn: offer.expires_on });
}

/**
 * Records that the customer was told about the offer (spec notification form): Channel required;
 * Client_Feedback required unless the channel is Message; Comment optional. to_propose → pending.
 */
export async function notifyOffer(
  tx: Tx,
  actor: Actor,
  offerId: string,
  form: { channel: string; feedback?: string | null; comment?: string | null },
): Promise<OfferRow> {
  if (!(NOTIFY_CHANNELS as readonly string[]).includes(form.channel)) {
    throw new AppError('BAD_REQUEST', `Channel must be one of ${NOTIFY_CHANNELS.join(', ')}`, { field: 'Channel' });
  }
  const asksFeedback = form.channel !== 'Message';
  if (asksFeedback && !(NOTIFY_FEEDBACK as readonly string[]).includes(form.feedback ?? '')) {
    throw new AppError('BAD_REQUEST', `Client_Feedback must be one of ${NOTIFY_FEEDBACK.join(', ')}`, { field: 'Client_Feedback' });
  }
  const offer = await lockOffer(tx, offerId);
  const status = await moveOffer(tx, actor, offer, 'notify');
  const [row] = await tx.query<OfferRow>(
    `update offers set status = $2, notified_at = now(), notified_by = $3, notify_channel = $4, notify_feedback = $5, notify_comment = $6,
       updated_at = now(), version = version + 1 where id = $1 returning *`,
    [offer.id, status, actor.userId, form.channel, asksFeedback ? form.feedback : null, asksFeedback ? (form.comment?.trim() || null) : null],
  );
  await auditSuccess(tx, actor, 'offer.notify', 'offer', offer.id, { status: offer.status }, { status, channel: form.channel, feedback: row.notify_feedback });
  return row;
}

export async function rejectOffer(tx: Tx, actor: Actor, offerId: string, reason?: string | null): Promise<OfferRow> {
  const offer = await lockOffer(tx, offerId);
  const status = await moveOffer(tx, actor, offer, 'reject');
  const [row] = await tx.query<OfferRow>(
    `update offers set status = $2, rejected_reason = $3, updated_at = now(), version = version + 1 where id = $1 returning *`,
    [offer.id, status, reason ?? null],
  );
  await auditSuccess(tx, actor, 'offer.reject', 'offer', offer.id, { status: offer.status }, { status, reason: reason ?? null });
  return row;
}

/** The customer asks for the loan: the offer becomes 'requested' and a loan application is submitted for it. */
export async function requestOfferLoan(tx: Tx, actor: Actor, offerId: string, formData: Record<string, unknown> = {}) {
  const offer = await lockOffer(tx, offerId);
  const status = await moveOffer(tx, actor, offer, 'request');
  const product = await getProduct(tx, offer.product_id);
  const { application, loanId } = await submitApplication(tx, actor, {
    customerId: offer.customer_id, productId: offer.product_id, offerId: offer.id,
    principal: formatMinor(offer.principal, product.digits_after_decimal), numberOfRepayments: offer.number_of_repayments,
    annualInterestRate: offer.annual_interest_rate, formData,
  });
  const [row] = await tx.query<OfferRow>(
    `update offers set status = $2, application_id = $3, updated_at = now(), version = version + 1 where id = $1 returning *`,
    [offer.id, status, application.id],
  );
  await auditSuccess(tx, actor, 'offer.request_loan', 'offer', offer.id, { status: offer.status }, { status, applicationId: application.id });
  return { offer: row, application, loanId };
}

/** Marks every offer past its expiry as expired (the daily close calls this); returns how many. */
export async function expireOffers(tx: Tx, tenantId: string, asOf: string): Promise<number> {
  const rows = await tx.query<{ id: string }>(
    `update offers set status = 'expired', updated_at = now(), version = version + 1
      where status in ('to_propose', 'pending') and expires_on < $1 returning id`,
    [asOf],
  );
  void tenantId;
  return rows.length;
}

export async function getOffer(tx: Tx, offerId: string) {
  assertUuid(offerId, 'offerId');
  const rows = await tx.query<OfferRow>(`select * from offers where id = $1`, [offerId]);
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Offer not found', { field: 'offerId' });
  return rows[0];
}

export async function offerActions(tx: Tx, tenantId: string, offer: OfferRow) {
  const today = await businessDate(tx, tenantId);
  return dryRunOffer(offer.status, { businessDate: today, expiresOn: offer.expires_on });
}

export async function listOffers(tx: Tx, query: { status?: OfferStatus; customerId?: string; limit?: number }): Promise<OfferRow[]> {
  const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
  const params: unknown[] = [];
  const where: string[] = [];
  if (query.status) {
    params.push(query.status);
    where.push(`status = $${params.length}`);
  }
  if (query.customerId) {
    assertUuid(query.customerId, 'customerId');
    params.push(query.customerId);
    where.push(`customer_id = $${params.length}`);
  }
  params.push(limit);
  return tx.query<OfferRow>(`select * from offers ${where.length ? `where ${where.join(' and ')}` : ''} order by created_at desc, id desc limit $${params.length}`, params);
}

export function offerJson(row: OfferRow, digits: number) {
  return {
    id: row.id, code: row.code, status: row.status, customerId: row.customer_id, productId: row.product_id, currency: row.currency.trim(),
    principal: formatMinor(row.principal, digits), numberOfRepayments: row.number_of_repayments, annualInterestRate: row.annual_interest_rate,
    expiresOn: row.expires_on, notifiedAt: row.notified_at, notifiedBy: row.notified_by, channel: row.notify_channel,
    feedback: row.notify_feedback, comment: row.notify_comment, rejectedReason: row.rejected_reason, applicationId: row.application_id,
    loanId: row.loan_id, createdAt: row.created_at, version: row.version,
  };
}
