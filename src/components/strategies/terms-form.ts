import type { FormValues } from '../pages/form-command.ts';
import { DEFAULT_MAPPING } from '#lib/decisioning/decisions.ts';
import type { StrategyTerms } from '#lib/strategies/terms.ts';

/**
 * The terms editor's plain form ↔ StrategyTerms. The model version select carries
 * "modelId:versionId"; class rows are `class_<i>_<field>`; a row without a class is dropped. Typed
 * decimals may use a comma ("1200,50") or spaces; the command's schema checks the rest.
 */
export const CLASS_ROWS_EXTRA = 2;

export type TermsFormRow = { riskClass: string; maxPrincipal: string; term: string; rate: string; excluded: boolean };
export type TermsFormValues = {
  modelVersion: string;
  productId: string;
  offerValidityDays: string;
  segments: string;
  rows: TermsFormRow[];
};

const decimal = (v: string | undefined) => (v ?? '').replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');

export function termsFormValues(terms: StrategyTerms | null): TermsFormValues {
  const rows: TermsFormRow[] = (terms?.classes ?? []).map((c) => ({
    riskClass: c.riskClass,
    maxPrincipal: c.maxPrincipal,
    term: String(c.numberOfRepayments),
    rate: c.annualInterestRate ?? '',
    excluded: c.excluded,
  }));
  return {
    modelVersion: terms ? `${terms.modelId}:${terms.modelVersionId}` : '',
    productId: terms?.productId ?? '',
    offerValidityDays: String(terms?.offerValidityDays ?? 30),
    segments: (terms?.segments ?? []).join(', '),
    rows: withBlankRows(rows),
  };
}

function withBlankRows(rows: TermsFormRow[]): TermsFormRow[] {
  const blank = (): TermsFormRow => ({ riskClass: '', maxPrincipal: '', term: '', rate: '', excluded: false });
  return [...rows, ...Array.from({ length: CLASS_ROWS_EXTRA }, blank)];
}

/** What was posted, to show again after a refusal. */
export function postedTermsValues(values: FormValues, count: number): TermsFormValues {
  const rows: TermsFormRow[] = [];
  for (let i = 0; i < count; i++) {
    const riskClass = (values[`class_${i}_riskClass`] ?? '').trim();
    if (!riskClass) continue;
    rows.push({
      riskClass,
      maxPrincipal: values[`class_${i}_maxPrincipal`] ?? '',
      term: values[`class_${i}_term`] ?? '',
      rate: values[`class_${i}_rate`] ?? '',
      excluded: values[`class_${i}_excluded`] === 'on',
    });
  }
  return {
    modelVersion: values.modelVersion ?? '',
    productId: values.productId ?? '',
    offerValidityDays: values.offerValidityDays ?? '',
    segments: values.segments ?? '',
    rows: withBlankRows(rows),
  };
}

/** The command's input terms from the posted form (the mapping stays what it was, else the default). */
export function termsFromForm(values: FormValues, count: number, previous: StrategyTerms | null): unknown {
  const posted = postedTermsValues(values, count);
  const [modelId = '', modelVersionId = ''] = posted.modelVersion.split(':');
  const days = Number(posted.offerValidityDays);
  return {
    modelId,
    modelVersionId,
    mapping: previous?.mapping ?? DEFAULT_MAPPING,
    productId: posted.productId,
    offerValidityDays: Number.isFinite(days) ? days : posted.offerValidityDays,
    segments: posted.segments
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    classes: posted.rows
      .filter((r) => r.riskClass)
      .map((r) => ({
        riskClass: r.riskClass,
        maxPrincipal: decimal(r.maxPrincipal),
        numberOfRepayments: Number(r.term) || 0,
        annualInterestRate: decimal(r.rate) || null,
        excluded: r.excluded,
      })),
  };
}
