import { Box, Progress, Text } from '@chakra-ui/react';
import { useEffect, useState } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import { createApi, errorMessageOf } from '../lib/api.ts';
import { startPolling } from '../lib/poll.ts';
import { IslandProvider } from '../ui/provider.tsx';

type Simulation = { status: 'queued' | 'running' | 'done' | 'failed'; customersDone: number; customersTotal: number };
const api = createApi({ module: 'SimulationProgress' });
export const POLL_MS = 1500;

/** Words for the bar, given by the page in the user's language ({done} and {total} are replaced). */
export type ProgressLabels = { queued: string; running: string; progress: string };

function Bar(props: { strategyId: string; simulationId: string; initial: Simulation; labels: ProgressLabels }) {
  const [sim, setSim] = useState(props.initial);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(
    () =>
      startPolling({
        intervalMs: POLL_MS,
        doc: document,
        // x-background: polling is not user activity, so it does not keep an idle session alive.
        load: () =>
          api
            .get(`strategies/${props.strategyId}/simulations/${props.simulationId}?limit=1`, {
              headers: { 'x-background': '1' },
            })
            .json<{ simulation: Simulation }>()
            .then((r) => r.simulation),
        onResult: (next) => {
          setSim(next);
          // Finished: the page shows the figures (server-rendered), so it reloads itself.
          if (next.status === 'done' || next.status === 'failed') window.location.reload();
        },
        onError: (error) => void errorMessageOf(error).then((m) => setFailure(m.message)),
        shouldContinue: (next) => next.status === 'queued' || next.status === 'running',
      }),
    [props.strategyId, props.simulationId],
  );
  const percent = sim.customersTotal > 0 ? Math.round((sim.customersDone / sim.customersTotal) * 100) : 0;
  const text =
    sim.status === 'queued'
      ? props.labels.queued
      : props.labels.running
          .replace('{done}', String(sim.customersDone))
          .replace('{total}', String(sim.customersTotal));
  return (
    <Box maxW="480px" data-testid="simulation-progress">
      <Progress.Root value={percent} max={100} size="sm" colorPalette="brand" aria-label={props.labels.progress}>
        <Progress.Track>
          <Progress.Range />
        </Progress.Track>
      </Progress.Root>
      <Text fontSize="sm" color="fg.muted" role="status">
        {text}
      </Text>
      {failure ? (
        <Text fontSize="sm" color="fg.error" role="alert">
          {failure}
        </Text>
      ) : null}
    </Box>
  );
}

/** The running simulation's progress bar: polls GET /v1/strategies/{id}/simulations/{simId} and reloads the page when it ends. */
export default function SimulationProgress(props: {
  language: Language;
  strategyId: string;
  simulationId: string;
  initial: Simulation;
  labels: ProgressLabels;
}) {
  return (
    <IslandProvider language={props.language} module="SimulationProgress">
      <Bar {...props} />
    </IslandProvider>
  );
}
