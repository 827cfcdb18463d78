import { Button, HStack, Stack, Text } from '@chakra-ui/react';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import { IslandProvider } from '../ui/provider.tsx';
import { label, type Labels } from './labels.ts';
import type { ReshapeInfo } from '#lib/lending/commands/reage-loan.ts';

export type LoanActionsProps = {
  language: Language;
  loanId: string;
  currency: string;
  businessDate: string;
  /** Permission held AND allowed by the loan's lifecycle (dry run) now. */
  can: {
    transfer: boolean;
    repay: boolean;
    writeOff: boolean;
    reverse: boolean;
    reAge?: boolean;
    reAmortize?: boolean;
    undoReAge?: boolean;
    undoReAmortize?: boolean;
    vary?: boolean;
    /** Add a fee or penalty (specified due date; after maturity, the N+1 installment). */
    charge?: boolean;
    /** Waive interest or charges (which of them: `waiveKinds`). */
    waive?: boolean;
  };
  /** What the loan's lifecycle lets this user waive now. */
  waiveKinds?: ('interest' | 'charges')[];
  /** The page that is one form (the transfer / repay pages) shows it at once; the loan page opens them on demand. */
  only?: 'transfer' | 'repay';
  /** Amount proposed for a repayment: the next installment's outstanding. */
  suggestedAmount: string;
  reversible: { id: string; label: string }[];
  /** Where to go after a success (the loan page). */
  loanHref: string;
  labels: Labels;
  /** Re-age / re-amortisation: the loan's installments and money rules for the forms' preview. */
  reshape?: ReshapeInfo;
  /** Installment edits before disbursement (vary-form.tsx): what the product allows and the saved edits. */
  installments?: {
    variable: boolean;
    fixedEmi: boolean;
    variations: Record<string, unknown>[];
    fixedEmiAmount: string | null;
  };
};

type Props = LoanActionsProps;
type FormKind = 'transfer' | 'repay' | 'charge' | 'waive' | 'reverse' | 'writeOff' | 'vary' | ReshapeKind;
type ReshapeKind = 'reAge' | 'reAmortize' | 'undoReAge' | 'undoReAmortize';
const RESHAPE_KINDS: readonly ReshapeKind[] = ['reAge', 'reAmortize', 'undoReAge', 'undoReAmortize'];

// Loaded when a form is first opened (loan-forms.tsx says why).
const TransferForm = lazy(() => import('./loan-forms.tsx').then((m) => ({ default: m.TransferForm })));
const RepayForm = lazy(() => import('./loan-forms.tsx').then((m) => ({ default: m.RepayForm })));
const ReverseForm = lazy(() => import('./loan-forms.tsx').then((m) => ({ default: m.ReverseForm })));
const ChargeForm = lazy(() => import('./loan-forms.tsx').then((m) => ({ default: m.ChargeForm })));
const WaiveForm = lazy(() => import('./loan-forms.tsx').then((m) => ({ default: m.WaiveForm })));
const WriteOffForm = lazy(() => import('./loan-forms.tsx').then((m) => ({ default: m.WriteOffForm })));
const ReAgeForm = lazy(() => import('./reshape-forms.tsx').then((m) => ({ default: m.ReAgeForm })));
const ReAmortizeForm = lazy(() => import('./reshape-forms.tsx').then((m) => ({ default: m.ReAmortizeForm })));
const UndoReshapeForm = lazy(() => import('./reshape-forms.tsx').then((m) => ({ default: m.UndoReshapeForm })));
const VaryForm = lazy(() => import('./vary-form.tsx').then((m) => ({ default: m.VaryForm })));

const TITLES: Record<FormKind, string> = {
  transfer: 'loan.transferTitle',
  repay: 'loan.repayTitle',
  charge: 'loan.charge.title',
  waive: 'loan.waive.title',
  reverse: 'loan.reverseConfirm',
  writeOff: 'loan.writeOffTitle',
  reAge: 'loan.reshape.reAgeTitle',
  reAmortize: 'loan.reshape.reAmortizeTitle',
  undoReAge: 'loan.reshape.undoReAgeTitle',
  undoReAmortize: 'loan.reshape.undoReAmortizeTitle',
  vary: 'loan.actions.vary',
};

function Loading({ props }: { props: Props }) {
  return (
    <Text role="status" color="fg.muted">
      {label(props.labels, 'common.loading')}
    </Text>
  );
}

function FormOf({ kind, props }: { kind: FormKind; props: Props }): ReactNode {
  const form =
    kind === 'transfer' ? (
      <TransferForm props={props} />
    ) : kind === 'repay' ? (
      <RepayForm props={props} />
    ) : kind === 'charge' ? (
      <ChargeForm props={props} />
    ) : kind === 'waive' ? (
      <WaiveForm props={props} />
    ) : kind === 'reverse' ? (
      <ReverseForm props={props} />
    ) : kind === 'reAge' ? (
      <ReAgeForm props={props} />
    ) : kind === 'reAmortize' ? (
      <ReAmortizeForm props={props} />
    ) : kind === 'undoReAge' ? (
      <UndoReshapeForm props={props} kind="reAge" />
    ) : kind === 'undoReAmortize' ? (
      <UndoReshapeForm props={props} kind="reAmortize" />
    ) : kind === 'vary' ? (
      <VaryForm props={props} />
    ) : (
      <WriteOffForm props={props} />
    );
  return <Suspense fallback={<Loading props={props} />}>{form}</Suspense>;
}

function Actions(props: Props) {
  const { can, only } = props;
  const [open, setOpen] = useState<FormKind[]>([]);
  if (only) return can[only] ? <FormOf kind={only} props={props} /> : null;
  const kinds = [
    ...(['transfer', 'repay', 'charge', 'waive', 'reverse', 'writeOff', 'vary'] as const).filter((kind) =>
      kind === 'reverse' ? can.reverse && props.reversible.length > 0 : can[kind] === true,
    ),
    ...RESHAPE_KINDS.filter((kind) => props.reshape && can[kind] === true),
  ];
  if (!kinds.length) return null;
  const toggle = (kind: FormKind) =>
    setOpen((current) => (current.includes(kind) ? current.filter((k) => k !== kind) : [...current, kind]));
  return (
    <Stack gap="4">
      <HStack gap="2" wrap="wrap">
        {kinds.map((kind) => (
          <Button
            key={kind}
            variant="outline"
            colorPalette={
              kind === 'reverse' || kind === 'writeOff' || kind === 'undoReAge' || kind === 'undoReAmortize'
                ? 'red'
                : 'gray'
            }
            aria-expanded={open.includes(kind)}
            onClick={() => toggle(kind)}
          >
            {label(props.labels, TITLES[kind])}
          </Button>
        ))}
      </HStack>
      {kinds
        .filter((kind) => open.includes(kind))
        .map((kind) => (
          <div key={kind} id={`loan-form-${kind}`}>
            <FormOf kind={kind} props={props} />
          </div>
        ))}
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
