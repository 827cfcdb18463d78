import { Box, Button, Field, HStack, Input, NativeSelect, Stack, Table, Text } from '@chakra-ui/react';
import { useMemo, useState, type FormEvent } from 'react';
import {
  reAgeInstallments,
  reAmortizeInstallments,
  RE_AGE_FREQUENCIES,
  type ReAgeFrequency,
  type ReshapeInstallment,
  type ReshapeResult,
} from '#lib/schedule/reage.ts';
import type { ReshapeInfo } from '#lib/lending/commands/reage-loan.ts';
import { label } from './labels.ts';
import { useCommand } from './use-command.ts';
import type { LoanActionsProps as Props } from './LoanActions.tsx';
import { CommandFailure } from './command-failure.tsx';

/**
 * Re-age, re-amortise and their undo on the loan page. The preview runs the same pure engine the
 * server runs (src/lib/schedule/reage.ts) on the loan's installments, so what the form shows is what
 * the command will write; the server still checks every rule (maturity, product, once a day).
 */

/** "234.38" → minor units at `digits` (exact). */
function toMinor(text: string, digits: number): bigint {
  const negative = text.startsWith('-');
  const [whole, frac = ''] = text.replace('-', '').split('.');
  const value = BigInt(whole + frac.padEnd(digits, '0').slice(0, digits));
  return negative ? -value : value;
}
function toText(minor: bigint, digits: number): string {
  const negative = minor < 0n;
  const s = (negative ? -minor : minor).toString().padStart(digits + 1, '0');
  const text = digits ? `${s.slice(0, -digits)}.${s.slice(-digits)}` : s;
  return negative ? `-${text}` : text;
}

function engineInstallments(info: ReshapeInfo): ReshapeInstallment[] {
  const d = info.money.digits;
  return info.installments.map((i) => ({
    number: i.number,
    fromDate: i.fromDate,
    dueDate: i.dueDate,
    isDownPayment: i.isDownPayment,
    isReAged: i.isReAged,
    principal: toMinor(i.principal, d),
    principalPaid: toMinor(i.principalPaid, d),
    interest: 0n,
    interestPaid: 0n,
    fees: 0n,
    feesPaid: 0n,
    penalties: 0n,
    penaltiesPaid: 0n,
  }));
}

function Frame({
  title,
  onSubmit,
  children,
}: {
  title: string;
  onSubmit: (e: FormEvent) => void;
  children: React.ReactNode;
}) {
  return (
    <Box
      as="form"
      onSubmit={onSubmit}
      aria-label={title}
      bg="bg"
      borderWidth="1px"
      borderColor="border"
      borderRadius="l3"
      p="5"
    >
      <Text fontWeight="semibold" mb="2">
        {title}
      </Text>
      <Stack gap="3">{children}</Stack>
    </Box>
  );
}

/** The installments whose principal the change sets, before → after. */
function Preview({ props, result }: { props: Props; result: ReshapeResult }) {
  const info = props.reshape!;
  const d = info.money.digits;
  const before = new Map(info.installments.map((i) => [`${i.number}#${i.dueDate}`, i.principal]));
  const rows = result.installments.filter((i) => {
    const old = before.get(`${i.number}#${i.dueDate}`);
    return old === undefined || toMinor(old, d) !== i.principal;
  });
  const caption = label(props.labels, 'loan.reshape.preview', {
    amount: `${toText(result.principal, d)} ${props.currency}`,
  });
  return (
    <Box>
      <Text role="status" mb="2">
        {caption}
      </Text>
      {rows.length ? (
        <Table.Root size="sm" variant="outline" aria-label={caption}>
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeader>{label(props.labels, 'loan.reshape.dueDate')}</Table.ColumnHeader>
              <Table.ColumnHeader textAlign="end">{label(props.labels, 'loan.reshape.before')}</Table.ColumnHeader>
              <Table.ColumnHeader textAlign="end">{label(props.labels, 'loan.reshape.after')}</Table.ColumnHeader>
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {rows.map((i) => {
              const old = before.get(`${i.number}#${i.dueDate}`);
              return (
                <Table.Row key={`${i.number}-${i.dueDate}`} data-testid="reshape-preview-row">
                  <Table.Cell>{i.dueDate}</Table.Cell>
                  <Table.Cell textAlign="end">{old ?? '—'}</Table.Cell>
                  <Table.Cell textAlign="end">{toText(i.principal, d)}</Table.Cell>
                </Table.Row>
              );
            })}
          </Table.Body>
        </Table.Root>
      ) : (
        <Text color="fg.muted">{label(props.labels, 'loan.reshape.noChange')}</Text>
      )}
    </Box>
  );
}

export function ReAgeForm({ props }: { props: Props }) {
  const info = props.reshape!;
  const command = useCommand();
  const [startDate, setStartDate] = useState(props.businessDate > info.maturity ? props.businessDate : info.maturity);
  const [frequencyType, setFrequencyType] = useState<ReAgeFrequency>('MONTHS');
  const [frequencyNumber, setFrequencyNumber] = useState('1');
  const [numberOfInstallments, setNumberOfInstallments] = useState('6');
  const request = useMemo(
    () => ({
      transactionDate: props.businessDate,
      startDate,
      frequencyType,
      frequencyNumber: Number(frequencyNumber),
      numberOfInstallments: Number(numberOfInstallments),
    }),
    [props.businessDate, startDate, frequencyType, frequencyNumber, numberOfInstallments],
  );
  const preview = useMemo(() => {
    if (request.startDate < info.maturity) return null;
    try {
      return reAgeInstallments(engineInstallments(info), request, info.money);
    } catch {
      return null;
    }
  }, [request, info]);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const body = {
      startDate: request.startDate,
      frequencyType: request.frequencyType,
      frequencyNumber: request.frequencyNumber,
      numberOfInstallments: request.numberOfInstallments,
    };
    if (await command.run(`loans/${props.loanId}/re-ages`, body)) window.location.reload();
  };
  const title = label(props.labels, 'loan.reshape.reAgeTitle');
  return (
    <Frame title={title} onSubmit={submit}>
      <Text color="fg.muted">{label(props.labels, 'loan.reshape.reAgeHint', { maturity: info.maturity })}</Text>
      <HStack align="end" gap="3" wrap="wrap">
        <Field.Root maxW="200px" required invalid={startDate < info.maturity}>
          <Field.Label>{label(props.labels, 'loan.reshape.startDate')}</Field.Label>
          <Input type="date" value={startDate} min={info.maturity} onChange={(e) => setStartDate(e.target.value)} />
          <Field.ErrorText>
            {label(props.labels, 'loan.reshape.startAfterMaturity', { maturity: info.maturity })}
          </Field.ErrorText>
        </Field.Root>
        <Field.Root maxW="120px" required>
          <Field.Label>{label(props.labels, 'loan.reshape.frequencyNumber')}</Field.Label>
          <Input
            type="number"
            min={1}
            max={1200}
            step={1}
            value={frequencyNumber}
            onChange={(e) => setFrequencyNumber(e.target.value)}
          />
        </Field.Root>
        <Field.Root maxW="180px" required>
          <Field.Label>{label(props.labels, 'loan.reshape.frequencyType')}</Field.Label>
          <NativeSelect.Root>
            <NativeSelect.Field
              value={frequencyType}
              onChange={(e) => setFrequencyType(e.target.value as ReAgeFrequency)}
            >
              {RE_AGE_FREQUENCIES.map((f) => (
                <option key={f} value={f}>
                  {label(props.labels, `loan.reshape.frequencies.${f}`)}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Field.Root maxW="180px" required>
          <Field.Label>{label(props.labels, 'loan.reshape.numberOfInstallments')}</Field.Label>
          <Input
            type="number"
            min={1}
            max={1200}
            step={1}
            value={numberOfInstallments}
            onChange={(e) => setNumberOfInstallments(e.target.value)}
          />
        </Field.Root>
      </HStack>
      {preview ? (
        <Preview props={props} result={preview} />
      ) : (
        <Text color="fg.error">{label(props.labels, 'loan.reshape.previewInvalid')}</Text>
      )}
      <HStack>
        <Button type="submit" colorPalette="brand" loading={command.busy} disabled={!preview}>
          {label(props.labels, 'loan.reshape.reAgeSubmit')}
        </Button>
      </HStack>
      <CommandFailure failure={command.failure} module="LoanActions" />
    </Frame>
  );
}

export function ReAmortizeForm({ props }: { props: Props }) {
  const info = props.reshape!;
  const command = useCommand();
  const preview = useMemo(() => {
    try {
      return reAmortizeInstallments(engineInstallments(info), props.businessDate, info.money);
    } catch {
      return null;
    }
  }, [info, props.businessDate]);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await command.run(`loans/${props.loanId}/re-amortizations`, {})) window.location.reload();
  };
  return (
    <Frame title={label(props.labels, 'loan.reshape.reAmortizeTitle')} onSubmit={submit}>
      <Text color="fg.muted">{label(props.labels, 'loan.reshape.reAmortizeHint')}</Text>
      {preview ? (
        <Preview props={props} result={preview} />
      ) : (
        <Text color="fg.error">{label(props.labels, 'loan.reshape.noFuture')}</Text>
      )}
      <HStack>
        <Button type="submit" colorPalette="brand" loading={command.busy} disabled={!preview}>
          {label(props.labels, 'loan.reshape.reAmortizeSubmit')}
        </Button>
      </HStack>
      <CommandFailure failure={command.failure} module="LoanActions" />
    </Frame>
  );
}

export function UndoReshapeForm({ props, kind }: { props: Props; kind: 'reAge' | 'reAmortize' }) {
  const command = useCommand();
  const path = kind === 'reAge' ? 're-ages/undo' : 're-amortizations/undo';
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await command.run(`loans/${props.loanId}/${path}`, {})) window.location.reload();
  };
  const key = kind === 'reAge' ? 'undoReAge' : 'undoReAmortize';
  return (
    <Frame title={label(props.labels, `loan.reshape.${key}Title`)} onSubmit={submit}>
      <Text>{label(props.labels, `loan.reshape.${key}Ask`)}</Text>
      <HStack>
        <Button type="submit" colorPalette="red" loading={command.busy}>
          {label(props.labels, `loan.reshape.${key}Submit`)}
        </Button>
      </HStack>
      <CommandFailure failure={command.failure} module="LoanActions" />
    </Frame>
  );
}
