import { Box, Button, Field, Input, NativeSelect, Stack, Textarea } from '@chakra-ui/react';
import { useState, type FormEvent, type ReactNode } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import { api, errorMessageOf } from '../lib/api.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { IslandProvider } from '../ui/provider.tsx';
import { label, type Labels } from '../loans/labels.ts';
import type { Failure } from '../loans/use-command.ts';
import { currencyDigits } from '#lib/money/money.ts';
import { amountMessage, amountSchema } from '#lib/money/schema.ts';
import { parseDateInput } from '#lib/dates/parse-date.ts';
import { validationMessage } from '#lib/errors/messages.ts';
import { orderedFieldNames, type FormDocument } from '#lib/forms/document.ts';
import { coercePosted } from '#lib/forms/fields.ts';

export type ProductChoice = {
  id: string;
  name: string;
  currency: string;
  minPrincipal: string;
  maxPrincipal: string;
  minRepayments: number;
  maxRepayments: number;
};
type Props = {
  language: Language;
  customerId: string;
  customerBase: string;
  businessDate: string;
  products: ProductChoice[];
  labels: Labels;
  /**
   * The tenant's customized fields of loan applications (issue 13), rendered by the page as plain
   * controls named `cf.<name>` (the children); their values are typed with the same coercePosted
   * the server uses for form posts and sent as `customFields`.
   */
  customDoc?: FormDocument | null;
  /** Rendered by the page (issue 13): the customized fields, then the staff application form's questions (StaffFormFields). */
  children?: ReactNode;
};

/**
 * The application form without an offer (the fields a loan needs now: product, amount, term,
 * expected disbursement date, purpose). Limits come from the product; the server checks them again
 * and names the field it refuses.
 */
function Form(props: Props) {
  const { labels, products } = props;
  const [productId, setProductId] = useState(products[0]?.id ?? '');
  const product = products.find((p) => p.id === productId);
  const [principal, setPrincipal] = useState('');
  const [repayments, setRepayments] = useState('');
  const [date, setDate] = useState(props.businessDate);
  const [purpose, setPurpose] = useState('');
  /** Refused fields with their message (the server's words, checked here first with its parsers). */
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const check = (): Record<string, string> => {
    const found: Record<string, string> = {};
    const language = props.language;
    const digits = product ? currencyDigits(product.currency) : 2;
    const amount = amountSchema(digits, { decimalComma: language === 'fr' }).safeParse(principal);
    if (!amount.success) found.principal = amountMessage(amount, language, 'principal') ?? '';
    if (!repayments.trim()) found.repayments = validationMessage(language, 'required', {}, 'numberOfRepayments');
    else if (!/^[0-9]{1,4}$/.test(repayments.trim()))
      found.repayments = validationMessage(language, 'number.whole', {}, 'numberOfRepayments');
    const day = parseDateInput(date, { min: props.businessDate, minIsBusinessDate: true });
    if (!day.ok)
      found.date = validationMessage(language, day.problem.key, day.problem.params, 'expectedDisbursementDate');
    if (!purpose.trim()) found.purpose = label(labels, 'common.required', { field: label(labels, 'offer.purpose') });
    return found;
  };
  /**
   * Issue 13: the staff application form's answers ('form.' inputs rendered by the page with
   * StaffFormFields, outside the island), as posted text; the server types and checks them.
   */
  const staffFormAnswers = (): { form?: Record<string, string | boolean> } => {
    const box = document.querySelector('[data-testid="staff-form"]');
    if (!box) return {};
    const form: Record<string, string | boolean> = {};
    for (const input of box.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(
      '[name^="form."]',
    )) {
      const name = input.name.slice('form.'.length);
      if (input instanceof HTMLInputElement && (input.type === 'checkbox' || input.type === 'radio')) {
        if (input.checked) form[name] = input.type === 'checkbox' ? true : input.value;
      } else if (input.value.trim()) form[name] = input.value;
    }
    return { form };
  };
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const customFields = customValuesOf(props.customDoc ?? null, event.currentTarget);
    const found = check();
    setErrors(found);
    if (Object.keys(found).length || !product || busy) return;
    setBusy(true);
    setFailure(null);
    try {
      const answer = await api
        .post('applications', {
          json: {
            customerId: props.customerId,
            productId,
            principal: principal.trim().replace(',', '.'),
            numberOfRepayments: Number(repayments),
            expectedDisbursementDate: date,
            formData: { purpose: purpose.trim(), ...staffFormAnswers() },
            ...(customFields ? { customFields } : {}),
          },
        })
        .json<{ loanId: string }>();
      window.location.assign(`${props.customerBase}/processing-loans/${answer.loanId}`);
    } catch (error) {
      const failed = { ...(await errorMessageOf(error)), error };
      const field = { principal: 'principal', numberOfRepayments: 'repayments', expectedDisbursementDate: 'date' }[
        failed.field ?? ''
      ];
      if (field) setErrors({ [field]: failed.message });
      else setFailure(failed);
      setBusy(false);
    }
  };
  const required = (key: string) => (errors[key] ? <Field.ErrorText>{errors[key]}</Field.ErrorText> : null);
  return (
    <Box asChild maxW="560px">
      <form onSubmit={submit} noValidate>
        <Stack gap="4">
          <Field.Root required>
            <Field.Label>{label(labels, 'offer.product')}</Field.Label>
            <NativeSelect.Root>
              <NativeSelect.Field value={productId} onChange={(e) => setProductId(e.target.value)}>
                {products.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name} ({p.currency})
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Field.Root>
          <Field.Root required invalid={Boolean(errors.principal)}>
            <Field.Label>
              {label(labels, 'offer.amountWithin', {
                min: product?.minPrincipal ?? '',
                max: product?.maxPrincipal ?? '',
              })}
            </Field.Label>
            <Input
              name="principal"
              inputMode="decimal"
              value={principal}
              onChange={(e) => setPrincipal(e.target.value)}
            />
            {required('principal')}
          </Field.Root>
          <Field.Root required invalid={Boolean(errors.repayments)}>
            <Field.Label>
              {label(labels, 'offer.repaymentsWithin', {
                min: product?.minRepayments ?? '',
                max: product?.maxRepayments ?? '',
              })}
            </Field.Label>
            <Input
              name="numberOfRepayments"
              inputMode="numeric"
              value={repayments}
              onChange={(e) => setRepayments(e.target.value)}
            />
            {required('repayments')}
          </Field.Root>
          <Field.Root required invalid={Boolean(errors.date)}>
            <Field.Label>{label(labels, 'offer.expectedDisbursementDate')}</Field.Label>
            <Input
              type="date"
              name="expectedDisbursementDate"
              min={props.businessDate}
              value={date}
              onChange={(e) => setDate(e.target.value)}
            />
            {required('date')}
          </Field.Root>
          <Field.Root required invalid={Boolean(errors.purpose)}>
            <Field.Label>{label(labels, 'offer.purpose')}</Field.Label>
            <Textarea rows={3} maxLength={500} value={purpose} onChange={(e) => setPurpose(e.target.value)} />
            {required('purpose')}
          </Field.Root>
          {props.children}
          {failure ? (
            <ErrorAlert
              status={failure.status}
              message={failure.message}
              error={failure.error}
              module="NewApplicationForm"
            />
          ) : null}
          <Box>
            <Button type="submit" colorPalette="brand" loading={busy}>
              {label(labels, 'offer.submitRequest')}
            </Button>
          </Box>
        </Stack>
      </form>
    </Box>
  );
}

/** The customized fields of the form, typed as the schema wants (null when the tenant has none). */
function customValuesOf(doc: FormDocument | null, form: HTMLFormElement): Record<string, unknown> | null {
  if (!doc) return null;
  const posted: Record<string, string> = {};
  for (const [key, value] of new FormData(form).entries())
    if (key.startsWith('cf.') && typeof value === 'string') posted[key.slice(3)] = value;
  return coercePosted(doc, posted, orderedFieldNames(doc));
}

export default function NewApplicationForm(props: Props) {
  return (
    <IslandProvider language={props.language} module="NewApplicationForm">
      <Form {...props} />
    </IslandProvider>
  );
}
