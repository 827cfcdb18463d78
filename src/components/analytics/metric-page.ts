import type { AstroGlobal } from 'astro';
import type { TFunction } from 'i18next';
import { resolveDataset, type AggValue, type ValueType } from '#lib/analytics/aggregate.ts';
import { DATASET_NAMES, mayReadDataset } from '#lib/analytics/datasets.ts';
import type { PermissionSubject } from '#lib/auth/permissions.ts';
import {
  checkMetric,
  explainMetric,
  metricDefinitionSchema,
  metricValue,
  saveMetricCommand,
  type MetricType,
} from '#lib/analytics/metrics.ts';
import type { Principal } from '#lib/auth/principal.ts';
import type { pageContext } from '../../layouts/page-context.ts';
import { formErrorOf } from '#lib/errors/messages.ts';
import type { Language } from '#lib/i18n/index.ts';
import { parseScope } from '#lib/tenancy/scope.ts';
import { formCommand } from '../pages/form-command.ts';
import { metricFormValues, metricInput, type MetricFormValues } from './analytics-forms.ts';
import { formatValue } from './report-view.ts';

type Db = Awaited<ReturnType<typeof pageContext>>['db'];

/**
 * The metric form's post, shared by the add and edit pages: "preview" computes the value over the
 * viewer's scope (nothing saved; a bad definition shows its refusal), "save" runs the save command
 * (a stale revision or a taken name answers 409 with the input kept).
 */
export async function metricPost(
  Astro: AstroGlobal,
  ctx: { db: Db; principal: Principal; t: TFunction; language: Language },
  type: MetricType,
  currentName: string | null,
): Promise<
  | { kind: 'redirect'; location: string }
  | {
      kind: 'form';
      values: MetricFormValues;
      error: { field?: string; message: string } | null;
      preview: { values: string[]; explanation: string } | null;
    }
> {
  const form = await Astro.request.formData();
  const values = metricFormValues(form);
  if (form.get('_action') === 'preview') {
    try {
      const preview = await metricPreview(ctx, type, values, Astro.url.searchParams.get('scope'));
      return { kind: 'form', values, error: null, preview };
    } catch (error) {
      const refusal = formErrorOf(error, ctx.language);
      if (!refusal) throw error;
      Astro.response.status = refusal.status;
      return { kind: 'form', values, error: { field: refusal.field, message: refusal.message }, preview: null };
    }
  }
  const outcome = await formCommand(Astro, saveMetricCommand, {
    form,
    objectId: currentName ? `${type}/${currentName}` : null,
    input: () => ({ ...metricInput(type, values), currentName }),
    redirect: (metric) => `/analytics/metrics-config/${metric.type}/${metric.name}?done=saved`,
  });
  if (outcome.kind === 'redirect') return outcome;
  return { kind: 'form', values, error: outcome.error, preview: null };
}

/** A definition's value over the viewer's scope, formatted, with its explanation in words (nothing saved). */
export async function metricPreview(
  ctx: { db: Db; principal: Principal; t: TFunction; language: Language },
  type: MetricType,
  values: MetricFormValues,
  scope: string | null,
): Promise<{ values: string[]; explanation: string }> {
  return ctx.db.tenant(ctx.principal.tenantId, async (tx) => {
    const input = metricInput(type, values);
    const definition = metricDefinitionSchema.parse({
      ...input,
      name: input.name || 'preview',
      labelEn: input.labelEn || '-',
      labelFr: input.labelFr || '-',
    });
    const metric = checkMetric(type, definition);
    const found = await metricValue(tx, ctx.principal, metric, parseScope(scope));
    return {
      values: found.map((v) => metricText(v.value, v.currency, metric.format, ctx.language, found.length > 1)),
      explanation: explainMetric(ctx.t, metric),
    };
  });
}

/** A metric value in its format (money in its currency, percent for ratios), naming the currency when there are several. */
export function metricText(
  value: AggValue,
  currency: string | null,
  format: string,
  language: Language,
  withCurrency: boolean,
): string {
  const type: ValueType = typeof value === 'bigint' ? 'money' : format === 'percent' ? 'ratio' : 'number';
  return (
    formatValue(value, type, currency, language, format === 'percent') +
    (withCurrency && currency ? ` ${currency}` : '')
  );
}

/** The dataset choices of the forms the viewer may read (their lists' permissions), in their language. */
export function datasetChoices(t: TFunction, viewer: PermissionSubject | undefined): { name: string; label: string }[] {
  return DATASET_NAMES.filter((name) => viewer && mayReadDataset(viewer, name)).map((name) => ({
    name,
    label: t(`queries:datasets.${name}`),
  }));
}

/** The definition of the dataset a form names (an unknown one falls back to loans, the form's default). */
export function formDataset(name: string) {
  try {
    return resolveDataset(name);
  } catch {
    return resolveDataset('loans');
  }
}
