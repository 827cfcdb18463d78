import { Box, Button, Field, HStack, Input, NativeSelect, Stack, Table, Text } from '@chakra-ui/react';
import { useEffect, useState, type FormEvent } from 'react';
import { api, errorMessageOf } from '../lib/api.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { label } from './labels.ts';
import type { LoanActionsProps as Props } from './LoanActions.tsx';

/**
 * "Edit installments" on an approved loan, before the funds are transferred (Fineract's variable
 * installments and a loan's own installment amount): the user moves a due date, changes an
 * installment's amount, inserts or deletes an installment, or sets the loan's installment amount,
 * previews the schedule the engine makes of it, and saves. Disbursement then uses the saved edits.
 * POST /v1/loans/{id}/installment-variations (preview: true answers the schedule without storing).
 */

type Kind = 'DUE_DATE' | 'AMOUNT' | 'INSERT' | 'DELETE';
type Edit = { type: Kind; dueDate: string; newDueDate: string; amount: string };
type Schedule = {
  installments: {
    number: number;
    dueDate: string;
    principal: string;
    interest: string;
    total: string;
    balance: string;
  }[];
  totals: { principal: string; interest: string; total: string };
};
type Answer = { schedule: Schedule; variations: Record<string, unknown>[]; fixedEmiAmount: string | null };
type Failure = { status: number; message: string; error: unknown };

const KINDS: Kind[] = ['DUE_DATE', 'AMOUNT', 'INSERT', 'DELETE'];

function editOf(v: Record<string, unknown>): Edit {
  return {
    type: (v.type as Kind) ?? 'AMOUNT',
    dueDate: String(v.dueDate ?? ''),
    newDueDate: String(v.newDueDate ?? ''),
    amount: String(v.amount ?? ''),
  };
}

function bodyOf(edits: Edit[], fixedEmi: string, preview: boolean) {
  return {
    variations: edits.map((e) => {
      const v: Record<string, string> = { type: e.type, dueDate: e.dueDate };
      if (e.type === 'DUE_DATE') v.newDueDate = e.newDueDate;
      if (e.type !== 'DELETE' && e.amount.trim()) v.amount = e.amount.trim();
      return v;
    }),
    ...(fixedEmi.trim() ? { fixedEmiAmount: fixedEmi.trim() } : {}),
    preview,
  };
}

export function VaryForm({ props }: { props: Props }) {
  const options = props.installments;
  const say = (key: string, vars?: Record<string, string | number>) => label(props.labels, `loan.vary.${key}`, vars);
  const [edits, setEdits] = useState<Edit[]>(() => (options?.variations ?? []).map(editOf));
  const [fixedEmi, setFixedEmi] = useState(options?.fixedEmiAmount ?? '');
  const [schedule, setSchedule] = useState<Schedule | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [saved, setSaved] = useState(false);

  const send = async (preview: boolean) => {
    setBusy(true);
    setFailure(null);
    setSaved(false);
    try {
      const answer = await api
        .post(`loans/${props.loanId}/installment-variations`, { json: bodyOf(edits, fixedEmi, preview) })
        .json<Answer>();
      setSchedule(answer.schedule);
      if (!preview) setSaved(true);
    } catch (error) {
      setFailure({ ...(await errorMessageOf(error)), error });
    } finally {
      setBusy(false);
    }
  };
  // The schedule with the saved edits, when the form opens (once).
  const [opened, setOpened] = useState(false);
  useEffect(() => {
    if (opened) return;
    setOpened(true);
    void send(true);
  }, [opened, send]);

  const change = (k: number, patch: Partial<Edit>) =>
    setEdits((list) => list.map((e, i) => (i === k ? { ...e, ...patch } : e)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void send(false);
  };

  return (
    <Box
      as="form"
      onSubmit={submit}
      aria-label={label(props.labels, 'loan.actions.vary')}
      bg="bg"
      borderWidth="1px"
      borderColor="border"
      borderRadius="l3"
      p="5"
    >
      <Stack gap="4">
        <Text fontWeight="semibold">{label(props.labels, 'loan.actions.vary')}</Text>
        <Text color="fg.muted">{say('intro')}</Text>
        {options?.fixedEmi ? (
          <Field.Root maxW="260px">
            <Field.Label>{say('fixedEmi')}</Field.Label>
            <Input inputMode="decimal" value={fixedEmi} onChange={(e) => setFixedEmi(e.target.value)} />
            <Field.HelperText>{say('fixedEmiHelp')}</Field.HelperText>
          </Field.Root>
        ) : null}
        {options?.variable ? (
          <Stack gap="3">
            {edits.length === 0 ? <Text color="fg.muted">{say('none')}</Text> : null}
            {edits.map((e, k) => (
              <HStack key={k} align="end" gap="3" wrap="wrap" role="group" aria-label={say('row', { n: k + 1 })}>
                <Field.Root maxW="220px">
                  <Field.Label>{say('type')}</Field.Label>
                  <NativeSelect.Root>
                    <NativeSelect.Field value={e.type} onChange={(ev) => change(k, { type: ev.target.value as Kind })}>
                      {KINDS.map((kind) => (
                        <option key={kind} value={kind}>
                          {say(`kinds.${kind}`)}
                        </option>
                      ))}
                    </NativeSelect.Field>
                    <NativeSelect.Indicator />
                  </NativeSelect.Root>
                </Field.Root>
                <Field.Root maxW="180px" required>
                  <Field.Label>{e.type === 'INSERT' ? say('newInstallmentDate') : say('dueDate')}</Field.Label>
                  <Input type="date" value={e.dueDate} onChange={(ev) => change(k, { dueDate: ev.target.value })} />
                </Field.Root>
                {e.type === 'DUE_DATE' ? (
                  <Field.Root maxW="180px" required>
                    <Field.Label>{say('newDueDate')}</Field.Label>
                    <Input
                      type="date"
                      value={e.newDueDate}
                      onChange={(ev) => change(k, { newDueDate: ev.target.value })}
                    />
                  </Field.Root>
                ) : null}
                {e.type !== 'DELETE' ? (
                  <Field.Root maxW="180px" required={e.type === 'AMOUNT'}>
                    <Field.Label>{say('amount')}</Field.Label>
                    <Input
                      inputMode="decimal"
                      value={e.amount}
                      onChange={(ev) => change(k, { amount: ev.target.value })}
                    />
                  </Field.Root>
                ) : null}
                <Button variant="ghost" onClick={() => setEdits((list) => list.filter((_, i) => i !== k))}>
                  {say('remove')}
                </Button>
              </HStack>
            ))}
            <HStack>
              <Button
                variant="outline"
                onClick={() =>
                  setEdits((list) => [
                    ...list,
                    { type: 'AMOUNT', dueDate: schedule?.installments[0]?.dueDate ?? '', newDueDate: '', amount: '' },
                  ])
                }
              >
                {say('add')}
              </Button>
            </HStack>
          </Stack>
        ) : null}
        <HStack gap="2">
          <Button variant="outline" loading={busy} onClick={() => void send(true)}>
            {say('preview')}
          </Button>
          <Button type="submit" colorPalette="brand" loading={busy}>
            {say('save')}
          </Button>
        </HStack>
        {saved ? (
          <Text role="status" color="fg.success">
            {say('saved')}
          </Text>
        ) : null}
        {failure ? (
          <ErrorAlert status={failure.status} message={failure.message} error={failure.error} module="LoanActions" />
        ) : null}
        {schedule ? (
          <Table.Root size="sm" aria-label={say('scheduleTitle')}>
            <Table.Caption>{say('scheduleTitle')}</Table.Caption>
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeader>#</Table.ColumnHeader>
                <Table.ColumnHeader>{say('dueDate')}</Table.ColumnHeader>
                <Table.ColumnHeader textAlign="end">{say('principal')}</Table.ColumnHeader>
                <Table.ColumnHeader textAlign="end">{say('interest')}</Table.ColumnHeader>
                <Table.ColumnHeader textAlign="end">{say('total')}</Table.ColumnHeader>
                <Table.ColumnHeader textAlign="end">{say('balance')}</Table.ColumnHeader>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {schedule.installments.map((i) => (
                <Table.Row key={i.number} data-testid="vary-row">
                  <Table.Cell>{i.number}</Table.Cell>
                  <Table.Cell>{i.dueDate}</Table.Cell>
                  <Table.Cell textAlign="end">{i.principal}</Table.Cell>
                  <Table.Cell textAlign="end">{i.interest}</Table.Cell>
                  <Table.Cell textAlign="end">{i.total}</Table.Cell>
                  <Table.Cell textAlign="end">{i.balance}</Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        ) : null}
      </Stack>
    </Box>
  );
}
