import { Box, Button, Field, HStack, Input, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import type { Language } from '../../lib/i18n/index.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { IslandProvider } from '../ui/provider.tsx';
import { label, type Labels } from './labels.ts';
import { useCommand } from './use-command.ts';

type Props = {
  language: Language;
  loanId: string;
  currency: string;
  businessDate: string;
  /** Permission held AND allowed by the loan's lifecycle (dry run) now. */
  can: { transfer: boolean; repay: boolean; writeOff: boolean; reverse: boolean };
  /** Which forms to show: every allowed one (loan page) or one (the transfer / repay pages). */
  only?: 'transfer' | 'repay';
  /** Amount proposed for a repayment: the next installment's outstanding. */
  suggestedAmount: string;
  reversible: { id: string; label: string }[];
  /** Where to go after a success (the loan page). */
  loanHref: string;
  labels: Labels;
};

type Answer = { transaction: { amount: string; currency: string } };

function Done({ text }: { text: string }) {
  return <Text role="status" color="fg.success">{text}</Text>;
}

function TransferForm({ props }: { props: Props }) {
  const command = useCommand<Answer>();
  const [date, setDate] = useState(props.businessDate);
  const [done, setDone] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await command.run(`loans/${props.loanId}/disbursements`, { date })) { setDone(true); window.location.assign(props.loanHref); }
  };
  return (
    <Box as="form" onSubmit={submit} aria-label={label(props.labels, 'loan.transferTitle')} borderWidth="1px" borderRadius="md" p="4">
      <Text fontWeight="semibold" mb="2">{label(props.labels, 'loan.transferTitle')}</Text>
      <HStack align="end" gap="3" wrap="wrap">
        <Field.Root maxW="200px" required>
          <Field.Label>{label(props.labels, 'common.date')}</Field.Label>
          <Input type="date" value={date} max={props.businessDate} onChange={(e) => setDate(e.target.value)} />
        </Field.Root>
        <Button type="submit" colorPalette="brand" loading={command.busy}>{label(props.labels, 'loan.actions.transfer')}</Button>
      </HStack>
      {done ? <Done text={label(props.labels, 'loan.transferDone')} /> : null}
      {command.failure ? <ErrorAlert status={command.failure.status} message={command.failure.message} error={command.failure.error} module="LoanActions" /> : null}
    </Box>
  );
}

function RepayForm({ props }: { props: Props }) {
  const command = useCommand<Answer>();
  const [amount, setAmount] = useState(props.suggestedAmount);
  const [date, setDate] = useState(props.businessDate);
  const [invalid, setInvalid] = useState(false);
  const [done, setDone] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const text = amount.trim().replace(',', '.');
    if (!/^\d+(\.\d+)?$/.test(text) || Number(text) <= 0) { setInvalid(true); return; }
    setInvalid(false);
    const answer = await command.run(`loans/${props.loanId}/repayments`, { amount: text, date });
    if (answer) {
      setDone(label(props.labels, 'loan.repayDone', { amount: `${answer.transaction.amount} ${answer.transaction.currency}` }));
      window.location.assign(props.loanHref);
    }
  };
  return (
    <Box asChild borderWidth="1px" borderRadius="md" p="4"><form onSubmit={submit} noValidate aria-label={label(props.labels, 'loan.repayTitle')}>
      <Text fontWeight="semibold" mb="2">{label(props.labels, 'loan.repayTitle')}</Text>
      <HStack align="end" gap="3" wrap="wrap">
        <Field.Root maxW="200px" required invalid={invalid}>
          <Field.Label>{label(props.labels, 'common.amount')} ({props.currency})</Field.Label>
          <Input name="amount" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />
          {invalid ? <Field.ErrorText>{label(props.labels, 'common.required', { field: label(props.labels, 'common.amount') })}</Field.ErrorText> : null}
        </Field.Root>
        <Field.Root maxW="200px" required>
          <Field.Label>{label(props.labels, 'common.date')}</Field.Label>
          <Input type="date" value={date} max={props.businessDate} onChange={(e) => setDate(e.target.value)} />
        </Field.Root>
        <Button type="submit" colorPalette="brand" loading={command.busy}>{label(props.labels, 'loan.actions.repay')}</Button>
      </HStack>
      {done ? <Done text={done} /> : null}
      {command.failure ? <ErrorAlert status={command.failure.status} message={command.failure.message} error={command.failure.error} module="LoanActions" /> : null}
    </form></Box>
  );
}

function ReverseForm({ props }: { props: Props }) {
  const command = useCommand<Answer>();
  const [transactionId, setTransactionId] = useState(props.reversible[0]?.id ?? '');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (transactionId && (await command.run(`loans/${props.loanId}/transactions/${transactionId}/reversals`, {}))) window.location.reload();
  };
  return (
    <Box as="form" onSubmit={submit} borderWidth="1px" borderRadius="md" p="4">
      <HStack align="end" gap="3" wrap="wrap">
        <Field.Root maxW="360px">
          <Field.Label>{label(props.labels, 'loan.reverseConfirm')}</Field.Label>
          <NativeSelect.Root>
            <NativeSelect.Field value={transactionId} onChange={(e) => setTransactionId(e.target.value)}>
              {props.reversible.map((t) => <option key={t.id} value={t.id}>{t.label}</option>)}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Button type="submit" colorPalette="red" variant="outline" loading={command.busy}>{label(props.labels, 'loan.actions.reverse')}</Button>
      </HStack>
      {command.failure ? <ErrorAlert status={command.failure.status} message={command.failure.message} error={command.failure.error} module="LoanActions" /> : null}
    </Box>
  );
}

function WriteOffForm({ props }: { props: Props }) {
  const command = useCommand<Answer>();
  const [isConfirming, setConfirming] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!isConfirming) { setConfirming(true); return; }
    if (await command.run(`loans/${props.loanId}/write-offs`, { date: props.businessDate })) window.location.reload();
  };
  return (
    <Box as="form" onSubmit={submit} borderWidth="1px" borderRadius="md" p="4">
      <HStack gap="3">
        <Button type="submit" colorPalette="red" variant={isConfirming ? 'solid' : 'outline'} loading={command.busy}>
          {isConfirming ? label(props.labels, 'loan.writeOffTitle') : label(props.labels, 'loan.actions.writeOff')}
        </Button>
        {isConfirming ? <Button variant="ghost" onClick={() => setConfirming(false)}>{label(props.labels, 'common.cancel')}</Button> : null}
      </HStack>
      {command.failure ? <ErrorAlert status={command.failure.status} message={command.failure.message} error={command.failure.error} module="LoanActions" /> : null}
    </Box>
  );
}

function Actions(props: Props) {
  const { can, only } = props;
  return (
    <Stack gap="4">
      {can.transfer && (!only || only === 'transfer') ? <TransferForm props={props} /> : null}
      {can.repay && (!only || only === 'repay') ? <RepayForm props={props} /> : null}
      {!only && can.reverse && props.reversible.length ? <ReverseForm props={props} /> : null}
      {!only && can.writeOff ? <WriteOffForm props={props} /> : null}
    </Stack>
  );
}

export default function LoanActions(props: Props) {
  return (
    <IslandProvider language={props.language} module="LoanActions">
      <Actions {...props} />
    </IslandProvider>
  );
}
