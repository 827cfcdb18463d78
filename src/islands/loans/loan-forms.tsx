import { Box, Button, Field, HStack, Input, NativeSelect, Text } from '@chakra-ui/react';
import { useEffect, useState, type FormEvent } from 'react';
import { label } from './labels.ts';
import { useCommand } from './use-command.ts';
import type { LoanActionsProps as Props } from './LoanActions.tsx';
import { CommandFailure } from './command-failure.tsx';

/**
 * The loan's action forms: transfer the funds, record a repayment, reverse a transaction, write off.
 * LoanActions loads this module when the user opens one of them (or at once on the pages that are
 * one form, /repay and /transfer): the forms, their fields and their checks weigh more than the rest
 * of the island, and most visits to a loan page only read it.
 */

type Answer = { transaction: { amount: string; currency: string } };

/**
 * False until the form has hydrated. The /repay and /transfer pages render their form on the server,
 * and the form's code arrives after the page: an amount typed into the server's field before then would
 * be replaced by the suggested amount when the form takes over, and a quick click would record the
 * suggested amount instead of the typed one. So the fields and the button stay disabled until the
 * form is live (a fraction of a second on a fast machine, longer on a slow one).
 */
function useLive(): boolean {
  const [live, setLive] = useState(false);
  useEffect(() => setLive(true), []);
  return live;
}

function Done({ text }: { text: string }) {
  return (
    <Text role="status" color="fg.success">
      {text}
    </Text>
  );
}

export function TransferForm({ props }: { props: Props }) {
  const command = useCommand<Answer>();
  const [date, setDate] = useState(props.businessDate);
  const [done, setDone] = useState(false);
  const live = useLive();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await command.run(`loans/${props.loanId}/disbursements`, { date })) {
      setDone(true);
      window.location.assign(props.loanHref);
    }
  };
  return (
    <Box
      as="form"
      onSubmit={submit}
      aria-label={label(props.labels, 'loan.transferTitle')}
      bg="bg"
      borderWidth="1px"
      borderColor="border"
      borderRadius="l3"
      p="5"
    >
      <Text fontWeight="semibold" mb="2">
        {label(props.labels, 'loan.transferTitle')}
      </Text>
      <HStack align="end" gap="3" wrap="wrap">
        <Field.Root maxW="200px" required>
          <Field.Label>{label(props.labels, 'common.date')}</Field.Label>
          <Input
            type="date"
            value={date}
            max={props.businessDate}
            disabled={!live}
            onChange={(e) => setDate(e.target.value)}
          />
        </Field.Root>
        <Button type="submit" colorPalette="brand" loading={command.busy} disabled={!live}>
          {label(props.labels, 'loan.actions.transfer')}
        </Button>
      </HStack>
      {done ? <Done text={label(props.labels, 'loan.transferDone')} /> : null}
      <CommandFailure failure={command.failure} module="LoanActions" />
    </Box>
  );
}

/** The repayment checks load on first use (repayment-checks.ts says why); null if they cannot be loaded. */
async function loadChecks(): Promise<typeof import('./repayment-checks.ts') | null> {
  try {
    return await import('./repayment-checks.ts');
  } catch {
    // Without the checks the server still refuses a bad amount or date, with the same words.
    return null;
  }
}

export function RepayForm({ props }: { props: Props }) {
  const command = useCommand<Answer>();
  const [amount, setAmount] = useState(props.suggestedAmount);
  const live = useLive();
  const [date, setDate] = useState(props.businessDate);
  const [invalid, setInvalid] = useState<{ field: string; message: string } | null>(null);
  /** A repayment above what is owed, waiting for the user's confirmation (product allows overpayment). */
  const [overpayment, setOverpayment] = useState<{ text: string; message: string; credit: string } | null>(null);
  const [done, setDone] = useState('');
  const send = async (text: string, isConfirmed: boolean) => {
    const answer = await command.run(`loans/${props.loanId}/repayments`, {
      amount: text,
      date,
      ...(isConfirmed ? { confirmOverpayment: true } : {}),
    });
    if (answer) {
      setOverpayment(null);
      setDone(
        label(props.labels, 'loan.repayDone', {
          amount: `${answer.transaction.amount} ${answer.transaction.currency}`,
        }),
      );
      window.location.assign(props.loanHref);
      return;
    }
    const failure = command.lastFailure.current;
    if (failure?.details?.reason === 'overpayment_unconfirmed') {
      command.clear();
      const credit = String(failure.details.creditBalance ?? '');
      const checks = await loadChecks();
      setOverpayment({
        text,
        message: failure.message,
        credit: checks ? checks.readableCredit(credit, props.language) : credit,
      });
    } else if (failure?.field === 'amount' || failure?.field === 'date') {
      command.clear();
      setInvalid({ field: failure.field, message: failure.message });
    }
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setOverpayment(null);
    const checks = await loadChecks();
    const checked = checks ? checks.checkRepayment(props, amount, date) : { text: amount.trim() };
    if ('field' in checked) {
      setInvalid(checked);
      return;
    }
    setInvalid(null);
    await send(checked.text, false);
  };
  const errorOf = (field: string) =>
    invalid?.field === field ? <Field.ErrorText>{invalid.message}</Field.ErrorText> : null;
  return (
    <Box asChild bg="bg" borderWidth="1px" borderColor="border" borderRadius="l3" p="5">
      <form onSubmit={submit} noValidate aria-label={label(props.labels, 'loan.repayTitle')}>
        <Text fontWeight="semibold" mb="2">
          {label(props.labels, 'loan.repayTitle')}
        </Text>
        <HStack align="end" gap="3" wrap="wrap">
          <Field.Root maxW="260px" required invalid={invalid?.field === 'amount'}>
            <Field.Label>
              {label(props.labels, 'common.amount')} ({props.currency})
            </Field.Label>
            <Input
              name="amount"
              inputMode="decimal"
              value={amount}
              disabled={!live}
              onChange={(e) => {
                setAmount(e.target.value);
                setOverpayment(null);
              }}
            />
            {errorOf('amount')}
          </Field.Root>
          <Field.Root maxW="260px" required invalid={invalid?.field === 'date'}>
            <Field.Label>{label(props.labels, 'common.date')}</Field.Label>
            <Input
              type="date"
              name="date"
              value={date}
              max={props.businessDate}
              disabled={!live}
              onChange={(e) => setDate(e.target.value)}
            />
            {errorOf('date')}
          </Field.Root>
          <Button type="submit" colorPalette="brand" loading={command.busy && !overpayment} disabled={!live}>
            {label(props.labels, 'loan.actions.repay')}
          </Button>
        </HStack>
        {overpayment ? (
          <Box
            role="alertdialog"
            aria-label={label(props.labels, 'loan.overpaymentTitle')}
            mt="3"
            p="3"
            borderWidth="1px"
            borderColor="caution"
            borderRadius="l2"
          >
            <Text fontWeight="semibold">{label(props.labels, 'loan.overpaymentTitle')}</Text>
            <Text>{overpayment.message}</Text>
            <Text data-testid="overpayment-credit">
              {label(props.labels, 'loan.overpaymentCredit', {
                amount: `${overpayment.credit} ${props.currency}`,
              })}
            </Text>
            <HStack gap="3" mt="2">
              <Button colorPalette="brand" loading={command.busy} onClick={() => void send(overpayment.text, true)}>
                {label(props.labels, 'loan.confirmOverpayment')}
              </Button>
              <Button variant="ghost" onClick={() => setOverpayment(null)}>
                {label(props.labels, 'common.cancel')}
              </Button>
            </HStack>
          </Box>
        ) : null}
        {done ? <Done text={done} /> : null}
        <CommandFailure failure={command.failure} module="LoanActions" />
      </form>
    </Box>
  );
}

/** Reversal asks to confirm, like write-off: history is replayed without the transaction. */
export function ReverseForm({ props }: { props: Props }) {
  const command = useCommand<Answer>();
  const [transactionId, setTransactionId] = useState(props.reversible[0]?.id ?? '');
  const [isConfirming, setConfirming] = useState(false);
  const chosen = props.reversible.find((t) => t.id === transactionId);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!transactionId) return;
    if (!isConfirming) {
      setConfirming(true);
      return;
    }
    if (await command.run(`loans/${props.loanId}/transactions/${transactionId}/reversals`, {}))
      window.location.reload();
  };
  return (
    <Box as="form" onSubmit={submit} bg="bg" borderWidth="1px" borderColor="border" borderRadius="l3" p="5">
      <HStack align="end" gap="3" wrap="wrap">
        <Field.Root maxW="360px">
          <Field.Label>{label(props.labels, 'loan.reverseConfirm')}</Field.Label>
          <NativeSelect.Root>
            <NativeSelect.Field
              value={transactionId}
              onChange={(e) => {
                setTransactionId(e.target.value);
                setConfirming(false);
              }}
            >
              {props.reversible.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.label}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Button type="submit" colorPalette="red" variant={isConfirming ? 'solid' : 'outline'} loading={command.busy}>
          {isConfirming ? label(props.labels, 'loan.confirmReverse') : label(props.labels, 'loan.actions.reverse')}
        </Button>
        {isConfirming ? (
          <Button variant="ghost" onClick={() => setConfirming(false)}>
            {label(props.labels, 'common.cancel')}
          </Button>
        ) : null}
      </HStack>
      {isConfirming ? (
        <Text role="alert" mt="2">
          {label(props.labels, 'loan.reverseAsk', { transaction: chosen?.label ?? '' })}
        </Text>
      ) : null}
      <CommandFailure failure={command.failure} module="LoanActions" />
    </Box>
  );
}

export function WriteOffForm({ props }: { props: Props }) {
  const command = useCommand<Answer>();
  const [isConfirming, setConfirming] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!isConfirming) {
      setConfirming(true);
      return;
    }
    if (await command.run(`loans/${props.loanId}/write-offs`, { date: props.businessDate })) window.location.reload();
  };
  return (
    <Box as="form" onSubmit={submit} bg="bg" borderWidth="1px" borderColor="border" borderRadius="l3" p="5">
      <HStack gap="3">
        <Button type="submit" colorPalette="red" variant={isConfirming ? 'solid' : 'outline'} loading={command.busy}>
          {isConfirming ? label(props.labels, 'loan.writeOffTitle') : label(props.labels, 'loan.actions.writeOff')}
        </Button>
        {isConfirming ? (
          <Button variant="ghost" onClick={() => setConfirming(false)}>
            {label(props.labels, 'common.cancel')}
          </Button>
        ) : null}
      </HStack>
      <CommandFailure failure={command.failure} module="LoanActions" />
    </Box>
  );
}

type FieldProps = { text: string; value: string; onChange: (value: string) => void; disabled: boolean };

/** The money field of the charge and waiver forms (decimal text; the server reads it with the one money parser). */
function AmountField(props: FieldProps & { invalid: boolean; isRequired: boolean; maxW: string }) {
  return (
    <Field.Root maxW={props.maxW} required={props.isRequired} invalid={props.invalid}>
      <Field.Label>{props.text}</Field.Label>
      <Input
        name="amount"
        inputMode="decimal"
        autoComplete="off"
        value={props.value}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </Field.Root>
  );
}

/** The optional note of the charge and waiver forms (at most 500 characters, as the API allows). */
function NoteField(props: FieldProps) {
  return (
    <Field.Root maxW="320px">
      <Field.Label>{props.text}</Field.Label>
      <Input
        name="note"
        maxLength={500}
        value={props.value}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </Field.Root>
  );
}

/**
 * Adds a fee or a penalty to the loan (Fineract's specified-due-date charge): on the installment whose
 * period holds the due date, or, after the last due date, on the installment for charges after
 * maturity (added or extended). The due date starts at the business date.
 */
export function ChargeForm({ props }: { props: Props }) {
  const command = useCommand<Answer>();
  const live = useLive();
  const [kind, setKind] = useState<'fee' | 'penalty'>('fee');
  const [amount, setAmount] = useState('');
  const [dueDate, setDueDate] = useState(props.businessDate);
  const [note, setNote] = useState('');
  const [done, setDone] = useState('');
  const failed = command.failure?.field;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone('');
    const answer = await command.run(`loans/${props.loanId}/charges`, {
      kind,
      amount: amount.trim(),
      dueDate,
      ...(note.trim() ? { note: note.trim() } : {}),
    });
    if (!answer) return;
    setDone(
      label(props.labels, 'loan.charge.done', {
        amount: `${answer.transaction.amount} ${answer.transaction.currency}`,
      }),
    );
    window.location.reload();
  };
  return (
    <Box as="form" onSubmit={submit} bg="bg" borderWidth="1px" borderColor="border" borderRadius="l3" p="5">
      <HStack align="start" gap="3" wrap="wrap">
        <Field.Root maxW="180px">
          <Field.Label>{label(props.labels, 'loan.charge.kind')}</Field.Label>
          <NativeSelect.Root disabled={!live}>
            <NativeSelect.Field
              name="kind"
              value={kind}
              onChange={(e) => setKind(e.target.value === 'penalty' ? 'penalty' : 'fee')}
            >
              <option value="fee">{label(props.labels, 'loan.charge.fee')}</option>
              <option value="penalty">{label(props.labels, 'loan.charge.penalty')}</option>
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <AmountField
          text={`${label(props.labels, 'loan.charge.amount')} (${props.currency})`}
          value={amount}
          onChange={setAmount}
          disabled={!live}
          invalid={failed === 'amount'}
          isRequired={true}
          maxW="200px"
        />
        <Field.Root maxW="200px" required invalid={failed === 'dueDate'}>
          <Field.Label>{label(props.labels, 'loan.charge.dueDate')}</Field.Label>
          <Input
            name="dueDate"
            type="date"
            value={dueDate}
            disabled={!live}
            onChange={(e) => setDueDate(e.target.value)}
          />
        </Field.Root>
        <NoteField text={label(props.labels, 'loan.charge.note')} value={note} onChange={setNote} disabled={!live} />
      </HStack>
      <Text color="fg.muted" fontSize="sm" mt="2">
        {label(props.labels, 'loan.charge.dueDateHint')}
      </Text>
      <Button type="submit" mt="3" loading={command.busy} disabled={!live}>
        {label(props.labels, 'loan.charge.submit')}
      </Button>
      {done ? <Done text={done} /> : null}
      <CommandFailure failure={command.failure} module="LoanActions" />
    </Box>
  );
}

/**
 * Waives interest, or fees and penalties, still owed on the loan: the amount given, or all of it when
 * the amount is left empty (the command takes the oldest installments first).
 */
export function WaiveForm({ props }: { props: Props }) {
  const command = useCommand<Answer>();
  const live = useLive();
  const kinds = props.waiveKinds ?? [];
  const [kind, setKind] = useState<'interest' | 'charges'>(kinds[0] ?? 'interest');
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  const [done, setDone] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone('');
    const answer = await command.run(`loans/${props.loanId}/waivers`, {
      kind,
      ...(amount.trim() ? { amount: amount.trim() } : {}),
      ...(note.trim() ? { note: note.trim() } : {}),
    });
    if (!answer) return;
    setDone(
      label(props.labels, 'loan.waive.done', { amount: `${answer.transaction.amount} ${answer.transaction.currency}` }),
    );
    window.location.reload();
  };
  return (
    <Box as="form" onSubmit={submit} bg="bg" borderWidth="1px" borderColor="border" borderRadius="l3" p="5">
      <HStack align="start" gap="3" wrap="wrap">
        <Field.Root maxW="220px">
          <Field.Label>{label(props.labels, 'loan.waive.kind')}</Field.Label>
          <NativeSelect.Root disabled={!live}>
            <NativeSelect.Field
              name="kind"
              value={kind}
              onChange={(e) => setKind(e.target.value === 'charges' ? 'charges' : 'interest')}
            >
              {kinds.map((k) => (
                <option key={k} value={k}>
                  {label(props.labels, `loan.waive.${k}`)}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <AmountField
          text={`${label(props.labels, 'loan.waive.amount')} (${props.currency})`}
          value={amount}
          onChange={setAmount}
          disabled={!live}
          invalid={command.failure?.field === 'amount'}
          isRequired={false}
          maxW="260px"
        />
        <NoteField text={label(props.labels, 'loan.waive.note')} value={note} onChange={setNote} disabled={!live} />
      </HStack>
      <Button type="submit" mt="3" loading={command.busy} disabled={!live}>
        {label(props.labels, 'loan.waive.submit')}
      </Button>
      {done ? <Done text={done} /> : null}
      <CommandFailure failure={command.failure} module="LoanActions" />
    </Box>
  );
}
