import type { APIRoute } from 'astro';
import { z } from 'zod';
import { amountField, apiContext, dateField, mutation, query } from '#lib/lending/api.ts';
import { applicationJson, getApplicationView } from '#lib/lending/applications.ts';
import { editApplicationById } from '#lib/lending/commands/edit-application.ts';
import { staffFormDataOfBody } from '#lib/forms/staff-form.ts';

/** GET /v1/applications/{id} → the application with the actions the caller may take. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), (tx, actor) => getApplicationView(tx, actor, context.params.id ?? ''), {
    applicationId: context.params.id ?? '',
  });

const Body = z.object({
  principal: amountField,
  numberOfRepayments: z.number().int(),
  formData: z.record(z.string(), z.unknown()).optional(),
  /** Customized fields by name (issue 13): checked against the tenant's form, unknown names refused. */
  customFields: z.record(z.string().max(200), z.unknown()).optional(),
  expectedVersion: z.number().int().optional(),
  expectedDisbursementDate: dateField.optional(),
});

/** PATCH /v1/applications/{id} { principal, numberOfRepayments, formData?, expectedVersion?, expectedDisbursementDate? } → the edited application (409 once decided). */
export const PATCH: APIRoute = (context) => {
  const applicationId = context.params.id ?? '';
  return mutation(apiContext(context), {
    action: 'application.edit',
    objectType: 'loan_application',
    objectId: applicationId,
    applicationId,
    schema: Body,
    run: async (tx, actor, body) => {
      // Issue 13: formData.form holds the answers of the staff application form (cbs.application_form).
      const formData = await staffFormDataOfBody(tx, actor.tenantId, body.formData, applicationId);
      return {
        status: 200,
        body: applicationJson(
          await editApplicationById(tx, actor, applicationId, {
            ...body,
            formData,
            customFields: body.customFields === undefined ? undefined : { values: body.customFields, isApi: true },
          }),
        ),
      };
    },
  });
};
