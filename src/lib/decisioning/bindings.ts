import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { assertInScope } from '../auth/data-permissions.ts';
import type { Tx } from '../db/index.ts';
import type { DecisionBindingsRow } from '../db/schema.generated.ts';
import { AppError } from '../errors/app-error.ts';
import type { Actor } from '../lending/actor.ts';
import { assertUuid } from '../lending/loans.ts';
import { currencyDigits, decodeMinor } from '../money/money.ts';
import { businessDate } from '../tenancy/tenant.ts';
import {
  listDecisions,
  mapOutcome,
  reasonsFromTrace,
  recordDecision,
  type DecisionRow,
  type MappedOutcome,
  type OutcomeMapping,
  type Reason,
} from './decisions.ts';
import { decisionInput, type DecisionInput } from './inputs.ts';
import { evaluateVersion, getModel, getVersion, listModels, markVersionUsed } from './models.ts';

/**
 * Decision-engine bindings (migration 0630): which model version runs at which point of an
 * application's life, on which input groups, with which outcome mapping. At most one binding per
 * point is enabled; enabling a binding marks its version used (immutable from then on). Offer
 * generation is configured by the lending strategies, not here (`liveOfferModels` lists them).
 *
 * At `application_submitted` (called by submitApplication in the same transaction) the decision is
 * recorded and its action applied: approve and refer leave the application for the checker with
 * the recommendation; reject either only recommends or, with `auto_reject`, has the system reject
 * it. A model that fails at run time never loses the application: the failure is audited
 * (`application.decision_failed`) and the application is marked for manual review
 * (`loan_applications.manual_review_reason`). At `review` a checker runs the decision on demand.
 */

export const BINDING_POINTS = ['application_submitted', 'review'] as const;
export type BindingPoint = (typeof BINDING_POINTS)[number];
export const INPUT_GROUPS = ['customer', 'bankStatement', 'bureau', 'exposure', 'application'] as const;
export type InputGroup = (typeof INPUT_GROUPS)[number];
export const REJECT_ACTIONS = ['recommend', 'auto_reject'] as const;
export type RejectAction = (typeof REJECT_ACTIONS)[number];

export type BindingRow = Omit<DecisionBindingsRow, 'point' | 'inputs' | 'mapping' | 'reject_action'> & {
  point: BindingPoint;
  inputs: InputGroup[];
  mapping: OutcomeMapping;
  reject_action: RejectAction;
};
export type BindingView = BindingRow & { model_name: string; model_version: number };

/** The system, when it rejects an application on a binding's `auto_reject`. */
export const DECISION_ENGINE_USER = 'system:decision-engine';

const FIELD_PATH = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
const fieldPath = z.string().trim().min(1).max(200).regex(FIELD_PATH, 'a field path such as decision or offer.limit');
const optionalPath = z
  .union([fieldPath, z.literal(''), z.null()])
  .optional()
  .transform((v) => (v ? v : null));
const values = z.array(z.string().trim().min(1).max(60)).max(20);

export const mappingSchema = z
  .object({
    outcomeField: fieldPath,
    approve: values,
    refer: values.default([]),
    reject: values,
    limitField: optionalPath,
    rateField: optionalPath,
  })
  .strict();

export const bindingFields = {
  name: z.string().trim().min(1).max(120),
  point: z.enum(BINDING_POINTS),
  modelId: z.string().max(64),
  versionId: z.string().max(64),
  inputs: z.array(z.enum(INPUT_GROUPS)).min(1).max(5),
  mapping: mappingSchema,
  rejectAction: z.enum(REJECT_ACTIONS).default('recommend'),
  enabled: z.boolean().default(false),
};
export const createBindingInput = z.object(bindingFields).strict();
export const updateBindingInput = z
  .object({
    bindingId: z.string().max(64),
    name: bindingFields.name.optional(),
    point: bindingFields.point.optional(),
    modelId: bindingFields.modelId.optional(),
    versionId: bindingFields.versionId.optional(),
    inputs: bindingFields.inputs.optional(),
    mapping: mappingSchema.optional(),
    rejectAction: z.enum(REJECT_ACTIONS).optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type CreateBindingInput = z.infer<typeof createBindingInput>;
export type UpdateBindingInput = z.infer<typeof updateBindingInput>;

/** A value in two lists is ambiguous; a mapping with no approve and no reject value decides nothing. */
export function assertMapping(mapping: OutcomeMapping): void {
  const seen = new Map<string, string>();
  for (const list of ['approve', 'refer', 'reject'] as const) {
    for (const v of mapping[list]) {
      const key = v.toLowerCase();
      const other = seen.get(key);
      if (other && other !== list)
        throw new AppError('UNPROCESSABLE', `The value "${v}" is both ${other} and ${list}`, {
          field: 'mapping',
        });
      seen.set(key, list);
    }
  }
  if (mapping.approve.length + mapping.reject.length === 0)
    throw new AppError('UNPROCESSABLE', 'The mapping needs at least one approve or reject value', {
      field: 'mapping',
    });
}

const SELECT_VIEW = `select b.*, m.name as model_name, v.version as model_version
  from decision_bindings b
  join decision_models m on m.tenant_id = b.tenant_id and m.id = b.model_id
  join decision_model_versions v on v.tenant_id = b.tenant_id and v.id = b.model_version_id`;

export async function listBindings(tx: Tx): Promise<BindingView[]> {
  return tx.query<BindingView>(`${SELECT_VIEW} order by b.point, b.enabled desc, lower(b.name), b.id`);
}

export async function getBinding(tx: Tx, id: string): Promise<BindingView> {
  assertUuid(id, 'id');
  const [row] = await tx.query<BindingView>(`${SELECT_VIEW} where b.id = $1`, [id]);
  if (!row) throw new AppError('NOT_FOUND', 'Decision binding not found', { field: 'id' });
  return row;
}

/** The model and version choosers of the binding form: every model with its versions, newest first. */
export async function modelChoices(
  tx: Tx,
): Promise<{ id: string; name: string; versions: { id: string; version: number; inUse: boolean }[] }[]> {
  const out = [];
  for (const m of await listModels(tx)) {
    const { versions } = await getModel(tx, m.id);
    out.push({
      id: m.id,
      name: m.name,
      versions: versions.map((v) => ({ id: v.id, version: v.version, inUse: v.used_at !== null })),
    });
  }
  return out;
}

/** What the application page shows about decisions: the stored ones, a manual-review reason, whether review can run. */
export async function applicationDecisionState(tx: Tx, applicationId: string) {
  const [app] = await tx.query<{ manual_review_reason: string | null }>(
    `select manual_review_reason from loan_applications where id = $1`,
    [applicationId],
  );
  return {
    decisions: await listDecisions(tx, { subjectType: 'application', subjectId: applicationId }),
    manualReviewReason: app?.manual_review_reason ?? null,
    reviewEnabled: (await enabledBinding(tx, 'review')) !== null,
  };
}

/** The enabled binding of a point, if any. */
export async function enabledBinding(tx: Tx, point: BindingPoint): Promise<BindingView | null> {
  const [row] = await tx.query<BindingView>(`${SELECT_VIEW} where b.point = $1 and b.enabled`, [point]);
  return row ?? null;
}

/** The live strategies' model versions: who generates offers (configured on the strategy pages). */
export async function liveOfferModels(tx: Tx): Promise<
  {
    strategy_id: string;
    strategy_name: string;
    version: number;
    model_name: string | null;
    model_version: number | null;
  }[]
> {
  return tx.query(
    `select s.id as strategy_id, s.name as strategy_name, sv.version, m.name as model_name, mv.version as model_version
       from strategies s
       join strategy_versions sv on sv.tenant_id = s.tenant_id and sv.strategy_id = s.id and sv.version = s.live_version
       left join decision_model_versions mv on mv.tenant_id = s.tenant_id and mv.id::text = sv.terms->>'modelVersionId'
       left join decision_models m on m.tenant_id = s.tenant_id and m.id = mv.model_id
      where s.status = 'live'
      order by lower(s.name), s.id`,
  );
}

const snapshot = (b: BindingRow) => ({
  name: b.name,
  point: b.point,
  modelId: b.model_id,
  versionId: b.model_version_id,
  inputs: b.inputs,
  mapping: b.mapping,
  rejectAction: b.reject_action,
  enabled: b.enabled,
});

async function checkVersion(tx: Tx, modelId: string, versionId: string) {
  assertUuid(modelId, 'modelId');
  const version = await getVersion(tx, versionId);
  if (version.model_id !== modelId)
    throw new AppError('NOT_FOUND', 'This version does not belong to the chosen model', { field: 'versionId' });
  return version;
}

async function checkOneEnabled(tx: Tx, point: BindingPoint, exceptId: string | null) {
  const [other] = await tx.query<{ name: string }>(
    `select name from decision_bindings where point = $1 and enabled and ($2::uuid is null or id <> $2::uuid) for update`,
    [point, exceptId],
  );
  if (other)
    throw new AppError('CONFLICT', `The binding "${other.name}" is already enabled at this point; disable it first`, {
      field: 'enabled',
      details: { code: 'point_taken' },
    });
}

async function checkName(tx: Tx, name: string, exceptId: string | null) {
  const [taken] = await tx.query(
    `select 1 from decision_bindings where lower(name) = lower($1) and ($2::uuid is null or id <> $2::uuid)`,
    [name, exceptId],
  );
  if (taken) throw new AppError('ALREADY_EXISTS', `A binding named "${name}" already exists`, { field: 'name' });
}

const uniqueInputs = (inputs: InputGroup[]) => INPUT_GROUPS.filter((g) => inputs.includes(g));

export async function createBinding(tx: Tx, actor: Actor, input: CreateBindingInput): Promise<BindingView> {
  assertMapping(input.mapping);
  await checkVersion(tx, input.modelId, input.versionId);
  await checkName(tx, input.name, null);
  if (input.enabled) {
    await checkOneEnabled(tx, input.point, null);
    await markVersionUsed(tx, input.versionId);
  }
  const [row] = await tx.query<BindingRow>(
    `insert into decision_bindings (tenant_id, name, point, model_id, model_version_id, inputs, mapping, reject_action, enabled, created_by)
     values ($1, $2, $3, $4, $5, $6::text[], $7::jsonb, $8, $9, $10) returning *`,
    [
      actor.tenantId,
      input.name,
      input.point,
      input.modelId,
      input.versionId,
      uniqueInputs(input.inputs),
      JSON.stringify(input.mapping),
      input.rejectAction,
      input.enabled,
      actor.userId,
    ],
  );
  await recordAudit(tx, {
    ...auditActor(actor),
    action: 'decision_binding.create',
    objectType: 'decision_binding',
    objectId: row.id,
    after: snapshot(row),
    outcome: 'success',
  });
  return getBinding(tx, row.id);
}

export async function updateBinding(tx: Tx, actor: Actor, input: UpdateBindingInput): Promise<BindingView> {
  assertUuid(input.bindingId, 'id');
  const [current] = await tx.query<BindingRow>(`select * from decision_bindings where id = $1 for update`, [
    input.bindingId,
  ]);
  if (!current) throw new AppError('NOT_FOUND', 'Decision binding not found', { field: 'id' });
  const next = {
    name: input.name ?? current.name,
    point: input.point ?? current.point,
    modelId: input.modelId ?? current.model_id,
    versionId: input.versionId ?? current.model_version_id,
    inputs: uniqueInputs(input.inputs ?? current.inputs),
    mapping: input.mapping ?? current.mapping,
    rejectAction: input.rejectAction ?? current.reject_action,
    enabled: input.enabled ?? current.enabled,
  };
  assertMapping(next.mapping);
  if (input.modelId !== undefined || input.versionId !== undefined)
    await checkVersion(tx, next.modelId, next.versionId);
  if (next.name !== current.name) await checkName(tx, next.name, current.id);
  if (next.enabled) {
    await checkOneEnabled(tx, next.point, current.id);
    await markVersionUsed(tx, next.versionId);
  }
  const [row] = await tx.query<BindingRow>(
    `update decision_bindings set name = $2, point = $3, model_id = $4, model_version_id = $5, inputs = $6::text[],
       mapping = $7::jsonb, reject_action = $8, enabled = $9, updated_by = $10, updated_at = now(), row_version = row_version + 1
     where id = $1 returning *`,
    [
      current.id,
      next.name,
      next.point,
      next.modelId,
      next.versionId,
      next.inputs,
      JSON.stringify(next.mapping),
      next.rejectAction,
      next.enabled,
      actor.userId,
    ],
  );
  await recordAudit(tx, {
    ...auditActor(actor),
    action: 'decision_binding.update',
    objectType: 'decision_binding',
    objectId: row.id,
    before: snapshot(current),
    after: snapshot(row),
    outcome: 'success',
  });
  return getBinding(tx, row.id);
}

/** What the model receives: exactly the binding's input groups. */
export function bindingInputs(binding: Pick<BindingRow, 'inputs'>, full: DecisionInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const group of binding.inputs) if (full[group] !== undefined) out[group] = full[group];
  return out;
}

export type ApplicationRequest = NonNullable<DecisionInput['application']>;

/** Evaluates a binding on a customer's real inputs (and an application's request); stores nothing. */
export async function evaluateBinding(
  tx: Tx,
  binding: BindingView,
  customerId: string,
  date: string,
  application?: ApplicationRequest,
) {
  const full = await decisionInput(tx, customerId, date);
  if (!full) throw new AppError('NOT_FOUND', 'Customer not found', { field: 'customerId' });
  const inputs = bindingInputs(binding, application ? { ...full, application } : full);
  const evaluation = await evaluateVersion(tx, binding.model_version_id, inputs);
  const mapped = mapOutcome(evaluation.result, binding.mapping);
  return { inputs, evaluation, mapped };
}

export type BindingTest = {
  outcome: MappedOutcome['outcome'];
  limit: number | null;
  rate: number | null;
  result: unknown;
  reasons: Reason[];
  inputs: Record<string, unknown>;
};

/** "Test on a customer": the mapped outcome and the fired rules, nothing stored. */
export async function testBinding(tx: Tx, actor: Actor, bindingId: string, customerId: string): Promise<BindingTest> {
  const binding = await getBinding(tx, bindingId);
  assertUuid(customerId, 'customerId');
  await assertInScope(tx, actor, 'customer', customerId);
  const date = await businessDate(tx, actor.tenantId);
  try {
    const { inputs, evaluation, mapped } = await evaluateBinding(tx, binding, customerId, date);
    return { ...mapped, result: evaluation.result, reasons: reasonsFromTrace(evaluation.trace), inputs };
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('UNPROCESSABLE', `The model failed on this customer: ${(error as Error).message}`, {
      field: 'customerId',
    });
  }
}

type AppForDecision = {
  id: string;
  customer_id: string;
  currency: string;
  principal: bigint | string;
  number_of_repayments: number;
  annual_interest_rate: string;
  product_code: string;
};

function requestOf(app: AppForDecision): ApplicationRequest {
  const digits = currencyDigits(app.currency.trim());
  return {
    amount: Number(BigInt(app.principal)) / 10 ** digits,
    numberOfRepayments: app.number_of_repayments,
    annualInterestRate: Number(app.annual_interest_rate),
    productCode: app.product_code,
  };
}

async function record(
  tx: Tx,
  actor: Actor,
  binding: BindingView,
  app: AppForDecision,
  date: string,
): Promise<DecisionRow> {
  const { inputs, evaluation, mapped } = await evaluateBinding(tx, binding, app.customer_id, date, requestOf(app));
  const currency = app.currency.trim();
  const digits = currencyDigits(currency);
  return recordDecision(tx, actor, {
    point: binding.point,
    subjectType: 'application',
    subjectId: app.id,
    customerId: app.customer_id,
    evaluation,
    inputs,
    outcome: mapped.outcome,
    currency,
    limitAmount: mapped.limit !== null ? decodeMinor(mapped.limit.toFixed(digits), digits) : null,
    annualInterestRate: mapped.rate !== null && mapped.rate < 1000 ? mapped.rate.toFixed(6) : null,
    bindingId: binding.id,
    businessDate: date,
  });
}

async function applicationForDecision(tx: Tx, applicationId: string): Promise<AppForDecision> {
  const [app] = await tx.query<AppForDecision>(
    `select a.id, a.customer_id, a.currency, a.principal, a.number_of_repayments, a.annual_interest_rate::text, p.code as product_code
       from loan_applications a join loan_products p on p.tenant_id = a.tenant_id and p.id = a.product_id
      where a.id = $1`,
    [applicationId],
  );
  if (!app) throw new AppError('NOT_FOUND', 'Loan application not found', { field: 'applicationId' });
  return app;
}

/**
 * Runs the enabled `application_submitted` binding on a just-submitted application, inside the
 * submission's transaction. Returns the decision (null when no binding is enabled or the model
 * failed). `reject` returns 'auto_reject' when the binding says the system rejects.
 */
export async function decideSubmittedApplication(
  tx: Tx,
  actor: Actor,
  applicationId: string,
): Promise<{ decision: DecisionRow | null; autoReject: boolean }> {
  const binding = await enabledBinding(tx, 'application_submitted');
  if (!binding) return { decision: null, autoReject: false };
  const app = await applicationForDecision(tx, applicationId);
  const date = await businessDate(tx, actor.tenantId);
  await tx.query('savepoint application_decision');
  try {
    const decision = await record(tx, actor, binding, app, date);
    await tx.query('release savepoint application_decision');
    return { decision, autoReject: decision.outcome === 'reject' && binding.reject_action === 'auto_reject' };
  } catch (error) {
    await tx.query('rollback to savepoint application_decision');
    const reason = `The decision model failed: ${error instanceof Error ? error.message : String(error)}`.slice(
      0,
      2000,
    );
    await tx.query(`update loan_applications set manual_review_reason = $2 where id = $1`, [app.id, reason]);
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'application.decision_failed',
      objectType: 'loan_application',
      objectId: app.id,
      after: { bindingId: binding.id, versionId: binding.model_version_id, manualReview: true },
      outcome: 'failed',
      reason,
    });
    return { decision: null, autoReject: false };
  }
}

/** The checker's "Run review decision": records a `review` decision on a submitted application. */
export async function runReviewDecision(tx: Tx, actor: Actor, applicationId: string): Promise<DecisionRow> {
  assertUuid(applicationId, 'applicationId');
  await assertInScope(tx, actor, 'application', applicationId);
  const [status] = await tx.query<{ status: string }>(`select status from loan_applications where id = $1 for update`, [
    applicationId,
  ]);
  if (status?.status !== 'submitted')
    throw new AppError('CONFLICT', 'Only a submitted application can be reviewed', { field: 'applicationId' });
  const binding = await enabledBinding(tx, 'review');
  if (!binding)
    throw new AppError('CONFLICT', 'No review binding is enabled in the decision engine', {
      field: 'applicationId',
      details: { code: 'no_binding' },
    });
  const app = await applicationForDecision(tx, applicationId);
  const date = await businessDate(tx, actor.tenantId);
  let decision: DecisionRow;
  try {
    decision = await record(tx, actor, binding, app, date);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('UNPROCESSABLE', `The decision model failed: ${(error as Error).message}`, {
      field: 'applicationId',
    });
  }
  await recordAudit(tx, {
    ...auditActor(actor),
    action: 'application.review_decision',
    objectType: 'loan_application',
    objectId: applicationId,
    after: { decisionId: decision.id, outcome: decision.outcome, modelVersion: decision.model_version },
    outcome: 'success',
  });
  return decision;
}

export type DecisionLogFilter = {
  outcome?: 'approve' | 'refer' | 'reject' | null;
  from?: string | null;
  to?: string | null;
  modelId?: string | null;
  page?: number;
  pageSize?: number;
};
export type DecisionLogRow = {
  id: string;
  created_at: Date;
  point: string;
  application_id: string;
  loan_id: string | null;
  customer_id: string;
  customer_name: string;
  model_id: string;
  model_name: string;
  model_version: number;
  outcome: 'approve' | 'refer' | 'reject';
  currency: string | null;
  limit_amount: string | null;
  forced_reason: string | null;
};

/** Every decision about applications (application_submitted and review), newest first, paged. */
export async function decisionLog(
  tx: Tx,
  filter: DecisionLogFilter,
): Promise<{ rows: DecisionLogRow[]; total: number; page: number; pages: number }> {
  const pageSize = Math.min(Math.max(filter.pageSize ?? 25, 1), 100);
  const date = (v: string | null | undefined) => (v && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : null);
  const modelId = filter.modelId && /^[0-9a-f-]{36}$/i.test(filter.modelId) ? filter.modelId : null;
  const where = `d.subject_type = 'application' and d.point in ('application_submitted', 'review')
      and ($1::text is null or d.outcome = $1) and ($2::date is null or d.business_date >= $2::date)
      and ($3::date is null or d.business_date <= $3::date) and ($4::uuid is null or d.model_id = $4::uuid)`;
  const params = [filter.outcome ?? null, date(filter.from), date(filter.to), modelId];
  const [{ total }] = await tx.query<{ total: number }>(
    `select count(*)::int as total from decisions d where ${where}`,
    params,
  );
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const page = Math.min(Math.max(1, Math.floor(filter.page ?? 1)), pages);
  const rows = await tx.query<DecisionLogRow>(
    `select d.id, d.created_at, d.point, d.subject_id as application_id, a.loan_id, d.customer_id,
            trim(c.first_name || ' ' || c.last_name) as customer_name, d.model_id, m.name as model_name, d.model_version,
            d.outcome, trim(d.currency) as currency, d.limit_amount::text, d.forced_reason
       from decisions d
       join decision_models m on m.tenant_id = d.tenant_id and m.id = d.model_id
       join customers c on c.tenant_id = d.tenant_id and c.id = d.customer_id
       left join loan_applications a on a.tenant_id = d.tenant_id and a.id = d.subject_id
      where ${where}
      order by d.created_at desc, d.id limit $5 offset $6`,
    [...params, pageSize, (page - 1) * pageSize],
  );
  return { rows, total, page, pages };
}
