import { z } from 'zod';
import { defineCommand } from '../http/command.ts';
import { formatMinor, currencyDigits } from '../money/money.ts';
import { tenantMoneyDay } from '../tenancy/tenant.ts';
import { deleteCollateral, parseCollateralEdit, updateCollateral } from '../customer-analytics/collaterals.ts';
import { createCollateral, linkCollateral } from './collaterals.ts';
import { need } from '../auth/permissions.ts';
import { checkCustomValues, customFieldsOf, coerceCustomPosted } from '../forms/custom-fields.ts';
import { updateCollateralCustomFields } from '../forms/custom-field-commands.ts';

/**
 * The collateral writes as commands (src/lib/http/command.ts): the collateral pages post their forms
 * through the form adapter. The editable fields arrive as typed text and are checked by
 * parseCollateralEdit (the one money parser, the business-date rule), in the writer's language.
 */
const text = z.string().max(10_000);
const fields = {
  type: text,
  description: text.default(''),
  value: text,
  valuationDate: text,
  /** The customized fields as posted (`cf.<name>` without the prefix; issue 13). */
  customFields: z.record(z.string().max(80), text).default({}),
};

/** Records a collateral for a customer in the caller's scope, in the tenant's currency. */
export const createCollateralCommand = defineCommand({
  action: 'collateral.create',
  objectType: 'collateral',
  permission: need('loans.collaterals.add'),
  input: z.object({ customerId: text, ...fields }),
  run: async (tx, actor, input, request) => {
    const { currency, businessDate } = await tenantMoneyDay(tx, actor.tenantId);
    const parsed = parseCollateralEdit(input, currency, businessDate, request.language);
    const doc = await customFieldsOf(tx, 'collateral');
    const customFields = checkCustomValues(doc, doc ? coerceCustomPosted(doc, input.customFields) : {}, null);
    return createCollateral(tx, actor, {
      customFields,
      customerId: input.customerId,
      type: parsed.type,
      description: parsed.description,
      currency,
      value: formatMinor(parsed.value, currencyDigits(currency)),
      valuationDate: parsed.valuationDate,
    });
  },
});

/** Changes a collateral's type, description, value and valuation date. */
export const updateCollateralCommand = defineCommand({
  action: 'collateral.update',
  objectType: 'collateral',
  permission: need('loans.collaterals.edit'),
  input: z.object({ collateralId: text, ...fields }),
  run: async (tx, actor, { collateralId, customFields, ...edit }, request) => {
    const { businessDate } = await tenantMoneyDay(tx, actor.tenantId);
    await updateCollateral(tx, actor, collateralId, edit, businessDate, request.language);
    await updateCollateralCustomFields(tx, actor, collateralId, customFields);
    return { id: collateralId };
  },
});

/** Pledges a collateral to a loan of the same customer. */
export const linkCollateralCommand = defineCommand({
  action: 'collateral.link',
  objectType: 'collateral',
  permission: need('loans.collaterals.edit'),
  input: z.object({ collateralId: text, loanId: text }),
  run: async (tx, actor, input) => {
    await linkCollateral(tx, actor, input.loanId, input.collateralId);
    return { id: input.collateralId };
  },
});

/** Deletes a collateral that secures no active loan. */
export const deleteCollateralCommand = defineCommand({
  action: 'collateral.delete',
  objectType: 'collateral',
  permission: need('loans.collaterals.delete'),
  input: z.object({ collateralId: text }),
  run: async (tx, actor, input) => {
    await deleteCollateral(tx, actor, input.collateralId);
    return { id: input.collateralId };
  },
});
