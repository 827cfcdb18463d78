import { Box, Button, Text } from '@chakra-ui/react';
import { useState } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import { createApi, errorMessageOf } from '../lib/api.ts';
import { IslandProvider } from '../ui/provider.tsx';

const api = createApi({ module: 'GenerateOffers' });

/** Words given by the page ({created}, {refused}, {skipped} and {message} are replaced). */
export type GenerateLabels = { submit: string; result: string; failed: string };
type Answer = { created: number; refused: number; skipped: number };

function Generate(props: { strategyId: string; labels: GenerateLabels }) {
  const [isBusy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setFailure(null);
    try {
      setAnswer(await api.post(`strategies/${props.strategyId}/originations`, { json: {} }).json<Answer>());
    } catch (error) {
      setFailure((await errorMessageOf(error)).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Box>
      <Button colorPalette="brand" onClick={() => void run()} loading={isBusy} data-testid="generate-offers">
        {props.labels.submit}
      </Button>
      {answer ? (
        <Text mt="2" role="status" data-testid="generate-result">
          {props.labels.result
            .replace('{created}', String(answer.created))
            .replace('{refused}', String(answer.refused))
            .replace('{skipped}', String(answer.skipped))}
        </Text>
      ) : null}
      {failure ? (
        <Text mt="2" color="fg.error" role="alert" data-testid="generate-error">
          {props.labels.failed.replace('{message}', failure)}
        </Text>
      ) : null}
    </Box>
  );
}

/** "Generate offers now" on a live strategy: POST /v1/strategies/{id}/originations → { created, refused, skipped }. */
export default function GenerateOffers(props: { language: Language; strategyId: string; labels: GenerateLabels }) {
  return (
    <IslandProvider language={props.language} module="GenerateOffers">
      <Generate {...props} />
    </IslandProvider>
  );
}
