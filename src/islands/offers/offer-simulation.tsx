import { Box, Button, Field, HStack, Input, Table, Text } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { api, errorMessageOf } from '../lib/api.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { label } from '../loans/labels.ts';
import type { Failure } from '../loans/use-command.ts';
import { formatMinorPlain } from '#lib/money/parse.ts';
import { currencyDigits } from '#lib/money/money.ts';
import { amountMessage, amountSchema } from '#lib/money/schema.ts';
import { validationMessage } from '#lib/errors/messages.ts';
import type { OfferActionsProps } from './OfferActions.tsx';

/**
 * The offer page's repayment simulation. OfferActions imports this module when the user first
 * asks to simulate: with its fields, table, amount parsing and validation messages it is half of
 * what the island would otherwise load up front.
 */

type Preview = {
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
  /** Fees due at disbursement (issue 17): collected out of the amount paid out. */
  disbursement?: { date: string; fees: string; total: string };
};

export function Simulation({ props }: { props: OfferActionsProps }) {
  const { labels, limits, language } = props;
  const [amount, setAmount] = useState(props.principal);
  const [repayments, setRepayments] = useState(String(props.numberOfRepayments));
  const [invalid, setInvalid] = useState<string | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const refuse = (message: string) => {
    setInvalid(message);
    setPreview(null);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // The product's limits, checked before asking the engine (which would accept any amount), on
    // the exact amount with the server's parser and words: never through a float.
    const digits = currencyDigits(limits.currency);
    const min = amountSchema(digits).safeParse(limits.minPrincipal);
    const max = amountSchema(digits).safeParse(limits.maxPrincipal);
    const value = amountSchema(digits, { decimalComma: language === 'fr' }).safeParse(amount);
    if (!value.success) {
      refuse(amountMessage(value, language, 'principal') ?? '');
      return;
    }
    if ((min.success && value.data < min.data) || (max.success && value.data > max.data)) {
      refuse(
        validationMessage(
          language,
          'money.outOfRange',
          { min: limits.minPrincipal, max: limits.maxPrincipal },
          'principal',
        ),
      );
      return;
    }
    const count = /^[0-9]{1,4}$/.test(repayments.trim()) ? Number(repayments.trim()) : Number.NaN;
    if (!Number.isInteger(count)) {
      refuse(validationMessage(language, 'number.whole', {}, 'numberOfRepayments'));
      return;
    }
    if (count < limits.minRepayments || count > limits.maxRepayments) {
      refuse(
        validationMessage(
          language,
          'number.between',
          { min: limits.minRepayments, max: limits.maxRepayments },
          'numberOfRepayments',
        ),
      );
      return;
    }
    setInvalid(null);
    setBusy(true);
    setFailure(null);
    try {
      setPreview(
        await api
          .post('schedules/preview', {
            json: { ...props.baseTerms, principal: formatMinorPlain(value.data, digits), numberOfRepayments: count },
          })
          .json<Preview>(),
      );
    } catch (error) {
      // A refused simulation must not leave the previous result on screen as if it were this one.
      setPreview(null);
      setFailure({ ...(await errorMessageOf(error)), error });
    } finally {
      setBusy(false);
    }
  };
  const s = (k: string) => label(labels, `schedule.${k}`);
  return (
    <Box
      as="section"
      aria-label={label(labels, 'offer.simulateTitle')}
      bg="bg"
      borderWidth="1px"
      borderColor="border"
      borderRadius="l3"
      p="5"
    >
      <Text fontWeight="semibold" mb="3">
        {label(labels, 'offer.simulateTitle')}
      </Text>
      <form onSubmit={submit} noValidate>
        <HStack gap="3" align="end" wrap="wrap">
          <Field.Root maxW="220px" invalid={Boolean(invalid)}>
            <Field.Label>
              {label(labels, 'offer.amountWithin', { min: limits.minPrincipal, max: limits.maxPrincipal })}
            </Field.Label>
            <Input name="principal" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />
          </Field.Root>
          <Field.Root maxW="220px" invalid={Boolean(invalid)}>
            <Field.Label>
              {label(labels, 'offer.repaymentsWithin', { min: limits.minRepayments, max: limits.maxRepayments })}
            </Field.Label>
            <Input
              name="numberOfRepayments"
              inputMode="numeric"
              value={repayments}
              onChange={(e) => setRepayments(e.target.value)}
            />
          </Field.Root>
          <Button type="submit" colorPalette="brand" loading={busy}>
            {label(labels, 'offer.calculate')}
          </Button>
        </HStack>
      </form>
      {invalid ? (
        <Text role="alert" color="fg.error" mt="2">
          {invalid}
        </Text>
      ) : null}
      {failure ? (
        <ErrorAlert status={failure.status} message={failure.message} error={failure.error} module="OfferActions" />
      ) : null}
      {preview ? (
        <Table.ScrollArea mt="4">
          <Table.Root size="sm" aria-label={s('title')}>
            <Table.Header>
              <Table.Row>
                {['number', 'dueDate', 'principal', 'interest', 'fees', 'total', 'balance'].map((k) => (
                  <Table.ColumnHeader key={k}>{s(k)}</Table.ColumnHeader>
                ))}
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {preview.installments.map((i) => (
                <Table.Row key={i.number}>
                  <Table.Cell>{i.number}</Table.Cell>
                  <Table.Cell>{i.dueDate}</Table.Cell>
                  <Table.Cell>{i.principal}</Table.Cell>
                  <Table.Cell>{i.interest}</Table.Cell>
                  <Table.Cell>{i.fees}</Table.Cell>
                  <Table.Cell>{i.total}</Table.Cell>
                  <Table.Cell>{i.balance}</Table.Cell>
                </Table.Row>
              ))}
              <Table.Row fontWeight="semibold">
                <Table.Cell colSpan={2}>{s('totals')}</Table.Cell>
                <Table.Cell>{preview.totals.principal}</Table.Cell>
                <Table.Cell>{preview.totals.interest}</Table.Cell>
                <Table.Cell />
                <Table.Cell data-testid="simulation-total">
                  {preview.totals.total} {preview.currency}
                </Table.Cell>
                <Table.Cell />
              </Table.Row>
            </Table.Body>
          </Table.Root>
        </Table.ScrollArea>
      ) : null}
      {preview?.disbursement ? (
        <Text mt="2" data-testid="simulation-disbursement-fees">
          {label(labels, 'schedule.atDisbursement', {
            date: preview.disbursement.date,
            amount: `${preview.disbursement.total} ${preview.currency}`,
          })}
        </Text>
      ) : null}
    </Box>
  );
}
