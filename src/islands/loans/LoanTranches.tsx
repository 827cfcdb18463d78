import { Box, Button, Field, HStack, Input, Stack, Table, Text } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import { IslandProvider } from '../ui/provider.tsx';
import { label, type Labels } from './labels.ts';
import { useCommand } from './use-command.ts';
import { CommandFailure } from './command-failure.tsx';

type Tranche = { number: number; expectedDate: string; amount: string; disbursedOn: string | null };

export type LoanTranchesProps = {
  language: Language;
  loanId: string;
  currency: string;
  businessDate: string;
  status: string;
  principal: string;
  maxTranches: number;
  tranches: Tranche[];
  /** The viewer may transfer funds (set tranches before disbursement, pay out the next one after). */
  canTransfer: boolean;
  loanHref: string;
  labels: Labels;
};

/**
 * A multi-disbursement loan's tranches: the expected ones with their status, the form that records
 * them before the loan is disbursed, and "disburse next tranche" on an active loan.
 */
function Tranches(props: LoanTranchesProps) {
  const l = (key: string, vars: Record<string, string | number> = {}) =>
    label(props.labels, `loan.tranches.${key}`, vars);
  const editable =
    props.canTransfer && (props.status === 'APPROVED' || props.status === 'SUBMITTED_AND_PENDING_APPROVAL');
  const next = props.tranches.find((t) => t.disbursedOn === null);
  const canDisburse = props.canTransfer && props.status === 'ACTIVE' && next !== undefined;
  return (
    <Stack gap="4" as="section" aria-labelledby="loan-tranches-title">
      <Text as="h2" id="loan-tranches-title" fontWeight="semibold" fontSize="lg">
        {l('title')}
      </Text>
      {props.tranches.length === 0 ? (
        <Text color="fg.muted">{l('empty', { max: props.maxTranches })}</Text>
      ) : (
        <Table.Root size="sm" data-testid="loan-tranches">
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeader>#</Table.ColumnHeader>
              <Table.ColumnHeader>{l('expectedDate')}</Table.ColumnHeader>
              <Table.ColumnHeader textAlign="end">{l('amount')}</Table.ColumnHeader>
              <Table.ColumnHeader>{l('status')}</Table.ColumnHeader>
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {props.tranches.map((t) => (
              <Table.Row key={t.number}>
                <Table.Cell>{t.number}</Table.Cell>
                <Table.Cell>{t.expectedDate}</Table.Cell>
                <Table.Cell textAlign="end">
                  {t.amount} {props.currency}
                </Table.Cell>
                <Table.Cell>{t.disbursedOn ? l('disbursedOn', { date: t.disbursedOn }) : l('expected')}</Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      )}
      {editable ? <TranchesForm {...props} /> : null}
      {canDisburse && next ? <DisburseNext {...props} next={next} /> : null}
    </Stack>
  );
}

type Row = { date: string; amount: string };

function TranchesForm(props: LoanTranchesProps) {
  const l = (key: string, vars: Record<string, string | number> = {}) =>
    label(props.labels, `loan.tranches.${key}`, vars);
  const command = useCommand<unknown>();
  const [rows, setRows] = useState<Row[]>(
    props.tranches.length
      ? props.tranches.map((t) => ({ date: t.expectedDate, amount: t.amount }))
      : [{ date: props.businessDate, amount: props.principal }],
  );
  const [done, setDone] = useState(false);
  const set = (i: number, patch: Partial<Row>) =>
    setRows((r) => r.map((row, k) => (k === i ? { ...row, ...patch } : row)));
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(false);
    if (await command.run(`loans/${props.loanId}/tranches`, { tranches: rows })) {
      setDone(true);
      window.location.assign(props.loanHref);
    }
  };
  return (
    <Box
      as="form"
      onSubmit={submit}
      aria-label={l('setTitle')}
      borderWidth="1px"
      borderColor="border"
      borderRadius="l3"
      p="5"
    >
      <Text fontWeight="semibold" mb="1">
        {l('setTitle')}
      </Text>
      <Text color="fg.muted" mb="3">
        {l('setHelp', { principal: `${props.principal} ${props.currency}`, max: props.maxTranches })}
      </Text>
      <Stack gap="2">
        {rows.map((row, i) => (
          <HStack key={i} align="end" gap="3" wrap="wrap">
            <Field.Root maxW="200px" required>
              <Field.Label>{l('dateOf', { n: i + 1 })}</Field.Label>
              <Input type="date" value={row.date} onChange={(e) => set(i, { date: e.target.value })} />
            </Field.Root>
            <Field.Root maxW="200px" required>
              <Field.Label>{l('amountOf', { n: i + 1 })}</Field.Label>
              <Input inputMode="decimal" value={row.amount} onChange={(e) => set(i, { amount: e.target.value })} />
            </Field.Root>
            {rows.length > 1 ? (
              <Button variant="ghost" onClick={() => setRows((r) => r.filter((_, k) => k !== i))}>
                {l('remove', { n: i + 1 })}
              </Button>
            ) : null}
          </HStack>
        ))}
      </Stack>
      <HStack gap="3" mt="3">
        <Button
          variant="outline"
          disabled={rows.length >= props.maxTranches}
          onClick={() => setRows((r) => [...r, { date: r[r.length - 1]?.date ?? props.businessDate, amount: '' }])}
        >
          {l('add')}
        </Button>
        <Button type="submit" colorPalette="brand" loading={command.busy}>
          {l('save')}
        </Button>
      </HStack>
      {done ? (
        <Text role="status" color="fg.success">
          {l('saved')}
        </Text>
      ) : null}
      <CommandFailure failure={command.failure} module="LoanTranches" />
    </Box>
  );
}

function DisburseNext(props: LoanTranchesProps & { next: Tranche }) {
  const l = (key: string, vars: Record<string, string | number> = {}) =>
    label(props.labels, `loan.tranches.${key}`, vars);
  const command = useCommand<unknown>();
  const [date, setDate] = useState(props.businessDate);
  const [done, setDone] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await command.run(`loans/${props.loanId}/tranche-disbursements`, { date })) {
      setDone(true);
      window.location.assign(props.loanHref);
    }
  };
  return (
    <Box
      as="form"
      onSubmit={submit}
      aria-label={l('disburseTitle')}
      borderWidth="1px"
      borderColor="border"
      borderRadius="l3"
      p="5"
    >
      <Text fontWeight="semibold" mb="1">
        {l('disburseTitle')}
      </Text>
      <Text color="fg.muted" mb="3">
        {l('disburseHelp', {
          n: props.next.number,
          amount: `${props.next.amount} ${props.currency}`,
          date: props.next.expectedDate,
        })}
      </Text>
      <HStack align="end" gap="3" wrap="wrap">
        <Field.Root maxW="200px" required>
          <Field.Label>{l('disbursementDate')}</Field.Label>
          <Input type="date" value={date} max={props.businessDate} onChange={(e) => setDate(e.target.value)} />
        </Field.Root>
        <Button type="submit" colorPalette="brand" loading={command.busy}>
          {l('disburse', { n: props.next.number })}
        </Button>
      </HStack>
      {done ? (
        <Text role="status" color="fg.success">
          {l('disbursed')}
        </Text>
      ) : null}
      <CommandFailure failure={command.failure} module="LoanTranches" />
    </Box>
  );
}

export default function LoanTranches(props: LoanTranchesProps) {
  return (
    <IslandProvider language={props.language} module="LoanTranches">
      <Tranches {...props} />
    </IslandProvider>
  );
}
