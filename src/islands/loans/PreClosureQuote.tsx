import { Box, Button, Field, HStack, Input, Stack, Text } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import { formatDecimalMoney } from '#lib/i18n/format.ts';
import { IslandProvider } from '../ui/provider.tsx';
import { label, type Labels } from './labels.ts';

/**
 * Interest recalculation (issue 17): the amount that closes the loan on a chosen date, from
 * GET /v1/loans/{id}/pre-closure (outstanding principal + interest up to the date, by the product's
 * pre-closure strategy). Read only; the repayment form takes the amount.
 */
type Quote = { date: string; principal: string; interest: string; total: string };

export type PreClosureQuoteProps = {
  language: Language;
  loanId: string;
  currency: string;
  businessDate: string;
  /** The loan's last transaction date (a quote cannot go back before it). */
  minDate: string;
  labels: Labels;
};

export default function PreClosureQuote(props: PreClosureQuoteProps) {
  const [date, setDate] = useState(props.businessDate);
  const [quote, setQuote] = useState<Quote | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const money = (v: string) => formatDecimalMoney(v, props.currency, props.language);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const response = await fetch(`/v1/loans/${props.loanId}/pre-closure?date=${encodeURIComponent(date)}`, {
        headers: { accept: 'application/json', 'accept-language': props.language },
        credentials: 'same-origin',
      });
      const body = (await response.json().catch(() => null)) as
        (Quote & { error?: { message?: string } }) | { error?: { message?: string }; message?: string } | null;
      if (!response.ok) {
        setQuote(null);
        const message =
          (body as { error?: { message?: string } } | null)?.error?.message ??
          (body as { message?: string } | null)?.message;
        setError(message ?? label(props.labels, 'loan.preClosure.failed'));
      } else setQuote(body as Quote);
    } catch {
      setQuote(null);
      setError(label(props.labels, 'loan.preClosure.failed'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <IslandProvider language={props.language} module="PreClosureQuote">
      <Box
        as="form"
        onSubmit={submit}
        aria-labelledby="pre-closure-title"
        bg="bg"
        borderWidth="1px"
        borderColor="border"
        borderRadius="l3"
        p="5"
        my="4"
        data-testid="pre-closure"
      >
        <Text id="pre-closure-title" fontWeight="semibold" mb="1">
          {label(props.labels, 'loan.preClosure.title')}
        </Text>
        <Text color="fg.muted" mb="3">
          {label(props.labels, 'loan.preClosure.intro')}
        </Text>
        <HStack align="end" gap="3" wrap="wrap">
          <Field.Root maxW="200px" required invalid={error !== null}>
            <Field.Label>{label(props.labels, 'common.date')}</Field.Label>
            <Input type="date" name="date" value={date} min={props.minDate} onChange={(e) => setDate(e.target.value)} />
          </Field.Root>
          <Button type="submit" colorPalette="brand" loading={busy}>
            {label(props.labels, 'loan.preClosure.show')}
          </Button>
        </HStack>
        {error ? (
          <Text role="alert" color="fg.error" mt="3">
            {error}
          </Text>
        ) : null}
        {quote ? (
          <Stack as="dl" gap="1" mt="3" role="status" data-testid="pre-closure-result">
            <Text as="dt" fontWeight="semibold">
              {label(props.labels, 'loan.preClosure.on', { date: quote.date })}
            </Text>
            <Text as="dd">
              {label(props.labels, 'loan.preClosure.principal')}: {money(quote.principal)}
            </Text>
            <Text as="dd">
              {label(props.labels, 'loan.preClosure.interest')}: {money(quote.interest)}
            </Text>
            <Text as="dd" fontWeight="semibold" data-testid="pre-closure-total">
              {label(props.labels, 'loan.preClosure.total')}: {money(quote.total)}
            </Text>
          </Stack>
        ) : null}
      </Box>
    </IslandProvider>
  );
}
