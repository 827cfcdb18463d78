import { Box, Button, Field, HStack, Stack, Text, Textarea } from '@chakra-ui/react';
import { useState } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { IslandProvider } from '../ui/provider.tsx';
import { label, type Labels } from '../loans/labels.ts';
import { useCommand } from '../loans/use-command.ts';

type Props = {
  language: Language;
  applicationId: string;
  /** Shown only when the permission is held AND the dry run allows it. */
  can: { approve: boolean; reject: boolean; withdraw: boolean };
  /** Why approving is refused to this user (maker-checker, threshold), from the dry run. */
  refusal: string | null;
  labels: Labels;
};

/** Maker-checker decision on a submitted application; each decision has its own Idempotency-Key. */
function Decision(props: Props) {
  const { labels, can } = props;
  const [note, setNote] = useState('');
  const approve = useCommand();
  const reject = useCommand();
  const withdraw = useCommand();
  const decide = async (command: ReturnType<typeof useCommand>, action: string) => {
    const answer = await command.run(
      `applications/${props.applicationId}/${action}`,
      note.trim() ? { note: note.trim() } : {},
    );
    if (answer) window.location.reload();
  };
  const failure = approve.failure ?? reject.failure ?? withdraw.failure;
  const hasAny = can.approve || can.reject || can.withdraw;
  return (
    <Stack gap="3" maxW="560px">
      {props.refusal ? (
        <Text role="note" data-testid="approval-refusal">
          {props.refusal}
        </Text>
      ) : null}
      {hasAny ? (
        <>
          <Field.Root>
            <Field.Label>{label(labels, 'application.decisionNote')}</Field.Label>
            <Textarea rows={2} maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} />
          </Field.Root>
          <HStack gap="2">
            {can.approve ? (
              <Button colorPalette="brand" loading={approve.busy} onClick={() => decide(approve, 'approve')}>
                {label(labels, 'application.approve')}
              </Button>
            ) : null}
            {can.reject ? (
              <Button
                colorPalette="red"
                variant="outline"
                loading={reject.busy}
                onClick={() => decide(reject, 'reject')}
              >
                {label(labels, 'application.reject')}
              </Button>
            ) : null}
            {can.withdraw ? (
              <Button
                variant="outline"
                colorPalette="gray"
                loading={withdraw.busy}
                onClick={() => decide(withdraw, 'withdraw')}
              >
                {label(labels, 'application.withdraw')}
              </Button>
            ) : null}
          </HStack>
        </>
      ) : null}
      {failure ? (
        <Box>
          <ErrorAlert
            status={failure.status}
            message={failure.message}
            error={failure.error}
            module="ApplicationDecision"
          />
        </Box>
      ) : null}
    </Stack>
  );
}

export default function ApplicationDecision(props: Props) {
  return (
    <IslandProvider language={props.language} module="ApplicationDecision">
      <Decision {...props} />
    </IslandProvider>
  );
}
