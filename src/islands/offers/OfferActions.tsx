import { Button, HStack, Stack, Text } from '@chakra-ui/react';
import { lazy, Suspense, useState } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import type { FormDocument } from '#lib/forms/document.ts';
import { IslandProvider } from '../ui/provider.tsx';
import { label, type Labels } from '../loans/labels.ts';

export type OfferActionsProps = {
  language: Language;
  offerId: string;
  code: string;
  /** Actions shown: permission held AND allowed by the offer's lifecycle now. */
  can: { notify: boolean; reject: boolean; request: boolean; simulate: boolean; copyCode: boolean; print: boolean };
  /** The tenant's notify form (a form document; labels in EN/FR from it). */
  form: FormDocument;
  limits: {
    currency: string;
    minPrincipal: string;
    maxPrincipal: string;
    minRepayments: number;
    maxRepayments: number;
  };
  principal: string;
  numberOfRepayments: number;
  baseTerms: Record<string, unknown>;
  requestHref: string;
  printHref: string;
  labels: Labels;
};

// Loaded when first shown (offer-dialogs.tsx and offer-simulation.tsx say why).
const Simulation = lazy(() => import('./offer-simulation.tsx').then((m) => ({ default: m.Simulation })));
const NotifyDialog = lazy(() => import('./offer-dialogs.tsx').then((m) => ({ default: m.NotifyDialog })));
const RejectDialog = lazy(() => import('./offer-dialogs.tsx').then((m) => ({ default: m.RejectDialog })));

function Actions(props: OfferActionsProps) {
  const { labels, can } = props;
  const [dialog, setDialog] = useState<'notify' | 'reject' | null>(null);
  const [showSimulation, setShowSimulation] = useState(false);
  const [notice, setNotice] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.code);
      setNotice(label(labels, 'offer.copied', { code: props.code }));
    } catch {
      setNotice(label(labels, 'offer.copyFailed', { code: props.code }));
    }
  };
  return (
    <Stack gap="4">
      <HStack gap="2" wrap="wrap">
        {can.notify ? (
          <Button colorPalette="brand" onClick={() => setDialog('notify')}>
            {label(labels, 'offer.actions.notify')}
          </Button>
        ) : null}
        {can.request ? (
          <Button asChild colorPalette="gray" variant="outline">
            <a href={props.requestHref}>{label(labels, 'offer.actions.request')}</a>
          </Button>
        ) : null}
        {can.simulate ? (
          <Button
            variant="outline"
            colorPalette="gray"
            onClick={() => setShowSimulation((v) => !v)}
            aria-expanded={showSimulation}
          >
            {label(labels, 'offer.actions.simulate')}
          </Button>
        ) : null}
        {can.copyCode ? (
          <Button variant="outline" colorPalette="gray" onClick={copy}>
            {label(labels, 'offer.actions.copyCode')}
          </Button>
        ) : null}
        {can.print ? (
          <Button asChild variant="outline" colorPalette="gray">
            <a href={props.printHref} target="_blank" rel="noopener">
              {label(labels, 'offer.actions.print')}
            </a>
          </Button>
        ) : null}
        {can.reject ? (
          <Button colorPalette="red" variant="outline" onClick={() => setDialog('reject')}>
            {label(labels, 'offer.actions.reject')}
          </Button>
        ) : null}
      </HStack>
      {notice ? <Text role="status">{notice}</Text> : null}
      <Suspense fallback={null}>{showSimulation ? <Simulation props={props} /> : null}</Suspense>
      <Suspense fallback={null}>
        {dialog === 'notify' ? (
          <NotifyDialog
            offerId={props.offerId}
            form={props.form}
            language={props.language}
            labels={labels}
            onClose={() => setDialog(null)}
          />
        ) : null}
        {dialog === 'reject' ? (
          <RejectDialog offerId={props.offerId} labels={labels} onClose={() => setDialog(null)} />
        ) : null}
      </Suspense>
    </Stack>
  );
}

export default function OfferActions(props: OfferActionsProps) {
  return (
    <IslandProvider language={props.language} module="OfferActions">
      <Actions {...props} />
    </IslandProvider>
  );
}
