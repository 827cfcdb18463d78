import { Box, Button, Stack, Text } from '@chakra-ui/react';
import type { Language } from '#lib/i18n/index.ts';
import { IslandProvider } from '../ui/provider.tsx';
import { useCommand } from '../loans/use-command.ts';
import { CommandFailure } from '../loans/command-failure.tsx';

type Props = {
  language: Language;
  applicationId: string;
  labels: { title: string; intro: string; run: string };
};

/** The checker's "Run review decision": POST /v1/applications/{id}/review-decision, then the page shows the new why. */
function Review(props: Props) {
  const command = useCommand();
  const run = async () => {
    const answer = await command.run(`applications/${props.applicationId}/review-decision`, {});
    if (answer) window.location.reload();
  };
  return (
    <Stack gap="2" maxW="560px" as="section" aria-label={props.labels.title}>
      <Text>{props.labels.intro}</Text>
      <Box>
        <Button variant="outline" colorPalette="brand" loading={command.busy} onClick={run} data-testid="run-review">
          {props.labels.run}
        </Button>
      </Box>
      <CommandFailure failure={command.failure} module="RunReviewDecision" />
    </Stack>
  );
}

export default function RunReviewDecision(props: Props) {
  return (
    <IslandProvider language={props.language} module="RunReviewDecision">
      <Review {...props} />
    </IslandProvider>
  );
}
