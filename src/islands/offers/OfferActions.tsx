import { Box, Button, Dialog, Field, HStack, Input, Portal, RadioGroup, Stack, Table, Text, Textarea } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { CircleHelp, Ellipsis, Frown, Mail, Meh, Phone, Smile, Users, type LucideIcon } from 'lucide-react';
import type { Language } from '../../lib/i18n/index.ts';
import type { FormDefinition } from '../../lib/tenancy/config.ts';
import { missingFields, submittedValues, visibleFields, type FormValues } from '../../lib/offers-ui/notify-form.ts';
import { api, errorMessageOf } from '../lib/api.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { IslandProvider } from '../ui/provider.tsx';
import { label, type Labels } from '../loans/labels.ts';
import type { Failure } from '../loans/use-command.ts';
import { formatMinorPlain, parseAmount } from '../../lib/money/parse.ts';
import { validationMessage } from '../../lib/errors/messages.ts';

type Props = {
  language: Language;
  offerId: string;
  code: string;
  /** Actions shown: permission held AND allowed by the offer's lifecycle now. */
  can: { notify: boolean; reject: boolean; request: boolean; simulate: boolean; copyCode: boolean; print: boolean };
  form: FormDefinition;
  limits: { minPrincipal: string; maxPrincipal: string; minRepayments: number; maxRepayments: number };
  principal: string;
  numberOfRepayments: number;
  baseTerms: Record<string, unknown>;
  requestHref: string;
  printHref: string;
  labels: Labels;
};

/** The notify form's option icons (named imports: only these ship, not the whole set). */
const ICONS: Record<string, LucideIcon> = {
  message: Mail, 'phone-call': Phone, 'in-person': Users, other: Ellipsis, uninterested: Frown, neutral: Meh, interested: Smile, unknown: CircleHelp,
};

function OptionIcon({ name }: { name: string }) {
  const Icon = ICONS[name];
  return Icon ? <Icon size={16} aria-hidden="true" focusable="false" /> : null;
}

function NotifyDialog({ offerId, form, labels, onClose }: { offerId: string; form: FormDefinition; labels: Labels; onClose: () => void }) {
  const [values, setValues] = useState<FormValues>({});
  const [missing, setMissing] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const fieldLabel = (name: string, fallback: string) => { const text = label(labels, `notifyForm.${name}`); return text === `notifyForm.${name}` ? fallback : text; };
  const optionLabel = (value: string, fallback: string) => { const text = label(labels, `notifyForm.options.${value}`); return text.startsWith('notifyForm.') ? fallback : text; };
  const set = (name: string, value: string) => {
    const next = { ...values, [name]: value };
    setValues(next);
    if (missing.length) setMissing(missingFields(form, next));
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const stillMissing = missingFields(form, values);
    setMissing(stillMissing);
    if (stillMissing.length) return;
    setBusy(true);
    setFailure(null);
    try {
      await api.post(`offers/${offerId}/notify`, { json: submittedValues(form, values) }).json();
      window.location.reload();
    } catch (error) {
      setFailure({ ...(await errorMessageOf(error)), error });
      setBusy(false);
    }
  };
  return (
    <Dialog.Root open onOpenChange={(e) => { if (!e.open) onClose(); }} size="md">
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content aria-label={label(labels, 'offer.notifyTitle')}>
          <form onSubmit={submit} noValidate>
            <Dialog.Header><Dialog.Title>{label(labels, 'offer.notifyTitle')}</Dialog.Title></Dialog.Header>
            <Dialog.Body>
              <Stack gap="4">
                {visibleFields(form, values).map((field) => {
                  const text = fieldLabel(field.name, field.label);
                  const isMissing = missing.includes(field.name);
                  const error = isMissing ? <Field.ErrorText>{label(labels, 'common.required', { field: text })}</Field.ErrorText> : null;
                  if (field.type === 'textarea' || field.type === 'text') {
                    return (
                      <Field.Root key={field.name} required={field.required} invalid={isMissing}>
                        <Field.Label>{text}</Field.Label>
                        {field.type === 'textarea'
                          ? <Textarea name={field.name} rows={field.rows ?? 4} maxLength={2000} value={values[field.name] ?? ''} onChange={(e) => set(field.name, e.target.value)} />
                          : <Input name={field.name} maxLength={500} value={values[field.name] ?? ''} onChange={(e) => set(field.name, e.target.value)} />}
                        {error}
                      </Field.Root>
                    );
                  }
                  return (
                    <Field.Root key={field.name} required={field.required} invalid={isMissing}>
                      <Field.Label id={`notify-${field.name}`}>{text}</Field.Label>
                      <RadioGroup.Root name={field.name} value={values[field.name] ?? null} onValueChange={(e) => set(field.name, e.value ?? '')} aria-labelledby={`notify-${field.name}`}>
                        <HStack gap="3" wrap="wrap">
                          {(field.options ?? []).map((option) => (
                            <RadioGroup.Item key={option.value} value={option.value} gap="2" borderWidth="1px" borderColor="border" borderRadius="l2" px="3" minH="36px" cursor="pointer" _checked={{ borderColor: 'brand.focusRing', bg: 'brand.subtle' }}>
                              <RadioGroup.ItemHiddenInput />
                              <RadioGroup.ItemIndicator />
                              {option.icon ? <OptionIcon name={option.icon} /> : null}
                              <RadioGroup.ItemText>{optionLabel(option.value, option.label)}</RadioGroup.ItemText>
                            </RadioGroup.Item>
                          ))}
                        </HStack>
                      </RadioGroup.Root>
                      {error}
                    </Field.Root>
                  );
                })}
                {failure ? <ErrorAlert status={failure.status} message={failure.message} error={failure.error} module="OfferActions" /> : null}
              </Stack>
            </Dialog.Body>
            <Dialog.Footer>
              <Button variant="outline" colorPalette="gray" onClick={onClose}>{label(labels, 'common.cancel')}</Button>
              <Button type="submit" colorPalette="brand" loading={busy}>{label(labels, 'common.save')}</Button>
            </Dialog.Footer>
          </form>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}

function RejectDialog({ offerId, labels, onClose }: { offerId: string; labels: Labels; onClose: () => void }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [isMissing, setMissing] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!reason.trim()) { setMissing(true); return; }
    setBusy(true);
    try {
      await api.post(`offers/${offerId}/reject`, { json: { reason: reason.trim() } }).json();
      window.location.reload();
    } catch (error) {
      setFailure({ ...(await errorMessageOf(error)), error });
      setBusy(false);
    }
  };
  return (
    <Dialog.Root open onOpenChange={(e) => { if (!e.open) onClose(); }}>
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content>
          <form onSubmit={submit} noValidate>
            <Dialog.Header><Dialog.Title>{label(labels, 'offer.rejectTitle')}</Dialog.Title></Dialog.Header>
            <Dialog.Body>
              <Field.Root required invalid={isMissing}>
                <Field.Label>{label(labels, 'offer.reason')}</Field.Label>
                <Textarea rows={3} maxLength={1000} value={reason} onChange={(e) => { setReason(e.target.value); setMissing(false); }} />
                {isMissing ? <Field.ErrorText>{label(labels, 'common.required', { field: label(labels, 'offer.reason') })}</Field.ErrorText> : null}
              </Field.Root>
              {failure ? <ErrorAlert status={failure.status} message={failure.message} error={failure.error} module="OfferActions" /> : null}
            </Dialog.Body>
            <Dialog.Footer>
              <Button variant="outline" colorPalette="gray" onClick={onClose}>{label(labels, 'common.cancel')}</Button>
              <Button type="submit" colorPalette="red" loading={busy}>{label(labels, 'offer.actions.reject')}</Button>
            </Dialog.Footer>
          </form>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}

type Preview = { currency: string; installments: { number: number; dueDate: string; principal: string; interest: string; fees: string; total: string; balance: string }[]; totals: { principal: string; interest: string; total: string } };

/** Decimals of a product limit the server wrote ("1000.00" → 2). */
function decimalsOf(text: string): number {
  return text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
}

function Simulation({ props }: { props: Props }) {
  const { labels, limits, language } = props;
  const [amount, setAmount] = useState(props.principal);
  const [repayments, setRepayments] = useState(String(props.numberOfRepayments));
  const [invalid, setInvalid] = useState<string | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const refuse = (message: string) => { setInvalid(message); setPreview(null); };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // The product's limits, checked before asking the engine (which would accept any amount), on
    // the exact amount with the server's parser and words: never through a float.
    const digits = decimalsOf(limits.minPrincipal);
    const min = parseAmount(limits.minPrincipal, { digits });
    const max = parseAmount(limits.maxPrincipal, { digits });
    const value = parseAmount(amount, { digits, decimalComma: language === 'fr' });
    if (!value.ok) { refuse(validationMessage(language, value.problem.key, value.problem.params, 'principal')); return; }
    if ((min.ok && value.minor < min.minor) || (max.ok && value.minor > max.minor)) {
      refuse(validationMessage(language, 'money.outOfRange', { min: limits.minPrincipal, max: limits.maxPrincipal }, 'principal'));
      return;
    }
    const count = /^[0-9]{1,4}$/.test(repayments.trim()) ? Number(repayments.trim()) : Number.NaN;
    if (!Number.isInteger(count)) { refuse(validationMessage(language, 'number.whole', {}, 'numberOfRepayments')); return; }
    if (count < limits.minRepayments || count > limits.maxRepayments) {
      refuse(validationMessage(language, 'number.between', { min: limits.minRepayments, max: limits.maxRepayments }, 'numberOfRepayments'));
      return;
    }
    setInvalid(null);
    setBusy(true);
    setFailure(null);
    try {
      setPreview(await api.post('schedules/preview', { json: { ...props.baseTerms, principal: formatMinorPlain(value.minor, digits), numberOfRepayments: count } }).json<Preview>());
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
    <Box as="section" aria-label={label(labels, 'offer.simulateTitle')} bg="bg" borderWidth="1px" borderColor="border" borderRadius="l3" p="5">
      <Text fontWeight="semibold" mb="3">{label(labels, 'offer.simulateTitle')}</Text>
      <form onSubmit={submit} noValidate><HStack gap="3" align="end" wrap="wrap">
        <Field.Root maxW="220px" invalid={Boolean(invalid)}>
          <Field.Label>{label(labels, 'offer.amountWithin', { min: limits.minPrincipal, max: limits.maxPrincipal })}</Field.Label>
          <Input name="principal" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />
        </Field.Root>
        <Field.Root maxW="220px" invalid={Boolean(invalid)}>
          <Field.Label>{label(labels, 'offer.repaymentsWithin', { min: limits.minRepayments, max: limits.maxRepayments })}</Field.Label>
          <Input name="numberOfRepayments" inputMode="numeric" value={repayments} onChange={(e) => setRepayments(e.target.value)} />
        </Field.Root>
        <Button type="submit" colorPalette="brand" loading={busy}>{label(labels, 'offer.calculate')}</Button>
      </HStack></form>
      {invalid ? <Text role="alert" color="fg.error" mt="2">{invalid}</Text> : null}
      {failure ? <ErrorAlert status={failure.status} message={failure.message} error={failure.error} module="OfferActions" /> : null}
      {preview ? (
        <Table.ScrollArea mt="4"><Table.Root size="sm" aria-label={s('title')}>
          <Table.Header>
            <Table.Row>
              {['number', 'dueDate', 'principal', 'interest', 'fees', 'total', 'balance'].map((k) => <Table.ColumnHeader key={k}>{s(k)}</Table.ColumnHeader>)}
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {preview.installments.map((i) => (
              <Table.Row key={i.number}>
                <Table.Cell>{i.number}</Table.Cell><Table.Cell>{i.dueDate}</Table.Cell><Table.Cell>{i.principal}</Table.Cell>
                <Table.Cell>{i.interest}</Table.Cell><Table.Cell>{i.fees}</Table.Cell><Table.Cell>{i.total}</Table.Cell><Table.Cell>{i.balance}</Table.Cell>
              </Table.Row>
            ))}
            <Table.Row fontWeight="semibold">
              <Table.Cell colSpan={2}>{s('totals')}</Table.Cell><Table.Cell>{preview.totals.principal}</Table.Cell><Table.Cell>{preview.totals.interest}</Table.Cell>
              <Table.Cell /><Table.Cell data-testid="simulation-total">{preview.totals.total} {preview.currency}</Table.Cell><Table.Cell />
            </Table.Row>
          </Table.Body>
        </Table.Root></Table.ScrollArea>
      ) : null}
    </Box>
  );
}

function Actions(props: Props) {
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
        {can.notify ? <Button colorPalette="brand" onClick={() => setDialog('notify')}>{label(labels, 'offer.actions.notify')}</Button> : null}
        {can.request ? <Button asChild colorPalette="gray" variant="outline"><a href={props.requestHref}>{label(labels, 'offer.actions.request')}</a></Button> : null}
        {can.simulate ? <Button variant="outline" colorPalette="gray" onClick={() => setShowSimulation((v) => !v)} aria-expanded={showSimulation}>{label(labels, 'offer.actions.simulate')}</Button> : null}
        {can.copyCode ? <Button variant="outline" colorPalette="gray" onClick={copy}>{label(labels, 'offer.actions.copyCode')}</Button> : null}
        {can.print ? <Button asChild variant="outline" colorPalette="gray"><a href={props.printHref} target="_blank" rel="noopener">{label(labels, 'offer.actions.print')}</a></Button> : null}
        {can.reject ? <Button colorPalette="red" variant="outline" onClick={() => setDialog('reject')}>{label(labels, 'offer.actions.reject')}</Button> : null}
      </HStack>
      {notice ? <Text role="status">{notice}</Text> : null}
      {showSimulation ? <Simulation props={props} /> : null}
      {dialog === 'notify' ? <NotifyDialog offerId={props.offerId} form={props.form} labels={labels} onClose={() => setDialog(null)} /> : null}
      {dialog === 'reject' ? <RejectDialog offerId={props.offerId} labels={labels} onClose={() => setDialog(null)} /> : null}
    </Stack>
  );
}

export default function OfferActions(props: Props) {
  return (
    <IslandProvider language={props.language} module="OfferActions">
      <Actions {...props} />
    </IslandProvider>
  );
}
