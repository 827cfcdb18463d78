import type { Principal } from '../auth/principal.ts';
import { z } from 'zod';
import { coerceCustomPosted, customFieldsOf } from '../forms/custom-fields.ts';
import type { Db, Tx } from '../db/index.ts';
import { defineCommand } from '../http/command.ts';
import { AppError } from '../errors/app-error.ts';
import { currencyCode, fromMinor, toDecimalString } from '../money/money.ts';
import { checkAmountText } from '../money/parse.ts';
import { validationError } from '../errors/messages.ts';
import type { Language } from '../i18n/index.ts';
import { businessDate } from '../tenancy/tenant.ts';
import { resolveScopeNodes } from '../tenancy/scope.ts';
import { actorFromPrincipal, type Actor } from './actor.ts';
import { applicationJson } from './applications.ts';
import { applicationContext } from './commands/decide-application.ts';
import { editApplication } from './commands/edit-application.ts';
import type { ApplicationRow } from './commands/submit-application.ts';
import { getCustomer, isCustomerInScope } from './customers.ts';
import { dryRunApplication } from './lifecycle/application.ts';
import { isUuid } from './loans.ts';
import { productOf } from './products.ts';
import { postedStaffAnswers } from '../forms/staff-form.ts';
import { need } from '../auth/permissions.ts';

/**
 * What /loans/loan-applications/edit/:customerId/:loanId shows and saves. The customer must be in
 * the user's data permissions and the loan must be that customer's application loan; otherwise 404.
 */
async function findApplication(
  tx: Tx,
  principal: Pick<Principal, 'isAdmin' | 'dataPermissions'>,
  customerId: string,
  loanId: string,
) {
  if (!isUuid(customerId) || !isUuid(loanId))
    throw new AppError('NOT_FOUND', 'Loan application not found', { field: 'loanId' });
  if (!(await isCustomerInScope(tx, customerId, await resolveScopeNodes(tx, principal, null)))) {
    throw new AppError('NOT_FOUND', 'Loan application not found', { field: 'loanId' });
  }
  const rows = await tx.query<ApplicationRow>(
    `select * from loan_applications where loan_id = $1 and customer_id = $2`,
    [loanId, customerId],
  );
  if (!rows[0]) throw new AppError('NOT_FOUND', 'Loan application not found', { field: 'loanId' });
  return { ...rows[0], currency: currencyCode(rows[0].currency) };
}

export async function loadApplicationEdit(db: Db, principal: Principal, customerId: string, loanId: string) {
  return db.tenant(principal.tenantId, async (tx) => {
    const application = await findApplication(tx, principal, customerId, loanId);
    const customer = await getCustomer(tx, customerId);
    const product = await productOf(tx, application);
    const edit = dryRunApplication(
      application.status,
      await applicationContext(tx, actorFromPrincipal(principal), application),
    ).find((e) => e.action === 'edit');
    return {
      customer: { firstName: customer.first_name, lastName: customer.last_name },
      application: applicationJson(application),
      product: {
        name: product.name,
        currency: currencyCode(product.currency),
        minPrincipal: toDecimalString(fromMinor(product.min_principal, product.currency)),
        maxPrincipal: toDecimalString(fromMinor(product.max_principal, product.currency)),
        minRepayments: product.min_repayments,
        maxRepayments: product.max_repayments,
      },
      canEdit: edit?.allowed === true,
      businessDate: await businessDate(tx, principal.tenantId),
    };
  });
}

/**
 * Fields of the application's own columns that older clients also stored among the form fields:
 * they are edited through their real inputs (a date input for the expected disbursement date),
 * never as free text.
 */
const COLUMN_FIELDS = new Set(['expectedDisbursementDate']);

/** Form fields of the application as text (the built-in form has `purpose`; other stored string fields are kept editable). */
export function editableFormFields(formData: Record<string, unknown>): string[] {
  const keys = Object.keys(formData).filter(
    (k) => typeof formData[k] === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(k) && !COLUMN_FIELDS.has(k),
  );
  return keys.includes('purpose') ? keys : ['purpose', ...keys];
}

export type ApplicationEditInput = {
  principal: string;
  numberOfRepayments: string;
  expectedVersion: string;
  expectedDisbursementDate?: string;
  fields: Record<string, string>;
  /** The customized fields as posted (`cf.<name>` without the prefix; issue 13). */
  customFields?: Record<string, string>;
  /** Issue 13: the staff application form's posted answers ('form.' inputs, without the prefix). */
  staffForm?: Record<string, string>;
};

export async function saveApplicationEdit(
  db: Db,
  principal: Principal,
  customerId: string,
  loanId: string,
  input: ApplicationEditInput,
  request: { ip?: string | null; requestId?: string | null; language?: Language } = {},
) {
  const actor = actorFromPrincipal(principal, { ip: request.ip, requestId: request.requestId });
  return db.tenant(principal.tenantId, (tx) =>
    saveApplicationEditIn(tx, actor, customerId, loanId, input, request.language ?? 'en'),
  );
}

async function saveApplicationEditIn(
  tx: Tx,
  actor: Actor,
  customerId: string,
  loanId: string,
  input: ApplicationEditInput,
  language: Language,
) {
  // The one money parser; French users may type a decimal comma ("1200,50").
  const amount = checkAmountText(input.principal, { decimalComma: language === 'fr' });
  if (!amount.ok) throw validationError('principal', amount.problem.key, amount.problem.params);
  if (!/^\d{1,4}$/.test(input.numberOfRepayments.trim())) throw validationError('numberOfRepayments', 'number.whole');
  const repayments = Number(input.numberOfRepayments);
  const version = /^\d+$/.test(input.expectedVersion) ? Number(input.expectedVersion) : undefined;
  const application = await findApplication(
    tx,
    { isAdmin: actor.isAdmin, dataPermissions: actor.dataPermissions ?? [] },
    customerId,
    loanId,
  );
  const { expectedDisbursementDate: _legacy, ...stored } = application.form_data as Record<string, unknown>;
  const formData: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(input.fields)) {
    if (editableFormFields(application.form_data).includes(key)) formData[key] = value.trim().slice(0, 2000);
  }
  const doc = await customFieldsOf(tx, 'loan_application');
  if (input.staffForm)
    Object.assign(formData, await postedStaffAnswers(tx, actor.tenantId, input.staffForm, application.form_data));
  return editApplication(tx, actor, loanId, {
    customFields: doc ? { values: coerceCustomPosted(doc, input.customFields ?? {}) } : undefined,
    principal: amount.text,
    numberOfRepayments: repayments,
    formData,
    expectedVersion: version,
    expectedDisbursementDate: input.expectedDisbursementDate,
  });
}

/**
 * The edit page's save as a command (src/lib/http/command.ts), posted through the form adapter: the
 * amount and term arrive as typed text and are read here (PATCH /v1/applications/{id} takes them as
 * JSON numbers and runs editApplicationById).
 */
export const editApplicationFromFormCommand = defineCommand({
  action: 'application.edit',
  objectType: 'loan_application',
  permission: need('loans.offers.request_loan'),
  input: z.object({
    customerId: z.string(),
    loanId: z.string(),
    principal: z.string().max(10_000),
    numberOfRepayments: z.string().max(10_000),
    expectedVersion: z.string().max(10_000),
    expectedDisbursementDate: z.string().max(10_000).optional(),
    fields: z.record(z.string(), z.string().max(10_000)),
    customFields: z.record(z.string().max(80), z.string().max(10_000)).optional(),
    staffForm: z.record(z.string(), z.string().max(10_000)).optional(),
  }),
  run: (tx, actor, { customerId, loanId, ...input }, request) =>
    saveApplicationEditIn(tx, actor, customerId, loanId, input, request.language),
});
