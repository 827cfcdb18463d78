import { Button, Dialog, Field, HStack, Input, Portal, RadioGroup, Stack, Textarea } from '@chakra-ui/react';
import { useState, type FormEvent } from 'react';
import { CircleHelp, Ellipsis, Frown, Mail, Meh, Phone, Smile, Users, type LucideIcon } from 'lucide-react';
import type { Language } from '#lib/i18n/index.ts';
import { textOf, type FormDocument } from '#lib/forms/document.ts';
import { isRequired } from '#lib/forms/fields.ts';
import { missingFields, shownFields, submittedValues, type FormValues } from '#lib/offers-ui/notify-form.ts';
import { api, errorMessageOf } from '../lib/api.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { label, type Labels } from '../loans/labels.ts';
import type { Failure } from '../loans/use-command.ts';

/**
 * The offer page's two dialogs (notify the customer, reject the offer). OfferActions imports this
 * module when a dialog first opens: the dialog machinery (focus trap, dismissal, radio groups) is
 * most of the island's weight, and most visits never open one.
 */

/** The notify form's option icons (named imports: only these ship, not the whole set). */
const ICONS: Record<string, LucideIcon> = {
  message: Mail,
  'phone-call': Phone,
  'in-person': Users,
  other: Ellipsis,
  uninterested: Frown,
  neutral: Meh,
  interested: Smile,
  unknown: CircleHelp,
};

function OptionIcon({ name }: { name: string }) {
  const Icon = ICONS[name];
  return Icon ? <Icon size={16} aria-hidden="true" focusable="false" /> : null;
}

export function NotifyDialog({
  offerId,
  form,
  language,
  labels,
  onClose,
}: {
  offerId: string;
  form: FormDocument;
  language: Language;
  labels: Labels;
  onClose: () => void;
}) {
  const [values, setValues] = useState<FormValues>({});
  const [missing, setMissing] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
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
    <Dialog.Root
      open
      onOpenChange={(e) => {
        if (!e.open) onClose();
      }}
      size="md"
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content aria-label={label(labels, 'offer.notifyTitle')}>
            <form onSubmit={submit} noValidate>
              <Dialog.Header>
                <Dialog.Title>{label(labels, 'offer.notifyTitle')}</Dialog.Title>
              </Dialog.Header>
              <Dialog.Body>
                <Stack gap="4">
                  {shownFields(form, values).map((name) => {
                    const field = form.ui.fields[name];
                    const text = textOf(field.label, language);
                    const required = isRequired(form, name);
                    const maxLength = form.schema.properties[name]?.maxLength;
                    const isMissing = missing.includes(name);
                    const error = isMissing ? (
                      <Field.ErrorText>{label(labels, 'common.required', { field: text })}</Field.ErrorText>
                    ) : null;
                    if (field.widget === 'textarea' || field.widget === 'text') {
                      return (
                        <Field.Root key={name} required={required} invalid={isMissing}>
                          <Field.Label>{text}</Field.Label>
                          {field.widget === 'textarea' ? (
                            <Textarea
                              name={name}
                              rows={field.rows ?? 4}
                              maxLength={maxLength ?? 2000}
                              value={values[name] ?? ''}
                              onChange={(e) => set(name, e.target.value)}
                            />
                          ) : (
                            <Input
                              name={name}
                              maxLength={maxLength ?? 500}
                              value={values[name] ?? ''}
                              onChange={(e) => set(name, e.target.value)}
                            />
                          )}
                          {error}
                        </Field.Root>
                      );
                    }
                    return (
                      <Field.Root key={name} required={required} invalid={isMissing}>
                        <Field.Label id={`notify-${name}`}>{text}</Field.Label>
                        <RadioGroup.Root
                          name={name}
                          value={values[name] ?? null}
                          onValueChange={(e) => set(name, e.value ?? '')}
                          aria-labelledby={`notify-${name}`}
                        >
                          <HStack gap="3" wrap="wrap">
                            {(field.options ?? []).map((option) => (
                              <RadioGroup.Item
                                key={option.value}
                                value={option.value}
                                gap="2"
                                borderWidth="1px"
                                borderColor="border"
                                borderRadius="l2"
                                px="3"
                                minH="36px"
                                cursor="pointer"
                                _checked={{ borderColor: 'brand.focusRing', bg: 'brand.subtle' }}
                              >
                                <RadioGroup.ItemHiddenInput />
                                <RadioGroup.ItemIndicator />
                                {option.icon ? <OptionIcon name={option.icon} /> : null}
                                <RadioGroup.ItemText>{textOf(option.label, language)}</RadioGroup.ItemText>
                              </RadioGroup.Item>
                            ))}
                          </HStack>
                        </RadioGroup.Root>
                        {error}
                      </Field.Root>
                    );
                  })}
                  {failure ? (
                    <ErrorAlert
                      status={failure.status}
                      message={failure.message}
                      error={failure.error}
                      module="OfferActions"
                    />
                  ) : null}
                </Stack>
              </Dialog.Body>
              <Dialog.Footer>
                <Button variant="outline" colorPalette="gray" onClick={onClose}>
                  {label(labels, 'common.cancel')}
                </Button>
                <Button type="submit" colorPalette="brand" loading={busy}>
                  {label(labels, 'common.save')}
                </Button>
              </Dialog.Footer>
            </form>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}

export function RejectDialog({ offerId, labels, onClose }: { offerId: string; labels: Labels; onClose: () => void }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [isMissing, setMissing] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!reason.trim()) {
      setMissing(true);
      return;
    }
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
    <Dialog.Root
      open
      onOpenChange={(e) => {
        if (!e.open) onClose();
      }}
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content>
            <form onSubmit={submit} noValidate>
              <Dialog.Header>
                <Dialog.Title>{label(labels, 'offer.rejectTitle')}</Dialog.Title>
              </Dialog.Header>
              <Dialog.Body>
                <Field.Root required invalid={isMissing}>
                  <Field.Label>{label(labels, 'offer.reason')}</Field.Label>
                  <Textarea
                    rows={3}
                    maxLength={1000}
                    value={reason}
                    onChange={(e) => {
                      setReason(e.target.value);
                      setMissing(false);
                    }}
                  />
                  {isMissing ? (
                    <Field.ErrorText>
                      {label(labels, 'common.required', { field: label(labels, 'offer.reason') })}
                    </Field.ErrorText>
                  ) : null}
                </Field.Root>
                {failure ? (
                  <ErrorAlert
                    status={failure.status}
                    message={failure.message}
                    error={failure.error}
                    module="OfferActions"
                  />
                ) : null}
              </Dialog.Body>
              <Dialog.Footer>
                <Button variant="outline" colorPalette="gray" onClick={onClose}>
                  {label(labels, 'common.cancel')}
                </Button>
                <Button type="submit" colorPalette="red" loading={busy}>
                  {label(labels, 'offer.actions.reject')}
                </Button>
              </Dialog.Footer>
            </form>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
