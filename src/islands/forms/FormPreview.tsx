import { Box, Button, HStack, NativeSelect, Stack, Text } from '@chakra-ui/react';
import {
  Briefcase,
  Building,
  Calendar,
  Car,
  Check,
  CircleHelp,
  Ellipsis,
  Frown,
  GraduationCap,
  HeartPulse,
  House,
  Mail,
  Meh,
  Phone,
  Smile,
  User,
  Users,
  Wallet,
  type LucideIcon,
} from 'lucide-react';
import { useState } from 'react';
import { textOf, type FormDocument, type OPTION_ICONS } from '#lib/forms/document.ts';
import { isRequired, visibleNames, type Answers } from '#lib/forms/fields.ts';
import { label, type Labels } from '../loans/labels.ts';

/** The same icons as the public page's (src/components/forms/OptionIcon.astro). */
const ICONS: Record<(typeof OPTION_ICONS)[number], LucideIcon> = {
  message: Mail,
  'phone-call': Phone,
  'in-person': Users,
  other: Ellipsis,
  uninterested: Frown,
  neutral: Meh,
  interested: Smile,
  unknown: CircleHelp,
  user: User,
  briefcase: Briefcase,
  home: House,
  car: Car,
  'graduation-cap': GraduationCap,
  'heart-pulse': HeartPulse,
  wallet: Wallet,
  building: Building,
  calendar: Calendar,
  check: Check,
};

const INPUT_TYPES: Record<string, string> = {
  text: 'text',
  email: 'email',
  phone: 'tel',
  number: 'number',
  money: 'text',
  date: 'date',
};

/**
 * The draft as an applicant sees it, in a phone-sized frame (360×640): one step at a time, the same
 * visibility rules (`visibleNames`) and texts (`textOf`) as the public page, an EN/FR switch, next and
 * back. A preview: nothing is validated against the server or sent. Loaded when the editor first shows it.
 */
export default function FormPreview({
  doc,
  labels,
  language,
}: {
  doc: FormDocument;
  labels: Labels;
  language: 'en' | 'fr';
}) {
  const [lang, setLang] = useState<'en' | 'fr'>(language);
  const [stepIndex, setStepIndex] = useState(0);
  const [answers, setAnswers] = useState<Answers>({});
  const [done, setDone] = useState(false);
  const count = doc.ui.steps.length;
  const at = Math.min(stepIndex, count - 1);
  const step = doc.ui.steps[at];
  const visible = visibleNames(doc, answers);
  const set = (name: string, value: unknown) => {
    setAnswers((a) => ({ ...a, [name]: value }));
    setDone(false);
  };
  const l = (key: string, vars: Record<string, string | number> = {}) => label(labels, key, vars);

  return (
    <Stack gap="2" data-testid="form-preview">
      <HStack justify="space-between" flexWrap="wrap">
        <Text fontWeight="semibold">{l('preview')}</Text>
        <HStack gap="2">
          <label htmlFor="preview-language">{l('previewLanguage')}</label>
          <NativeSelect.Root size="sm" width="auto">
            <NativeSelect.Field
              id="preview-language"
              value={lang}
              onChange={(e) => setLang(e.target.value === 'fr' ? 'fr' : 'en')}
            >
              <option value="en">English</option>
              <option value="fr">Français</option>
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </HStack>
      </HStack>
      <Text fontSize="sm" color="fg.muted">
        {l('previewIntro')}
      </Text>
      <Box
        width="360px"
        maxWidth="100%"
        height="640px"
        overflowY="auto"
        borderWidth="8px"
        borderColor="gray.800"
        borderRadius="24px"
        bg="white"
        color="gray.900"
        p="4"
        lang={lang}
        data-testid="preview-frame"
      >
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (at < count - 1) setStepIndex(at + 1);
            else setDone(true);
          }}
          noValidate
        >
          <Text fontSize="xs" color="gray.600">
            {l('previewStep', { number: at + 1, count })}
          </Text>
          <Text as="h3" fontSize="lg" fontWeight="bold" mb="3" data-testid="preview-step-title">
            {textOf(step.title, lang)}
          </Text>
          <Stack gap="4">
            {step.fields.filter((name) => visible.has(name)).length === 0 ? <Text>{l('previewEmpty')}</Text> : null}
            {step.fields
              .filter((name) => visible.has(name) && doc.ui.fields[name] && doc.schema.properties[name])
              .map((name) => {
                const ui = doc.ui.fields[name];
                const id = `preview-${name}`;
                const required = isRequired(doc, name);
                const title = (
                  <>
                    {textOf(ui.label, lang)}
                    {required ? (
                      ' *'
                    ) : (
                      <Text as="span" color="gray.600">
                        {' '}
                        {l('previewOptional')}
                      </Text>
                    )}
                  </>
                );
                const help = ui.help ? (
                  <Text fontSize="sm" color="gray.600" id={`${id}-help`}>
                    {textOf(ui.help, lang)}
                  </Text>
                ) : null;
                const value = answers[name];
                if (ui.widget === 'radio' || ui.widget === 'icon_radio')
                  return (
                    <fieldset key={name} data-testid={`preview-field-${name}`}>
                      <legend>{title}</legend>
                      {help}
                      <Stack gap="1" mt="1">
                        {(ui.options ?? []).map((option) => {
                          const Icon = ui.widget === 'icon_radio' && option.icon ? ICONS[option.icon] : null;
                          return (
                            <label key={option.value} style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
                              <input
                                type="radio"
                                name={id}
                                value={option.value}
                                checked={value === option.value}
                                onChange={() => set(name, option.value)}
                              />
                              {Icon ? <Icon size={18} aria-hidden="true" /> : null}
                              {textOf(option.label, lang)}
                            </label>
                          );
                        })}
                      </Stack>
                    </fieldset>
                  );
                if (ui.widget === 'checkbox' || ui.widget === 'consent')
                  return (
                    <Box key={name} data-testid={`preview-field-${name}`}>
                      {ui.widget === 'consent' ? (
                        <Text fontWeight="semibold" mb="1">
                          {textOf(ui.label, lang)}
                        </Text>
                      ) : null}
                      <label style={{ display: 'flex', gap: 8, alignItems: 'flex-start' }}>
                        <input type="checkbox" checked={value === true} onChange={(e) => set(name, e.target.checked)} />
                        <span>
                          {ui.widget === 'consent' ? textOf(ui.consentText, lang) : textOf(ui.label, lang)}
                          {required ? ' *' : ''}
                        </span>
                      </label>
                      {help}
                    </Box>
                  );
                return (
                  <Stack key={name} gap="1" data-testid={`preview-field-${name}`}>
                    <label htmlFor={id}>{title}</label>
                    {help}
                    {ui.widget === 'textarea' ? (
                      <textarea
                        id={id}
                        rows={ui.rows ?? 4}
                        value={String(value ?? '')}
                        onChange={(e) => set(name, e.target.value)}
                        style={{ border: '1px solid #999', borderRadius: 4, padding: 6 }}
                      />
                    ) : ui.widget === 'select' ? (
                      <select
                        id={id}
                        value={String(value ?? '')}
                        onChange={(e) => set(name, e.target.value)}
                        style={{ border: '1px solid #999', borderRadius: 4, padding: 6 }}
                      >
                        <option value="">{l('previewChoose')}</option>
                        {(ui.options ?? []).map((option) => (
                          <option key={option.value} value={option.value}>
                            {textOf(option.label, lang)}
                          </option>
                        ))}
                      </select>
                    ) : ui.widget === 'file' ? (
                      <input id={id} type="file" accept={(ui.accept ?? []).join(',')} />
                    ) : (
                      <input
                        id={id}
                        type={INPUT_TYPES[ui.widget] ?? 'text'}
                        inputMode={ui.widget === 'money' ? 'decimal' : undefined}
                        placeholder={textOf(ui.placeholder, lang) || undefined}
                        value={String(value ?? '')}
                        onChange={(e) => set(name, e.target.value)}
                        style={{ border: '1px solid #999', borderRadius: 4, padding: 6 }}
                      />
                    )}
                  </Stack>
                );
              })}
          </Stack>
          <HStack mt="5" gap="2">
            {at > 0 ? (
              <Button type="button" variant="outline" size="sm" onClick={() => setStepIndex(at - 1)}>
                {l('previewBack')}
              </Button>
            ) : null}
            <Button type="submit" size="sm" colorPalette="brand">
              {at < count - 1 ? l('previewNext') : l('previewSubmit')}
            </Button>
          </HStack>
          {done ? (
            <Text mt="3" role="status">
              {l('previewDone')}
            </Text>
          ) : null}
        </form>
      </Box>
    </Stack>
  );
}
