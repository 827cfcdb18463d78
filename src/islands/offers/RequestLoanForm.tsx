import { Box, Button, Field, Input, Stack, Textarea } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import { IslandProvider } from '../ui/provider.tsx';
import { label, type Labels } from '../loans/labels.ts';
import { useCommand } from '../loans/use-command.ts';
import { CommandFailure } from '../loans/command-failure.tsx';

type Props = { language: Language; offerId: string; customerBase: string; businessDate: string; labels: Labels };

/**
 * The application form of an offer's loan request: the fields a loan needs now (the offer fixes
 * amount, term and rate; the officer adds the purpose and the expected disbursement date). One
 * Idempotency-Key per form, so a double submit creates one application.
 */
function Form(props: Props) {
  const { labels } = props;
  const [purpose, setPurpose] = useState('');
  const [date, setDate] = useState(props.businessDate);
  const [isMissing, setMissing] = useState(false);
  const command = useCommand<{ application: { loanId: string } }>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!purpose.trim()) {
      setMissing(true);
      return;
    }
    const answer = await command.run(`offers/${props.offerId}/request`, {
      formData: { purpose: purpose.trim() },
      expectedDisbursementDate: date,
    });
    if (answer) window.location.assign(`${props.customerBase}/processing-loans/${answer.application.loanId}`);
  };
  return (
    <Box asChild maxW="520px">
      <form onSubmit={submit} noValidate>
        <Stack gap="4">
          <Field.Root required invalid={isMissing}>
            <Field.Label>{label(labels, 'offer.purpose')}</Field.Label>
            <Textarea
              name="purpose"
              rows={3}
              maxLength={500}
              value={purpose}
              onChange={(e) => {
                setPurpose(e.target.value);
                setMissing(false);
              }}
            />
            {isMissing ? (
              <Field.ErrorText>
                {label(labels, 'common.required', { field: label(labels, 'offer.purpose') })}
              </Field.ErrorText>
            ) : null}
          </Field.Root>
          <Field.Root required>
            <Field.Label>{label(labels, 'offer.expectedDisbursementDate')}</Field.Label>
            <Input
              type="date"
              name="expectedDisbursementDate"
              min={props.businessDate}
              value={date}
              onChange={(e) => setDate(e.target.value)}
            />
          </Field.Root>
          <CommandFailure failure={command.failure} module="RequestLoanForm" />
          <Box>
            <Button type="submit" colorPalette="brand" loading={command.busy}>
              {label(labels, 'offer.submitRequest')}
            </Button>
          </Box>
        </Stack>
      </form>
    </Box>
  );
}

export default function RequestLoanForm(props: Props) {
  return (
    <IslandProvider language={props.language} module="RequestLoanForm">
      <Form {...props} />
    </IslandProvider>
  );
}
