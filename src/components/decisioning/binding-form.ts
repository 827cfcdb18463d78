import type { FormValues } from '../pages/form-command.ts';
import type { BindingView } from '#lib/decisioning/bindings.ts';
import { DEFAULT_MAPPING } from '#lib/decisioning/decisions.ts';

/** The binding form's values as typed (strings; lists comma-separated), for re-showing after a refusal. */
export type BindingFormValues = {
  name: string;
  point: string;
  /** `modelId:versionId`: one chooser for both (grouped by model). */
  version: string;
  inputs: string[];
  outcomeField: string;
  approve: string;
  refer: string;
  reject: string;
  limitField: string;
  rateField: string;
  rejectAction: string;
  enabled: boolean;
};

const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

export function bindingFormValues(values: FormValues, form: FormData): BindingFormValues {
  return {
    name: values.name ?? '',
    point: values.point ?? '',
    version: values.version ?? '',
    inputs: form.getAll('inputs').map(String),
    outcomeField: values.outcomeField ?? '',
    approve: values.approve ?? '',
    refer: values.refer ?? '',
    reject: values.reject ?? '',
    limitField: values.limitField ?? '',
    rateField: values.rateField ?? '',
    rejectAction: values.rejectAction ?? 'recommend',
    enabled: values.enabled === 'on',
  };
}

/** What the binding commands take from the form (src/lib/decisioning/bindings.ts). */
export function bindingFormInput(v: BindingFormValues) {
  const [modelId = '', versionId = ''] = v.version.split(':');
  return {
    name: v.name,
    point: v.point,
    modelId,
    versionId,
    inputs: v.inputs,
    mapping: {
      outcomeField: v.outcomeField,
      approve: list(v.approve),
      refer: list(v.refer),
      reject: list(v.reject),
      limitField: v.limitField.trim() || null,
      rateField: v.rateField.trim() || null,
    },
    rejectAction: v.rejectAction,
    enabled: v.enabled,
  };
}

export function bindingValuesOf(b: BindingView | null): BindingFormValues {
  const m = b?.mapping ?? DEFAULT_MAPPING;
  return {
    name: b?.name ?? '',
    point: b?.point ?? 'application_submitted',
    version: b ? `${b.model_id}:${b.model_version_id}` : '',
    inputs: b?.inputs ?? ['customer', 'bankStatement', 'bureau', 'exposure', 'application'],
    outcomeField: m.outcomeField,
    approve: m.approve.join(', '),
    refer: m.refer.join(', '),
    reject: m.reject.join(', '),
    limitField: m.limitField ?? '',
    rateField: m.rateField ?? '',
    rejectAction: b?.reject_action ?? 'recommend',
    enabled: b?.enabled ?? false,
  };
}
