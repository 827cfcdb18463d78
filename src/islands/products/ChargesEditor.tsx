import { Box, Button, Field, Heading, HStack, Input, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { label, type Labels } from '../loans/labels.ts';
import type { ReactNode } from 'react';

/**
 * The product form's fees and overdue penalties (issue 17). Fees go into every loan's schedule (due
 * at disbursement or with each installment); overdue penalties are charged by the daily close.
 * Rows are plain strings while edited; `feesBody`/`penaltiesBody` give the API's shape. A penalty's
 * FLAT amount is typed in the currency and stored in minor units, as the close reads it.
 */
export const FEE_TIMINGS = ['DISBURSEMENT', 'INSTALLMENT'] as const;
export const FEE_CALCULATIONS = [
  'FLAT',
  'PERCENT_OF_AMOUNT',
  'PERCENT_OF_AMOUNT_AND_INTEREST',
  'PERCENT_OF_INTEREST',
] as const;
export const PENALTY_KINDS = [
  'FLAT',
  'PERCENT_OF_INSTALLMENT',
  'PERCENT_OF_OVERDUE_PRINCIPAL',
  'PERCENT_OF_OVERDUE_PRINCIPAL_AND_INTEREST',
  'PERCENT_OF_OVERDUE_INTEREST',
] as const;
export const PENALTY_FREQUENCIES = ['DAYS', 'WEEKS', 'MONTHS', 'YEARS'] as const;

export type FeeRow = { code: string; name: string; timing: string; calculation: string; amount: string };
export type PenaltyRow = {
  code: string;
  name: string;
  kind: string;
  /** Money (FLAT) or percentage, as typed. */
  value: string;
  graceDays: string;
  frequency: string;
  interval: string;
};

type Obj = Record<string, unknown>;
const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** Minor units → a decimal string at `digits` ("1500", 2 → "15.00"). */
export function minorToText(minor: string, digits: number): string {
  if (!/^\d+$/.test(minor)) return minor;
  if (digits === 0) return minor;
  const padded = minor.padStart(digits + 1, '0');
  return `${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}

/** A decimal string at most `digits` decimals → minor units; null when it is not one. */
export function textToMinor(value: string, digits: number): string | null {
  const m = /^(\d{1,15})(?:[.,](\d*))?$/.exec(value.trim());
  if (!m || (m[2] ?? '').length > digits) return null;
  return BigInt(m[1] + (m[2] ?? '').padEnd(digits, '0')).toString();
}

export function feeRowsOf(fees: unknown[] | undefined): FeeRow[] {
  return (fees ?? []).map((raw) => {
    const f = (raw ?? {}) as Obj;
    return {
      code: text(f.code),
      name: text(f.name),
      timing: text(f.timing) || 'DISBURSEMENT',
      calculation: text(f.calculation) || 'FLAT',
      amount: text(f.amount),
    };
  });
}

export function penaltyRowsOf(penalties: unknown[] | undefined, digits: number): PenaltyRow[] {
  return (penalties ?? []).map((raw) => {
    const p = (raw ?? {}) as Obj;
    const kind = text(p.kind) || 'FLAT';
    return {
      code: text(p.code),
      name: text(p.name),
      kind,
      value: kind === 'FLAT' ? minorToText(text(p.amount), digits) : text(p.percent),
      graceDays: text(p.graceDays),
      frequency: text(p.frequency),
      interval: text(p.interval),
    };
  });
}

export function feesBody(rows: FeeRow[]): Obj[] {
  return rows.map((r) => ({
    code: r.code.trim(),
    name: r.name.trim(),
    timing: r.timing,
    calculation: r.calculation,
    amount: r.amount.trim().replace(',', '.'),
  }));
}

export function penaltiesBody(rows: PenaltyRow[], digits: number): Obj[] {
  return rows.map((r) => {
    const body: Obj = { code: r.code.trim(), name: r.name.trim(), kind: r.kind, trigger: 'OVERDUE' };
    const value = r.value.trim();
    // An amount that is not money is sent as typed: the API refuses it naming the field.
    if (r.kind === 'FLAT') body.amount = textToMinor(value, digits) ?? value;
    else body.percent = value.replace(',', '.');
    if (r.graceDays.trim() !== '') body.graceDays = Number(r.graceDays.trim());
    if (r.frequency) {
      body.frequency = r.frequency;
      body.interval = r.interval.trim() === '' ? 1 : Number(r.interval.trim());
    }
    return body;
  });
}

/** The fees as the schedule terms' `charges` (what termsFor gives a loan of this product). */
export function feesAsCharges(rows: FeeRow[]): Obj[] {
  return rows
    .filter((r) => r.amount.trim() !== '' && Number(r.amount.replace(',', '.')) > 0)
    .map((r) => ({
      name: r.name || null,
      type: 'FEE',
      timing: r.timing,
      calculation: r.calculation,
      amount: r.amount.trim().replace(',', '.'),
    }));
}

type Props = {
  labels: Labels;
  fees: FeeRow[];
  penalties: PenaltyRow[];
  onFees: (rows: FeeRow[]) => void;
  onPenalties: (rows: PenaltyRow[]) => void;
  /** The field the server refused (e.g. "fees.0.amount") and its message. */
  failure: { field?: string; message: string } | null;
};

export function ChargesEditor({ labels, fees, penalties, onFees, onPenalties, failure }: Props) {
  const l = (key: string) => label(labels, `charges.${key}`);
  const option = (group: string, value: string) => label(labels, `charges.options.${group}.${value}`);

  const input = (id: string, field: string, value: string, onChange: (v: string) => void, numeric = false) => {
    const invalid = failure?.field === field;
    return (
      <Field.Root key={id} invalid={invalid} maxW="220px">
        <Field.Label htmlFor={id}>{l(`fields.${field.split('.').at(-1)}`)}</Field.Label>
        <Input
          id={id}
          inputMode={numeric ? 'decimal' : undefined}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
        {invalid ? <Field.ErrorText>{failure?.message}</Field.ErrorText> : null}
      </Field.Root>
    );
  };
  const select = (
    id: string,
    field: string,
    group: string,
    options: readonly string[],
    value: string,
    onChange: (v: string) => void,
    none = false,
  ) => (
    <Field.Root key={id} invalid={failure?.field === field} maxW="260px">
      <Field.Label htmlFor={id}>{l(`fields.${field.split('.').at(-1)}`)}</Field.Label>
      <NativeSelect.Root>
        <NativeSelect.Field id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          {none ? <option value="">{l('once')}</option> : null}
          {options.map((o) => (
            <option key={o} value={o}>
              {option(group, o)}
            </option>
          ))}
        </NativeSelect.Field>
        <NativeSelect.Indicator />
      </NativeSelect.Root>
      {failure?.field === field ? <Field.ErrorText>{failure?.message}</Field.ErrorText> : null}
    </Field.Root>
  );

  const setFee = (k: number, patch: Partial<FeeRow>) => onFees(fees.map((r, j) => (j === k ? { ...r, ...patch } : r)));
  const setPenalty = (k: number, patch: Partial<PenaltyRow>) =>
    onPenalties(penalties.map((r, j) => (j === k ? { ...r, ...patch } : r)));

  return (
    <Box as="fieldset" borderWidth="1px" borderRadius="md" p="4" data-testid="product-charges">
      <Heading as="h2" size="sm" mb="1">
        {l('title')}
      </Heading>
      <Text fontSize="sm" mb="3">
        {l('intro')}
      </Text>
      <Stack gap="4">
        <RowsSection
          title={l('feesTitle')}
          empty={l('noFees')}
          itemLabel={l('fee')}
          testId="fee"
          count={fees.length}
          removeLabel={l('remove')}
          onRemove={(k) => onFees(fees.filter((_, j) => j !== k))}
          addLabel={l('addFee')}
          onAdd={() =>
            onFees([...fees, { code: '', name: '', timing: 'DISBURSEMENT', calculation: 'FLAT', amount: '' }])
          }
          fields={(k) => {
            const row = fees[k];
            return [
              input(`fee-${k}-code`, `fees.${k}.code`, row.code, (v) => setFee(k, { code: v })),
              input(`fee-${k}-name`, `fees.${k}.name`, row.name, (v) => setFee(k, { name: v })),
              select(`fee-${k}-timing`, `fees.${k}.timing`, 'timing', FEE_TIMINGS, row.timing, (v) =>
                setFee(k, { timing: v }),
              ),
              select(
                `fee-${k}-calculation`,
                `fees.${k}.calculation`,
                'calculation',
                FEE_CALCULATIONS,
                row.calculation,
                (v) => setFee(k, { calculation: v }),
              ),
              input(`fee-${k}-amount`, `fees.${k}.amount`, row.amount, (v) => setFee(k, { amount: v }), true),
            ];
          }}
        />
        <RowsSection
          title={l('penaltiesTitle')}
          empty={l('noPenalties')}
          itemLabel={l('penalty')}
          testId="penalty"
          count={penalties.length}
          removeLabel={l('remove')}
          onRemove={(k) => onPenalties(penalties.filter((_, j) => j !== k))}
          addLabel={l('addPenalty')}
          onAdd={() =>
            onPenalties([
              ...penalties,
              { code: '', name: '', kind: 'FLAT', value: '', graceDays: '0', frequency: '', interval: '' },
            ])
          }
          fields={(k) => {
            const row = penalties[k];
            return [
              input(`penalty-${k}-code`, `penalties.${k}.code`, row.code, (v) => setPenalty(k, { code: v })),
              input(`penalty-${k}-name`, `penalties.${k}.name`, row.name, (v) => setPenalty(k, { name: v })),
              select(`penalty-${k}-kind`, `penalties.${k}.kind`, 'kind', PENALTY_KINDS, row.kind, (v) =>
                setPenalty(k, { kind: v }),
              ),
              input(
                `penalty-${k}-value`,
                row.kind === 'FLAT' ? `penalties.${k}.amount` : `penalties.${k}.percent`,
                row.value,
                (v) => setPenalty(k, { value: v }),
                true,
              ),
              input(
                `penalty-${k}-grace`,
                `penalties.${k}.graceDays`,
                row.graceDays,
                (v) => setPenalty(k, { graceDays: v }),
                true,
              ),
              select(
                `penalty-${k}-frequency`,
                `penalties.${k}.frequency`,
                'frequency',
                PENALTY_FREQUENCIES,
                row.frequency,
                (v) => setPenalty(k, { frequency: v }),
                true,
              ),
              row.frequency
                ? input(
                    `penalty-${k}-interval`,
                    `penalties.${k}.interval`,
                    row.interval,
                    (v) => setPenalty(k, { interval: v }),
                    true,
                  )
                : null,
            ];
          }}
        />
      </Stack>
    </Box>
  );
}

type RowsSectionProps = {
  title: string;
  empty: string;
  /** "Fee", "Penalty": each row is a group named "<itemLabel> <n>". */
  itemLabel: string;
  testId: string;
  count: number;
  fields: (k: number) => ReactNode[];
  removeLabel: string;
  onRemove: (k: number) => void;
  addLabel: string;
  onAdd: () => void;
};

/** One list of charge rows (fees or penalties): each row's fields, its remove button, then "add". */
function RowsSection({
  title,
  empty,
  itemLabel,
  testId,
  count,
  fields,
  removeLabel,
  onRemove,
  addLabel,
  onAdd,
}: RowsSectionProps) {
  return (
    <Box as="section" aria-label={title}>
      <Heading as="h3" size="xs" mb="2">
        {title}
      </Heading>
      {count === 0 ? (
        <Text fontSize="sm" color="fg.muted" mb="2">
          {empty}
        </Text>
      ) : null}
      {Array.from({ length: count }, (_, k) => (
        <HStack
          key={k}
          gap="3"
          align="end"
          wrap="wrap"
          mb="3"
          role="group"
          aria-label={`${itemLabel} ${k + 1}`}
          data-testid={`${testId}-${k}`}
        >
          {fields(k)}
          <Button size="sm" variant="outline" onClick={() => onRemove(k)}>
            {removeLabel}
          </Button>
        </HStack>
      ))}
      <Button size="sm" variant="outline" onClick={onAdd}>
        {addLabel}
      </Button>
    </Box>
  );
}
