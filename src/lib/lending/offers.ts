import crypto from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Tx } from '../db/index.ts';
import type { OffersRow } from '../db/schema.generated.ts';
import { fromMinor, toDecimalString } from '../money/money.ts';
import { businessDate } from '../tenancy/tenant.ts';
import type { Actor } from './actor.ts';
import { auditSuccess, positiveAmount } from './commands/common.ts';
import { submitApplication } from './commands/submit-application.ts';
import { dryRunOffer, transitionOffer, type OfferAction, type OfferStatus } from './lifecycle/offer.ts';
import { assertUuid, isUuid } from './loans.ts';
import type { FormDocument } from '../forms/document.ts';
import { validateAnswers, type FieldErrorKey } from '../forms/validate.ts';
import { parseStoredConfig } from '../tenancy/config.ts';
import { assertProductActive, assertWithinProduct, getProduct } from './products.ts';
import { assertInScope, assertPlacementInScope, isInNodes } from '../auth/data-permissions.ts';

/** An `offers` row; status and the notify form are narrowed by the lifecycle that writes them. */
export type OfferRow = Omit<OffersRow, 'status' | 'notify_form'> & {
  status: OfferStatus;
  notify_form: Record<string, string> | null;
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
  input: {
    customerId: string;
    productId: string;
    principal: string | bigint;
    numberOfRepayments: number;
    annualInterestRate?: string;
    expiresOn: string;
    /** The strategy version that made the offer (origination); its decision is linked once recorded. */
    strategyId?: string | null;
    strategyVersion?: number | null;
  },
): Promise<OfferRow> {
  assertUuid(input.customerId, 'customerId');
  await assertPlacementInScope(tx, actor, { customerId: input.customerId });
  const product = await getProduct(tx, input.productId);
  assertProductActive(product);
  const { minor: principal } = positiveAmount(input.principal, product.currency, 'principal');
  assertWithinProduct(product, principal, input.numberOfRepayments);
  const today = await businessDate(tx, actor.tenantId);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(input.expiresOn) || input.expiresOn < today) {
    throw new AppError('BAD_REQUEST', `expiresOn must be a date YYYY-MM-DD not before ${today}`, {
      field: 'expiresOn',
    });
  }
  const [row] = await tx.query<OfferRow>(
    `insert into offers (tenant_id, code, customer_id, product_id, currency, principal, number_of_repayments, annual_interest_rate, expires_on,
       product_version, strategy_id, strategy_version)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) returning *`,
    [
      actor.tenantId,
      offerCode(),
      input.customerId,
      product.id,
      product.currency,
      principal,
      input.numberOfRepayments,
      input.annualInterestRate ?? product.annual_interest_rate,
      input.expiresOn,
      product.version,
      input.strategyId ?? null,
      input.strategyVersion ?? null,
    ],
  );
  await auditSuccess(tx, actor, 'offer.create', 'offer', row.id, null, {
    status: row.status,
    principal,
    code: row.code,
    ...(input.strategyId ? { strategyId: input.strategyId, strategyVersion: input.strategyVersion } : {}),
  });
  return row;
}

/** Reads and row-locks the offer, loaded through the actor's data permissions (another branch's offer is not found). */
async function lockOffer(tx: Tx, actor: Actor, offerId: string): Promise<OfferRow> {
  assertUuid(offerId, 'offerId');
  await assertInScope(tx, actor, 'offer', offerId);
  const rows = await tx.query<OfferRow>(`select * from offers where id = $1 for update`, [offerId]);
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Offer not found', { field: 'offerId' });
  return rows[0];
}

async function moveOffer(tx: Tx, actor: Actor, offer: OfferRow, action: OfferAction): Promise<OfferStatus> {
  const today = await businessDate(tx, actor.tenantId);
  return transitionOffer(offer.status, action, { businessDate: today, expiresOn: offer.expires_on });
}

/** The tenant's configuration, read in the command's transaction so a command sees one version of it. */
export async function tenantConfigIn(tx: Tx, tenantId: string) {
  const rows = await tx.query<{ config: Record<string, unknown> }>(`select config from tenants where id = $1`, [
    tenantId,
  ]);
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Unknown tenant');
  return parseStoredConfig(rows[0].config);
}

export type NotifyValues = Record<string, string | null | undefined>;

/**
 * Checks submitted values against the notification form (the tenant's notify_customer_modal_config.form,
 * a form document): values are trimmed, a hidden field's value is dropped, then the form's schema
 * decides (src/lib/forms validateAnswers). Returns the kept values (visible, non-empty, trimmed).
 * Throws BAD_REQUEST naming the first failing field.
 */
export function validateNotifyForm(form: FormDocument, values: NotifyValues): Record<string, string> {
  const trimmed: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) if (typeof value === 'string') trimmed[name] = value.trim();
  const result = validateAnswers(form, trimmed);
  if (!result.ok) {
    const [error] = result.errors;
    throw new AppError('BAD_REQUEST', `${error.field} ${NOTIFY_ERRORS[error.key] ?? 'is not valid'}`, {
      field: error.field,
    });
  }
  return result.answers as Record<string, string>;
}

const NOTIFY_ERRORS: Partial<Record<FieldErrorKey, string>> = {
  required: 'is required',
  choice: 'must be one of the offered options',
  maxLength: 'is too long',
  minLength: 'is too short',
};

/**
 * Records that the customer was told about the offer through the tenant's notification form
 * (notify_customer_modal_config.form; by default: Channel required; Client_Feedback required
 * and Comment optional, both only for PhoneCall, InPerson or Other). to_propose → pending.
 * `form` holds the form's values by field name; `channel`, `feedback` and `comment` are accepted as
 * aliases of Channel, Client_Feedback and Comment.
 */
export async function notifyOffer(tx: Tx, actor: Actor, offerId: string, form: NotifyValues): Promise<OfferRow> {
  const { channel, feedback, comment, ...rest } = form;
  const values: NotifyValues = { ...rest };
  if (channel !== undefined) values.Channel = channel;
  if (feedback !== undefined) values.Client_Feedback = feedback;
  if (comment !== undefined) values.Comment = comment;
  const config = await tenantConfigIn(tx, actor.tenantId);
  const kept = validateNotifyForm(config.notify_customer_modal_config.form, values);
  const offer = await lockOffer(tx, actor, offerId);
  const status = await moveOffer(tx, actor, offer, 'notify');
  // The typed columns keep the default form's vocabulary (their check constraints); every value is in notify_form.
  const knownChannel = (NOTIFY_CHANNELS as readonly string[]).includes(kept.Channel ?? '') ? kept.Channel : null;
  const knownFeedback = (NOTIFY_FEEDBACK as readonly string[]).includes(kept.Client_Feedback ?? '')
    ? kept.Client_Feedback
    : null;
  const [row] = await tx.query<OfferRow>(
    `update offers set status = $2, notified_at = now(), notified_by = $3, notify_channel = $4, notify_feedback = $5, notify_comment = $6,
       notify_form = $7::jsonb, updated_at = now(), version = version + 1 where id = $1 returning *`,
    [offer.id, status, actor.userId, knownChannel, knownFeedback, kept.Comment ?? null, JSON.stringify(kept)],
  );
  await auditSuccess(tx, actor, 'offer.notify', 'offer', offer.id, { status: offer.status }, { status, form: kept });
  return row;
}

export async function rejectOffer(tx: Tx, actor: Actor, offerId: string, reason?: string | null): Promise<OfferRow> {
  const offer = await lockOffer(tx, actor, offerId);
  const status = await moveOffer(tx, actor, offer, 'reject');
  const [row] = await tx.query<OfferRow>(
    `update offers set status = $2, rejected_reason = $3, updated_at = now(), version = version + 1 where id = $1 returning *`,
    [offer.id, status, reason ?? null],
  );
  await auditSuccess(
    tx,
    actor,
    'offer.reject',
    'offer',
    offer.id,
    { status: offer.status },
    { status, reason: reason ?? null },
  );
  return row;
}

/** The customer asks for the loan: the offer becomes 'requested' and a loan application is submitted for it. */
/**
 * Requests the offer's loan: its application, with the expected disbursement date (a real date,
 * not before the business date) given as `expectedDate` or, as older clients sent it, inside the
 * form data; it is stored on the application, not as free text among the form fields.
 */
export async function requestOfferLoan(
  tx: Tx,
  actor: Actor,
  offerId: string,
  formData: Record<string, unknown> = {},
  expectedDate?: string,
) {
  const { expectedDisbursementDate: legacyDate, ...fields } = formData;
  const config = await tenantConfigIn(tx, actor.tenantId);
  if (!config.offer.requestLoan) {
    throw new AppError(
      'FORBIDDEN',
      'Requesting a loan from an offer is turned off for this tenant (offer.requestLoan)',
      { field: 'offer.requestLoan' },
    );
  }
  const offer = await lockOffer(tx, actor, offerId);
  const status = await moveOffer(tx, actor, offer, 'request');
  await getProduct(tx, offer.product_id); // a missing product is refused before the application is written
  const { application, loanId } = await submitApplication(tx, actor, {
    customerId: offer.customer_id,
    productId: offer.product_id,
    productVersion: offer.product_version,
    offerId: offer.id,
    principal: toDecimalString(fromMinor(offer.principal, offer.currency)),
    numberOfRepayments: offer.number_of_repayments,
    annualInterestRate: offer.annual_interest_rate,
    formData: fields,
    expectedDisbursementDate:
      expectedDate ?? (legacyDate === undefined || legacyDate === '' ? undefined : (legacyDate as string)),
  });
  const [row] = await tx.query<OfferRow>(
    `update offers set status = $2, application_id = $3, updated_at = now(), version = version + 1 where id = $1 returning *`,
    [offer.id, status, application.id],
  );
  await auditSuccess(
    tx,
    actor,
    'offer.request_loan',
    'offer',
    offer.id,
    { status: offer.status },
    { status, applicationId: application.id },
  );
  return { offer: row, application, loanId };
}

/**
 * Marks every offer still open to the customer (to propose or pending) whose expiry date is before
 * `asOf` as expired, with one audit row each (before and after status); the daily close calls it for
 * the new business date. Set-based: one statement whatever the number of offers. Returns how many.
 */
export async function expireOffers(tx: Tx, tenantId: string, asOf: string, actorId = 'system:close'): Promise<number> {
  const rows = await tx.query<{ id: string }>(
    `with due as (
       select id, status from offers where tenant_id = $1 and status in ('to_propose', 'pending') and expires_on < $2 for update
     ), expired as (
       update offers o set status = 'expired', updated_at = now(), version = o.version + 1
         from due where o.tenant_id = $1 and o.id = due.id
       returning o.id, due.status as before_status, o.expires_on
     )
     insert into audit_log (tenant_id, actor_id, actor_kind, action, object_type, object_id, before, after, outcome)
     select $1, $3, 'system', 'offer.expire', 'offer', e.id::text, jsonb_build_object('status', e.before_status),
            jsonb_build_object('status', 'expired', 'expiresOn', e.expires_on::text, 'businessDate', $2::text), 'success'
       from expired e
     returning object_id as id`,
    [tenantId, asOf, actorId],
  );
  return rows.length;
}

export async function getOffer(tx: Tx, offerId: string) {
  assertUuid(offerId, 'offerId');
  const rows = await tx.query<OfferRow>(`select * from offers where id = $1`, [offerId]);
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Offer not found', { field: 'offerId' });
  return rows[0];
}

/** Whether the offer's customer is inside the hierarchy scope (null nodes = unrestricted); unknown ids are not. */
export async function isOfferInScope(tx: Tx, offerId: string, scopeNodes: string[] | null): Promise<boolean> {
  if (!isUuid(offerId)) return false;
  if (scopeNodes === null) return true;
  return isInNodes(tx, 'offer', offerId, scopeNodes);
}

export async function offerActions(tx: Tx, tenantId: string, offer: OfferRow) {
  const today = await businessDate(tx, tenantId);
  return dryRunOffer(offer.status, { businessDate: today, expiresOn: offer.expires_on });
}

export async function listOffers(
  tx: Tx,
  query: { status?: OfferStatus; customerId?: string; limit?: number; scopeNodes?: string[] | null },
): Promise<OfferRow[]> {
  const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
  const params: unknown[] = [];
  const where: string[] = [];
  if (query.scopeNodes) {
    params.push(query.scopeNodes);
    where.push(`exists (select 1 from customers c where c.tenant_id = offers.tenant_id and c.id = offers.customer_id
      and (c.branch_id = any($${params.length}::uuid[]) or c.officer_id = any($${params.length}::uuid[])))`);
  }
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
  return tx.query<OfferRow>(
    `select * from offers ${where.length ? `where ${where.join(' and ')}` : ''} order by created_at desc, id desc limit $${params.length}`,
    params,
  );
}

/** An offer as the API writes it; its amount a decimal string in the currency's digits. */
export function offerJson(row: OfferRow) {
  const principal = fromMinor(row.principal, row.currency);
  return {
    id: row.id,
    code: row.code,
    status: row.status,
    customerId: row.customer_id,
    productId: row.product_id,
    currency: principal.currency,
    principal: toDecimalString(principal),
    numberOfRepayments: row.number_of_repayments,
    annualInterestRate: row.annual_interest_rate,
    expiresOn: row.expires_on,
    notifiedAt: row.notified_at,
    notifiedBy: row.notified_by,
    channel: row.notify_channel,
    feedback: row.notify_feedback,
    comment: row.notify_comment,
    notifyForm: row.notify_form,
    rejectedReason: row.rejected_reason,
    applicationId: row.application_id,
    loanId: row.loan_id,
    strategyId: row.strategy_id,
    strategyVersion: row.strategy_version,
    decisionId: row.decision_id,
    createdAt: row.created_at,
    version: row.version,
  };
}
