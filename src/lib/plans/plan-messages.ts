/**
 * The plan refusals (a feature not in the plan, a limit reached) in the reader's language. The domain
 * throws one English AppError with structured details (reason, feature, plan, usage, usage_limit);
 * pages and endpoints say it through here, naming the feature, the plan and the limit.
 */
import type { TFunction } from 'i18next';
import { AppError } from '../errors/app-error.ts';

type PlanDetails = { reason?: unknown; feature?: unknown; plan?: unknown; usage?: unknown; usage_limit?: unknown };

export function featureLabel(t: TFunction, feature: string): string {
  return t(`errors:plan.features.${feature}`, { defaultValue: feature.replaceAll('_', ' ') });
}

/** The sentence for a plan refusal, or null when `details` is not one. */
export function planRefusalText(t: TFunction, details: PlanDetails | undefined): string | null {
  const feature = typeof details?.feature === 'string' ? featureLabel(t, details.feature) : '';
  const plan = typeof details?.plan === 'string' && details.plan ? details.plan : t('errors:plan.currentPlan');
  if (details?.reason === 'not_in_plan') return t('errors:plan.notInPlan', { feature, plan });
  if (details?.reason === 'limit_reached') {
    return t('errors:plan.limitReached', {
      feature,
      plan,
      limit: Number(details.usage_limit ?? 0),
      usage: Number(details.usage ?? 0),
    });
  }
  return null;
}

/** The same refusal with its message in the caller's language (code, status and details kept). */
export function localizePlanError(t: TFunction, error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  const text = planRefusalText(t, error.details);
  return text
    ? new AppError(error.code, text, {
        field: error.field,
        details: error.details,
        internal: error.internal,
        cause: error,
      })
    : error;
}
