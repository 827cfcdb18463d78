import {
  Box,
  Button,
  Field,
  Heading,
  HStack,
  Input,
  NativeSelect,
  Stack,
  Table,
  Text,
  Textarea,
} from '@chakra-ui/react';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import { api, errorMessageOf } from '../lib/api.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { IslandProvider } from '../ui/provider.tsx';
import { label, type Labels } from '../loans/labels.ts';
import {
  ChargesEditor,
  feeRowsOf,
  feesAsCharges,
  feesBody,
  penaltiesBody,
  penaltyRowsOf,
  type FeeRow,
  type PenaltyRow,
} from './ChargesEditor.tsx';

/** One field of the form: its API name, its kind, and for choices their values. */
export type FieldSpec = {
  name: string;
  kind: 'text' | 'textarea' | 'int' | 'money' | 'percent' | 'select' | 'yesno';
  options?: readonly string[];
  optional?: boolean;
  createOnly?: boolean;
};
export type FieldGroup = { title: string; fields: FieldSpec[] };

type Values = Record<string, string>;
type Props = {
  language: Language;
  labels: Labels;
  groups: FieldGroup[];
  initial: Values;
  /** Editing: the product id and the version read (PATCH with expectedVersion); creating otherwise. */
  productId?: string;
  version?: number;
  businessDate: string;
  /** The product's fee and overdue penalty definitions (API shape). */
  initialFees?: unknown[];
  initialPenalties?: unknown[];
};

type Schedule = {
  currency: string;
  installments: {
    number: number;
    dueDate: string;
    principal: string;
    interest: string;
    fees: string;
    penalties: string;
    total: string;
    balance: string;
  }[];
  totals: { principal: string; interest: string; fees: string; penalties: string; total: string };
  disbursement?: { date: string; fees: string; penalties: string; total: string };
};

const nonZero = (amount: string | undefined) => /[1-9]/.test(amount ?? '');

/** The body the API takes: numbers as numbers, yes/no as booleans, empty optional values as null. */
function bodyOf(groups: FieldGroup[], values: Values, editing: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of groups.flatMap((g) => g.fields)) {
    if (editing && field.createOnly) continue;
    const raw = (values[field.name] ?? '').trim();
    if (field.kind === 'yesno') body[field.name] = raw === 'true';
    else if (field.kind === 'int') body[field.name] = raw === '' && field.optional ? null : Number(raw);
    else if (raw === '' && field.optional)
      body[field.name] = field.kind === 'textarea' ? '' : editing ? null : undefined;
    else body[field.name] = field.name === 'description' ? values[field.name] : raw;
  }
  if (body.defaultRepayments === null && !editing) delete body.defaultRepayments;
  return body;
}

/** The schedule engine's terms for the sample loan (the same conventions termsFor gives a loan). */
function termsOf(values: Values, sample: Values, businessDate: string): Record<string, unknown> {
  const n = (name: string) => Number(values[name] || 0);
  const terms: Record<string, unknown> = {
    principal: sample.principal,
    currency: values.currency,
    digitsAfterDecimal: n('digitsAfterDecimal'),
    currencyInMultiplesOf: n('currencyInMultiplesOf'),
    roundingMode: values.roundingMode,
    annualInterestRate: sample.rate,
    numberOfRepayments: Number(sample.term),
    repaymentEvery: n('repaymentEvery') || 1,
    repaymentFrequency: values.repaymentFrequency,
    disbursementDate: businessDate,
    scheduleType: values.scheduleType,
    interestMethod: values.interestMethod,
    amortization: values.amortization,
    interestCalculationPeriod: values.interestCalculationPeriod,
    allowPartialPeriodInterest: values.allowPartialPeriodInterest === 'true',
    daysInYear: values.daysInYear,
    daysInMonth: values.daysInMonth,
    graceOnPrincipalPeriods: n('graceOnPrincipalPeriods'),
    graceOnInterestPaymentPeriods: n('graceOnInterestPaymentPeriods'),
    interestFreePeriods: n('interestFreePeriods'),
  };
  if (n('installmentAmountInMultiplesOf') > 0)
    terms.installmentAmountInMultiplesOf = n('installmentAmountInMultiplesOf');
  if ((values.downPaymentPercent ?? '').trim()) terms.downPaymentPercent = values.downPaymentPercent.trim();
  if ((values.fixedLength ?? '').trim()) terms.fixedLength = Number(values.fixedLength);
  return terms;
}

function Form(props: Props) {
  const { labels, groups } = props;
  const editing = Boolean(props.productId);
  const [values, setValues] = useState<Values>(props.initial);
  const [sample, setSample] = useState<Values>({
    principal: props.initial.defaultPrincipal || props.initial.minPrincipal || '1000',
    term: props.initial.defaultRepayments || props.initial.minRepayments || '12',
    rate: props.initial.annualInterestRate || '10',
  });
  const digits = Number(props.initial.digitsAfterDecimal || 2);
  const [fees, setFees] = useState<FeeRow[]>(() => feeRowsOf(props.initialFees));
  const [penalties, setPenalties] = useState<PenaltyRow[]>(() => penaltyRowsOf(props.initialPenalties, digits));
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ status: number; message: string; field?: string; error: unknown } | null>(
    null,
  );
  const [preview, setPreview] = useState<{ schedule?: Schedule; error?: string; loading: boolean }>({ loading: false });
  const set = (name: string, value: string) => {
    setValues((v) => ({ ...v, [name]: value }));
    if (failure?.field === name) setFailure(null);
  };

  const terms = useMemo(() => {
    const charges = feesAsCharges(fees);
    return { ...termsOf(values, sample, props.businessDate), ...(charges.length > 0 ? { charges } : {}) };
  }, [values, sample, props.businessDate, fees]);
  useEffect(() => {
    let live = true;
    setPreview((p) => ({ ...p, loading: true }));
    const timer = setTimeout(async () => {
      try {
        const schedule = await api.post('schedules/preview', { json: terms }).json<Schedule>();
        if (live) setPreview({ schedule, loading: false });
      } catch (error) {
        const failed = await errorMessageOf(error);
        if (live) setPreview({ error: failed.message, loading: false });
      }
    }, 400);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [terms]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      const body = {
        ...bodyOf(groups, values, editing),
        fees: feesBody(fees),
        penalties: penaltiesBody(penalties, Number(values.digitsAfterDecimal || digits)),
      };
      const answer = editing
        ? await api
            .patch(`products/${props.productId}`, { json: { ...body, expectedVersion: props.version } })
            .json<{ id: string }>()
        : await api.post('products', { json: body }).json<{ id: string }>();
      window.location.assign(`/admin/business/loan-products/${answer.id}?done=${editing ? 'saved' : 'created'}`);
    } catch (error) {
      setFailure({ ...(await errorMessageOf(error)), error });
    } finally {
      setBusy(false);
    }
  };

  const fieldOf = (spec: FieldSpec) => {
    const id = `product-${spec.name}`;
    const invalid = failure?.field === spec.name;
    const value = values[spec.name] ?? '';
    const disabled = editing && spec.createOnly;
    let control;
    if (spec.kind === 'select' || spec.kind === 'yesno') {
      const options = spec.kind === 'yesno' ? ['true', 'false'] : (spec.options ?? []);
      control = (
        <NativeSelect.Root disabled={disabled}>
          <NativeSelect.Field id={id} name={spec.name} value={value} onChange={(e) => set(spec.name, e.target.value)}>
            {spec.optional ? <option value="">{label(labels, 'form.none')}</option> : null}
            {options.map((o) => (
              <option key={o} value={o}>
                {label(labels, `options.${spec.name}.${o}`) === `options.${spec.name}.${o}`
                  ? o
                  : label(labels, `options.${spec.name}.${o}`)}
              </option>
            ))}
          </NativeSelect.Field>
          <NativeSelect.Indicator />
        </NativeSelect.Root>
      );
    } else if (spec.kind === 'textarea') {
      control = (
        <Textarea id={id} name={spec.name} rows={2} value={value} onChange={(e) => set(spec.name, e.target.value)} />
      );
    } else {
      control = (
        <Input
          id={id}
          name={spec.name}
          inputMode={spec.kind === 'text' ? undefined : 'decimal'}
          value={value}
          disabled={disabled}
          onChange={(e) => set(spec.name, e.target.value)}
        />
      );
    }
    return (
      <Field.Root key={spec.name} invalid={invalid} required={!spec.optional}>
        <Field.Label htmlFor={id}>{label(labels, `fields.${spec.name}`)}</Field.Label>
        {control}
        {invalid ? <Field.ErrorText>{failure?.message}</Field.ErrorText> : null}
      </Field.Root>
    );
  };

  const shown = preview.schedule;
  const withFees = nonZero(shown?.totals.fees) || nonZero(shown?.disbursement?.fees);
  const withPenalties = nonZero(shown?.totals.penalties);
  const columns = [
    'number',
    'dueDate',
    'principal',
    'interest',
    ...(withFees ? ['fees'] : []),
    ...(withPenalties ? ['penalties'] : []),
    'total',
    'balance',
  ];
  const chargeField = /^(fees|penalties)\./.test(failure?.field ?? '');

  return (
    <Box asChild>
      <form onSubmit={submit} noValidate aria-label={label(labels, editing ? 'form.editTitle' : 'form.addTitle')}>
        <Stack gap="6">
          {groups.map((group) => (
            <Box key={group.title} as="fieldset" borderWidth="1px" borderRadius="md" p="4">
              <Heading as="h2" size="sm" mb="3">
                {label(labels, `groups.${group.title}`)}
              </Heading>
              <Box display="grid" gridTemplateColumns="repeat(auto-fill, minmax(210px, 1fr))" gap="4">
                {group.fields.map(fieldOf)}
              </Box>
            </Box>
          ))}
          <ChargesEditor
            labels={labels}
            fees={fees}
            penalties={penalties}
            onFees={setFees}
            onPenalties={setPenalties}
            failure={chargeField ? failure : null}
          />
          <Box as="section" borderWidth="1px" borderRadius="md" p="4" aria-labelledby="product-preview-title">
            <Heading as="h2" size="sm" mb="1" id="product-preview-title">
              {label(labels, 'preview.title')}
            </Heading>
            <Text fontSize="sm" mb="3">
              {label(labels, 'preview.intro')}
            </Text>
            <HStack gap="4" mb="3" flexWrap="wrap">
              {(['principal', 'term', 'rate'] as const).map((name) => (
                <Field.Root key={name} maxW="180px">
                  <Field.Label htmlFor={`preview-${name}`}>{label(labels, `preview.${name}`)}</Field.Label>
                  <Input
                    id={`preview-${name}`}
                    inputMode="decimal"
                    value={sample[name]}
                    onChange={(e) => setSample((s) => ({ ...s, [name]: e.target.value }))}
                  />
                </Field.Root>
              ))}
            </HStack>
            {preview.error ? (
              <Text role="alert" color="fg.error" data-testid="preview-error">
                {preview.error}
              </Text>
            ) : preview.schedule ? (
              <Box overflowX="auto" aria-busy={preview.loading}>
                <Table.Root size="sm" data-testid="product-preview">
                  <Table.Header>
                    <Table.Row>
                      {columns.map((c) => (
                        <Table.ColumnHeader key={c}>{label(labels, `preview.${c}`)}</Table.ColumnHeader>
                      ))}
                    </Table.Row>
                  </Table.Header>
                  <Table.Body>
                    {preview.schedule.disbursement ? (
                      <Table.Row data-testid="preview-disbursement">
                        <Table.Cell />
                        <Table.Cell>{preview.schedule.disbursement.date}</Table.Cell>
                        <Table.Cell colSpan={2}>{label(labels, 'preview.atDisbursement')}</Table.Cell>
                        {withFees ? (
                          <Table.Cell textAlign="end">{preview.schedule.disbursement.fees}</Table.Cell>
                        ) : null}
                        {withPenalties ? <Table.Cell /> : null}
                        <Table.Cell textAlign="end">{preview.schedule.disbursement.total}</Table.Cell>
                        <Table.Cell />
                      </Table.Row>
                    ) : null}
                    {preview.schedule.installments.map((i) => (
                      <Table.Row key={i.number}>
                        <Table.Cell>{i.number}</Table.Cell>
                        <Table.Cell>{i.dueDate}</Table.Cell>
                        <Table.Cell textAlign="end">{i.principal}</Table.Cell>
                        <Table.Cell textAlign="end">{i.interest}</Table.Cell>
                        {withFees ? <Table.Cell textAlign="end">{i.fees}</Table.Cell> : null}
                        {withPenalties ? <Table.Cell textAlign="end">{i.penalties}</Table.Cell> : null}
                        <Table.Cell textAlign="end">{i.total}</Table.Cell>
                        <Table.Cell textAlign="end">{i.balance}</Table.Cell>
                      </Table.Row>
                    ))}
                    <Table.Row fontWeight="bold">
                      <Table.Cell colSpan={2}>{label(labels, 'preview.totals')}</Table.Cell>
                      <Table.Cell textAlign="end">{preview.schedule.totals.principal}</Table.Cell>
                      <Table.Cell textAlign="end">{preview.schedule.totals.interest}</Table.Cell>
                      {withFees ? <Table.Cell textAlign="end">{preview.schedule.totals.fees}</Table.Cell> : null}
                      {withPenalties ? (
                        <Table.Cell textAlign="end">{preview.schedule.totals.penalties}</Table.Cell>
                      ) : null}
                      <Table.Cell textAlign="end">{preview.schedule.totals.total}</Table.Cell>
                      <Table.Cell />
                    </Table.Row>
                  </Table.Body>
                </Table.Root>
              </Box>
            ) : (
              <Text>{label(labels, 'preview.loading')}</Text>
            )}
          </Box>
          {failure && !chargeField && !groups.some((g) => g.fields.some((f) => f.name === failure.field)) ? (
            <ErrorAlert status={failure.status} message={failure.message} error={failure.error} module="ProductForm" />
          ) : null}
          {failure && (chargeField || groups.some((g) => g.fields.some((f) => f.name === failure.field))) ? (
            <Text role="alert" color="fg.error">
              {failure.message}
            </Text>
          ) : null}
          <Box>
            <Button type="submit" colorPalette="brand" loading={busy}>
              {label(labels, editing ? 'form.save' : 'form.create')}
            </Button>
          </Box>
        </Stack>
      </form>
    </Box>
  );
}

export default function ProductForm(props: Props) {
  return (
    <IslandProvider language={props.language} module="ProductForm">
      <Form {...props} />
    </IslandProvider>
  );
}
