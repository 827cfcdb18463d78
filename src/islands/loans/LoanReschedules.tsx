import { Box, Button, Field, HStack, Input, NativeSelect, Stack, Text, Textarea } from '@chakra-ui/react';
import { Suspense, useState, type FormEvent } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import type { ScheduleJson } from '#lib/schedule/types.ts';
import type { RescheduleRequestJson } from '#lib/lending/commands/reschedule-loan.ts';
import { api, errorMessageOf } from '../lib/api.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { IslandProvider } from '../ui/provider.tsx';
import { label, type Labels } from './labels.ts';
import { useCommand, type Failure } from './use-command.ts';
import { CommandFailure } from './command-failure.tsx';

export type LoanReschedulesProps = {
  language: Language;
  loanId: string;
  currency: string;
  /** The signed-in user: their own pending request shows no approve button (maker-checker). */
  userId: string;
  /** Permission held AND allowed by the loan's lifecycle (dry run) now. */
  can: { submit: boolean; approve: boolean; reject: boolean };
  /** Installments a reschedule can start from (not paid, not a down payment). */
  installments: { number: number; dueDate: string }[];
  requests: RescheduleRequestJson[];
  labels: Labels;
};

type Props = LoanReschedulesProps;
type Preview = { before: ScheduleJson; after: ScheduleJson; kept: number };
type Fields = {
  rescheduleFromDate: string;
  newInterestRate: string;
  adjustedDueDate: string;
  extraTerms: string;
  graceOnPrincipal: string;
  graceOnInterest: string;
  reason: string;
};

const t = (props: Props, path: string, vars?: Record<string, string | number>) =>
  label(props.labels, `reschedule.${path}`, vars);

/** The request body / preview query: empty fields are left out. */
function inputOf(f: Fields): Record<string, string | number> {
  const out: Record<string, string | number> = { rescheduleFromDate: f.rescheduleFromDate };
  if (f.newInterestRate.trim()) out.newInterestRate = f.newInterestRate.trim();
  if (f.adjustedDueDate) out.adjustedDueDate = f.adjustedDueDate;
  for (const k of ['extraTerms', 'graceOnPrincipal', 'graceOnInterest'] as const) {
    const n = f[k].trim();
    if (n && n !== '0') out[k] = Number(n);
  }
  return out;
}

function formatDate(date: string, language: Language): string {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString(language === 'fr' ? 'fr-FR' : 'en-GB', { timeZone: 'UTC' });
}

function Comparison({ props, preview }: { props: Props; preview: Preview }) {
  const { before, after } = preview;
  const rows = Math.max(before.installments.length, after.installments.length);
  const change = (Number(after.totals.interest) - Number(before.totals.interest)).toFixed(
    (after.totals.interest.split('.')[1] ?? '').length,
  );
  const d = (v?: string) => (v ? formatDate(v, props.language) : '—');
  return (
    <Box mt="4">
      <Text fontWeight="semibold" mb="2">
        {t(props, 'previewTitle')}
      </Text>
      <div className="table-scroll">
        <table className="data-table" aria-label={t(props, 'previewTitle')} data-testid="reschedule-preview">
          <thead>
            <tr>
              <th scope="col">{t(props, 'number')}</th>
              <th scope="col">
                {t(props, 'now')} · {t(props, 'dueDate')}
              </th>
              <th scope="col" className="num">
                {t(props, 'now')} · {t(props, 'total')}
              </th>
              <th scope="col">
                {t(props, 'after')} · {t(props, 'dueDate')}
              </th>
              <th scope="col" className="num">
                {t(props, 'after')} · {t(props, 'principal')}
              </th>
              <th scope="col" className="num">
                {t(props, 'after')} · {t(props, 'interest')}
              </th>
              <th scope="col" className="num">
                {t(props, 'after')} · {t(props, 'total')}
              </th>
            </tr>
          </thead>
          <tbody>
            {Array.from({ length: rows }, (_, i) => {
              const old = before.installments[i];
              const next = after.installments[i];
              const changed = !old || !next || old.dueDate !== next.dueDate || old.total !== next.total;
              return (
                <tr key={i} data-changed={changed ? 'true' : undefined}>
                  <td>{i + 1}</td>
                  <td>{d(old?.dueDate)}</td>
                  <td className="num">{old?.total ?? '—'}</td>
                  <td>{d(next?.dueDate)}</td>
                  <td className="num">{next?.principal ?? '—'}</td>
                  <td className="num">{next?.interest ?? '—'}</td>
                  <td className="num">{next?.total ?? '—'}</td>
                </tr>
              );
            })}
            <tr>
              <th scope="row">{t(props, 'totals')}</th>
              <td />
              <td className="num">{before.totals.total}</td>
              <td />
              <td className="num">{after.totals.principal}</td>
              <td className="num">{after.totals.interest}</td>
              <td className="num">{after.totals.total}</td>
            </tr>
          </tbody>
        </table>
      </div>
      <Text mt="2" data-testid="reschedule-interest-change">
        {t(props, 'interestChange', { amount: `${change} ${props.currency}` })}
      </Text>
    </Box>
  );
}

function RescheduleForm({ props }: { props: Props }) {
  const command = useCommand<RescheduleRequestJson>();
  const [fields, setFields] = useState<Fields>({
    rescheduleFromDate: props.installments[0]?.dueDate ?? '',
    newInterestRate: '',
    adjustedDueDate: '',
    extraTerms: '',
    graceOnPrincipal: '',
    graceOnInterest: '',
    reason: '',
  });
  const [preview, setPreview] = useState<Preview | null>(null);
  const [previewFailure, setPreviewFailure] = useState<Failure | null>(null);
  const [loading, setLoading] = useState(false);
  const [done, setDone] = useState(false);
  const set = (key: keyof Fields) => (e: { target: { value: string } }) => {
    setFields((f) => ({ ...f, [key]: e.target.value }));
    setPreview(null);
  };
  const failure = command.failure ?? previewFailure;
  const invalid = (field: string) => failure?.field === field;
  const showPreview = async () => {
    setLoading(true);
    setPreviewFailure(null);
    command.clear();
    try {
      const searchParams = Object.fromEntries(Object.entries(inputOf(fields)).map(([k, v]) => [k, String(v)]));
      setPreview(await api.get(`loans/${props.loanId}/reschedule-requests/preview`, { searchParams }).json<Preview>());
    } catch (error) {
      setPreview(null);
      setPreviewFailure({ ...(await errorMessageOf(error)), error });
    } finally {
      setLoading(false);
    }
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setPreviewFailure(null);
    const body = { ...inputOf(fields), ...(fields.reason.trim() ? { reason: fields.reason.trim() } : {}) };
    if (await command.run(`loans/${props.loanId}/reschedule-requests`, body)) {
      setDone(true);
      window.location.reload();
    }
  };
  if (!props.installments.length) return <Text color="fg.muted">{t(props, 'noInstallment')}</Text>;
  return (
    <Box asChild bg="bg" borderWidth="1px" borderColor="border" borderRadius="l3" p="5">
      <form onSubmit={submit} noValidate aria-label={t(props, 'formTitle')}>
        <Text fontWeight="semibold" mb="1">
          {t(props, 'formTitle')}
        </Text>
        <Text color="fg.muted" mb="3">
          {t(props, 'intro')}
        </Text>
        <HStack align="start" gap="3" wrap="wrap">
          <Field.Root maxW="260px" required invalid={invalid('rescheduleFromDate')}>
            <Field.Label>{t(props, 'fromDate')}</Field.Label>
            <NativeSelect.Root>
              <NativeSelect.Field
                name="rescheduleFromDate"
                value={fields.rescheduleFromDate}
                onChange={set('rescheduleFromDate')}
              >
                {props.installments.map((i) => (
                  <option key={i.number} value={i.dueDate}>
                    {t(props, 'installmentOption', { number: i.number, date: formatDate(i.dueDate, props.language) })}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Field.Root>
          <Field.Root maxW="220px" invalid={invalid('newInterestRate')}>
            <Field.Label>{t(props, 'newRate')}</Field.Label>
            <Input
              name="newInterestRate"
              inputMode="decimal"
              value={fields.newInterestRate}
              onChange={set('newInterestRate')}
            />
            <Field.HelperText>{t(props, 'newRateHelp')}</Field.HelperText>
          </Field.Root>
          <Field.Root maxW="240px" invalid={invalid('adjustedDueDate')}>
            <Field.Label>{t(props, 'adjustedDueDate')}</Field.Label>
            <Input
              type="date"
              name="adjustedDueDate"
              min={fields.rescheduleFromDate}
              value={fields.adjustedDueDate}
              onChange={set('adjustedDueDate')}
            />
            <Field.HelperText>{t(props, 'adjustedDueDateHelp')}</Field.HelperText>
          </Field.Root>
        </HStack>
        <HStack align="start" gap="3" wrap="wrap" mt="3">
          {(['extraTerms', 'graceOnPrincipal', 'graceOnInterest'] as const).map((k) => (
            <Field.Root key={k} maxW="220px" invalid={invalid(k)}>
              <Field.Label>{t(props, k)}</Field.Label>
              <Input name={k} type="number" min={0} max={120} step={1} value={fields[k]} onChange={set(k)} />
            </Field.Root>
          ))}
        </HStack>
        <Field.Root mt="3" maxW="520px">
          <Field.Label>{t(props, 'reason')}</Field.Label>
          <Textarea name="reason" maxLength={500} rows={2} value={fields.reason} onChange={set('reason')} />
        </Field.Root>
        <HStack gap="3" mt="4" wrap="wrap">
          <Button type="button" variant="outline" loading={loading} onClick={() => void showPreview()}>
            {t(props, 'preview')}
          </Button>
          <Button type="submit" colorPalette="brand" loading={command.busy}>
            {t(props, 'submit')}
          </Button>
        </HStack>
        {failure ? (
          <Box mt="3">
            <ErrorAlert
              status={failure.status}
              message={failure.message}
              error={failure.error}
              module="LoanReschedules"
            />
          </Box>
        ) : null}
        {done ? (
          <Text role="status" color="fg.success" mt="2">
            {t(props, 'submitted')}
          </Text>
        ) : null}
        {preview ? <Comparison props={props} preview={preview} /> : null}
      </form>
    </Box>
  );
}

function changesOf(props: Props, r: RescheduleRequestJson): string {
  const parts: string[] = [];
  if (r.newInterestRate !== null) parts.push(t(props, 'change.rate', { value: r.newInterestRate }));
  if (r.adjustedDueDate)
    parts.push(t(props, 'change.dueDate', { value: formatDate(r.adjustedDueDate, props.language) }));
  if (r.extraTerms) parts.push(t(props, 'change.extraTerms', { value: r.extraTerms }));
  if (r.graceOnPrincipal) parts.push(t(props, 'change.graceOnPrincipal', { value: r.graceOnPrincipal }));
  if (r.graceOnInterest) parts.push(t(props, 'change.graceOnInterest', { value: r.graceOnInterest }));
  return parts.join(' · ');
}

function Decision({ props, request }: { props: Props; request: RescheduleRequestJson }) {
  const command = useCommand<unknown>();
  const [note, setNote] = useState('');
  const [outcome, setOutcome] = useState<'approved' | 'rejected' | null>(null);
  const own = request.submittedBy === props.userId;
  const decide = async (action: 'approve' | 'reject') => {
    const body = note.trim() ? { note: note.trim() } : {};
    if (await command.run(`loans/${props.loanId}/reschedule-requests/${request.id}/${action}`, body)) {
      setOutcome(action === 'approve' ? 'approved' : 'rejected');
      window.location.reload();
    }
  };
  const mayApprove = props.can.approve && !own;
  if (!mayApprove && !props.can.reject) return null;
  return (
    <Stack gap="2" mt="2">
      {own && props.can.approve ? <Text color="fg.muted">{t(props, 'ownRequest')}</Text> : null}
      <Field.Root maxW="420px">
        <Field.Label>{t(props, 'note')}</Field.Label>
        <Input value={note} maxLength={500} onChange={(e) => setNote(e.target.value)} />
      </Field.Root>
      <HStack gap="3">
        {mayApprove ? (
          <Button colorPalette="brand" loading={command.busy} onClick={() => void decide('approve')}>
            {t(props, 'approve')}
          </Button>
        ) : null}
        {props.can.reject ? (
          <Button variant="outline" colorPalette="red" loading={command.busy} onClick={() => void decide('reject')}>
            {t(props, 'reject')}
          </Button>
        ) : null}
      </HStack>
      {outcome ? (
        <Text role="status" color="fg.success">
          {t(props, outcome)}
        </Text>
      ) : null}
      <CommandFailure failure={command.failure} module="LoanReschedules" />
    </Stack>
  );
}

function Reschedules(props: Props) {
  const [open, setOpen] = useState(false);
  return (
    <Stack gap="4" mt="8">
      <h2>{t(props, 'requests')}</h2>
      {props.requests.length === 0 ? (
        <Text color="fg.muted">{t(props, 'noRequests')}</Text>
      ) : (
        <Stack gap="3" as="ul" listStyleType="none" p="0" m="0" aria-label={t(props, 'requests')}>
          {props.requests.map((r) => (
            <Box
              as="li"
              key={r.id}
              data-request-status={r.status}
              borderWidth="1px"
              borderColor="border"
              borderRadius="l2"
              p="3"
            >
              <HStack gap="3" wrap="wrap">
                <Text fontWeight="semibold">
                  {t(props, 'requestSummary', { date: formatDate(r.rescheduleFromDate, props.language) })}
                </Text>
                <span
                  className={`badge badge--${r.status === 'submitted' ? 'due' : r.status === 'approved' ? 'paid' : 'overdue'}`}
                >
                  {t(props, `statuses.${r.status}`)}
                </span>
              </HStack>
              <Text>
                {t(props, 'changes')}: {changesOf(props, r)}
              </Text>
              {r.reason ? <Text color="fg.muted">{r.reason}</Text> : null}
              <Text color="fg.muted" fontSize="sm">
                {t(props, 'submittedBy')}: {r.submittedBy} · {formatDate(r.submittedOn, props.language)}
                {r.decidedBy && r.decidedOn
                  ? ` — ${t(props, 'decidedBy')}: ${r.decidedBy} · ${formatDate(r.decidedOn, props.language)}`
                  : ''}
              </Text>
              {r.status === 'submitted' ? (
                <Suspense fallback={<Text role="status">{label(props.labels, 'common.loading')}</Text>}>
                  <Decision props={props} request={r} />
                </Suspense>
              ) : null}
            </Box>
          ))}
        </Stack>
      )}
      {props.can.submit && !props.requests.some((r) => r.status === 'submitted') ? (
        <Stack gap="3">
          <HStack>
            <Button variant="outline" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
              {t(props, 'open')}
            </Button>
          </HStack>
          {open ? (
            <Suspense fallback={<Text role="status">{label(props.labels, 'common.loading')}</Text>}>
              <RescheduleForm props={props} />
            </Suspense>
          ) : null}
        </Stack>
      ) : null}
    </Stack>
  );
}

export default function LoanReschedules(props: Props) {
  return (
    <IslandProvider language={props.language} module="LoanReschedules">
      <Reschedules {...props} />
    </IslandProvider>
  );
}
