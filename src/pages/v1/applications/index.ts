import type { APIRoute } from 'astro';
import { z } from 'zod';
import { amountField, apiContext, dateField, mutation, query, scopeNodesOf } from '#lib/lending/api.ts';
import { applicationJson, listApplications } from '#lib/lending/applications.ts';
import { submitApplication } from '#lib/lending/commands/submit-application.ts';
import { QueryReader } from '#lib/http/query-params.ts';
import { staffFormDataOfBody } from '#lib/forms/staff-form.ts';

/** GET /v1/applications?status=submitted&limit=N → { items }. */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, _actor, url, principal) => {
    const q = new QueryReader(url.searchParams, ['status', 'limit']);
    const input = { status: q.one('status') || undefined, limit: q.int('limit', { min: 1, max: 500, fallback: 50 }) };
    return listApplications(tx, { ...input, scopeNodes: await scopeNodesOf(tx, principal) });
  });

const Body = z.object({
  customerId: z.string(),
  productId: z.string(),
  offerId: z.string().optional(),
  principal: amountField,
  numberOfRepayments: z.number().int().positive(),
  annualInterestRate: z.string().optional(),
  expectedDisbursementDate: dateField.optional(),
  formData: z.record(z.string(), z.unknown()).optional(),
  /** Customized fields by name (issue 13): checked against the tenant's form, unknown names refused. */
  customFields: z.record(z.string().max(200), z.unknown()).optional(),
});

/** POST /v1/applications → 201 the submitted application (the maker's step). */
export const POST: APIRoute = (context) =>
  mutation(apiContext(context), {
    action: 'application.submit',
    objectType: 'loan_application',
    objectId: '',
    schema: Body,
    run: async (tx, actor, body) => {
      // Issue 13: formData.form holds the answers of the staff application form (cbs.application_form).
      const formData = await staffFormDataOfBody(tx, actor.tenantId, body.formData);
      const { application } = await submitApplication(tx, actor, {
        ...body,
        formData,
        customFields: { values: body.customFields ?? {}, isApi: true },
      });
      return { status: 201, body: applicationJson(application) };
    },
  });
