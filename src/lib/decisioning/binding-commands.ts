import { z } from 'zod';
import { ADMIN, need } from '../auth/permissions.ts';
import { defineCommand } from '../http/command.ts';
import {
  createBinding,
  createBindingInput,
  runReviewDecision,
  testBinding,
  updateBinding,
  updateBindingInput,
  type BindingView,
} from './bindings.ts';
import type { DecisionRow } from './decisions.ts';
import { fromMinor, toDecimalString } from '../money/money.ts';

/** The decision-engine writes as commands: /v1/decision-bindings and the admin pages' forms run the same ones. */
export const createBindingCommand = defineCommand({
  action: 'decision_binding.create',
  objectType: 'decision_binding',
  permission: ADMIN,
  input: createBindingInput,
  run: (tx, actor, input) => createBinding(tx, actor, input),
});

export const updateBindingCommand = defineCommand({
  action: 'decision_binding.update',
  objectType: 'decision_binding',
  permission: ADMIN,
  input: updateBindingInput,
  run: (tx, actor, input) => updateBinding(tx, actor, input),
});

/** Evaluates without storing; a read in effect, but it runs the model on a customer's data, so only admins. */
export const testBindingCommand = defineCommand({
  action: 'decision_binding.test',
  objectType: 'decision_binding',
  permission: ADMIN,
  input: z.object({ bindingId: z.string().max(64), customerId: z.string().trim().max(64) }).strict(),
  run: (tx, actor, input) => testBinding(tx, actor, input.bindingId, input.customerId),
});

/** The checker's "Run review decision": whoever may approve loans. */
export const reviewDecisionCommand = defineCommand({
  action: 'application.review_decision',
  objectType: 'loan_application',
  permission: need('loans.offers.approve_loan'),
  input: z.object({ applicationId: z.string().max(64) }).strict(),
  run: (tx, actor, input) => runReviewDecision(tx, actor, input.applicationId),
});

export function bindingJson(b: BindingView) {
  return {
    id: b.id,
    name: b.name,
    point: b.point,
    modelId: b.model_id,
    modelName: b.model_name,
    versionId: b.model_version_id,
    version: b.model_version,
    inputs: b.inputs,
    mapping: b.mapping,
    rejectAction: b.reject_action,
    enabled: b.enabled,
    createdBy: b.created_by,
    createdAt: b.created_at,
    updatedAt: b.updated_at,
  };
}

export function decisionJson(d: DecisionRow & { model_name?: string }) {
  return {
    id: d.id,
    point: d.point,
    subjectType: d.subject_type,
    subjectId: d.subject_id,
    customerId: d.customer_id,
    modelId: d.model_id,
    modelName: d.model_name ?? null,
    modelVersionId: d.model_version_id,
    modelVersion: d.model_version,
    bindingId: d.binding_id,
    strategyId: d.strategy_id,
    strategyVersion: d.strategy_version,
    outcome: d.outcome,
    currency: d.currency ? d.currency.trim() : null,
    /** Decimal string in the decision's currency. */
    limitAmount:
      d.limit_amount === null || !d.currency
        ? null
        : toDecimalString(fromMinor(BigInt(d.limit_amount), d.currency.trim())),
    annualInterestRate: d.annual_interest_rate,
    reasons: d.reasons,
    inputs: d.inputs,
    output: d.output,
    trace: d.trace,
    forcedBy: d.forced_by,
    forcedReason: d.forced_reason,
    businessDate: d.business_date,
    createdBy: d.created_by,
    createdAt: d.created_at,
  };
}
