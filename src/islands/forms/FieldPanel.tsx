import { Box, Button, Field, HStack, Input, NativeSelect, Stack, Text, Textarea } from '@chakra-ui/react';
import { Plus, Trash2 } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import {
  BINDINGS,
  CHOICE_WIDGETS,
  MAX_UPLOAD_BYTES,
  OPTION_ICONS,
  UPLOAD_TYPES,
  textOf,
  type Binding,
  type FieldUi,
  type FormDocument,
  type FormOption,
  type Localized,
} from '#lib/forms/document.ts';
import { isRequired, withRequired } from '#lib/forms/fields.ts';
import { label, type Labels } from '../loans/labels.ts';
import { controllersFor, nameProblem, rulesOf, setFieldUi, setRule, withText } from './doc-edit.ts';

type Props = {
  doc: FormDocument;
  name: string;
  /** Application forms bind answers; customized fields do not. */
  bindings: boolean;
  labels: Labels;
  language: string;
  onChange: (doc: FormDocument) => void;
  onRename: (to: string) => void;
};

function TextPair({
  idBase,
  value,
  labelEn,
  labelFr,
  optional,
  multiline,
  onChange,
}: {
  idBase: string;
  value: Localized | undefined;
  labelEn: string;
  labelFr: string;
  optional: boolean;
  multiline?: boolean;
  onChange: (next: Localized | undefined) => void;
}) {
  const Control = multiline ? Textarea : Input;
  return (
    <HStack gap="3" align="start" flexWrap="wrap">
      {(['en', 'fr'] as const).map((lang) => (
        <Field.Root key={lang} flex="1" minW="220px">
          <Field.Label htmlFor={`${idBase}-${lang}`}>{lang === 'en' ? labelEn : labelFr}</Field.Label>
          <Control
            id={`${idBase}-${lang}`}
            size="sm"
            maxLength={4000}
            value={(lang === 'en' ? value?.en : value?.fr) ?? ''}
            onChange={(e: { target: { value: string } }) => onChange(withText(value, lang, e.target.value, optional))}
          />
        </Field.Root>
      ))}
    </HStack>
  );
}

/** A binding's words (its key has dots, so it is read directly rather than as a path). */
export function bindingLabel(labels: Labels, binding: string): string {
  const node = (labels.bindings as Labels | undefined)?.[binding];
  return typeof node === 'string' ? node : binding;
}

/** The properties of one field: name, texts, required, options, rules, visibility, binding, file limits. */
export function FieldPanel({ doc, name, bindings, labels, language, onChange, onRename }: Props) {
  const l = (key: string, vars: Record<string, string | number> = {}) => label(labels, key, vars);
  const ui = doc.ui.fields[name];
  const property = doc.schema.properties[name];
  const base = `fp-${useId().replace(/:/g, '')}`;
  const [nameDraft, setNameDraft] = useState(name);
  useEffect(() => setNameDraft(name), [name]);
  if (!ui || !property) return null;
  const patch = (p: Partial<FieldUi>) => onChange(setFieldUi(doc, name, p));
  const problem = nameProblem(doc, name, nameDraft.trim());
  const commitName = () => {
    const to = nameDraft.trim();
    if (!problem && to !== name) onRename(to);
  };
  const isChoice = CHOICE_WIDGETS.includes(ui.widget);
  const options = ui.options ?? [];
  const setOption = (index: number, next: FormOption) =>
    patch({ options: options.map((o, i) => (i === index ? next : o)) });
  const controllers = controllersFor(doc, name);
  const rule = ui.visibleWhen;
  const controllerUi = rule ? doc.ui.fields[rule.field] : undefined;
  const fieldName = (n: string) => textOf(doc.ui.fields[n]?.label, language) || n;

  return (
    <Stack gap="4" p="4" borderWidth="1px" borderRadius="md" bg="bg.subtle" data-testid={`field-panel-${name}`}>
      <Field.Root invalid={!!problem} maxW="360px">
        <Field.Label htmlFor={`${base}-name`}>{l('field.name')}</Field.Label>
        <Input
          id={`${base}-name`}
          size="sm"
          value={nameDraft}
          maxLength={64}
          onChange={(e) => setNameDraft(e.target.value)}
          onBlur={commitName}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              commitName();
            }
          }}
        />
        {problem ? (
          <Field.ErrorText>{l(problem === 'format' ? 'field.nameFormat' : 'field.nameTaken')}</Field.ErrorText>
        ) : null}
      </Field.Root>

      <TextPair
        idBase={`${base}-label`}
        value={ui.label}
        labelEn={l('field.labelEn')}
        labelFr={l('field.labelFr')}
        optional={false}
        onChange={(next) => patch({ label: next ?? { en: '' } })}
      />
      <TextPair
        idBase={`${base}-help`}
        value={ui.help}
        labelEn={l('field.helpEn')}
        labelFr={l('field.helpFr')}
        optional
        onChange={(next) => patch({ help: next })}
      />

      <label style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
        <input
          type="checkbox"
          checked={isRequired(doc, name)}
          onChange={(e) => onChange(withRequired(doc, name, e.target.checked))}
        />
        {l('field.required')}
      </label>

      {ui.widget === 'consent' ? (
        <TextPair
          idBase={`${base}-consent`}
          value={ui.consentText}
          labelEn={l('field.consentEn')}
          labelFr={l('field.consentFr')}
          optional={false}
          multiline
          onChange={(next) => patch({ consentText: next ?? { en: '' } })}
        />
      ) : null}

      {ui.widget === 'textarea' ? (
        <Field.Root maxW="160px">
          <Field.Label htmlFor={`${base}-rows`}>{l('field.rows')}</Field.Label>
          <Input
            id={`${base}-rows`}
            size="sm"
            type="number"
            min={1}
            max={20}
            value={ui.rows ?? ''}
            onChange={(e) => patch({ rows: e.target.value === '' ? undefined : Number(e.target.value) })}
          />
        </Field.Root>
      ) : null}

      {isChoice ? (
        <Box as="fieldset">
          <Text as="legend" fontWeight="semibold" mb="2">
            {l('field.options')}
          </Text>
          <Stack gap="2">
            {options.map((option, index) => (
              <HStack key={index} gap="2" align="end" flexWrap="wrap" data-testid={`option-${index}`}>
                <Field.Root w="140px">
                  <Field.Label htmlFor={`${base}-opt-${index}-value`}>{l('field.optionValue')}</Field.Label>
                  <Input
                    id={`${base}-opt-${index}-value`}
                    size="sm"
                    maxLength={120}
                    value={option.value}
                    onChange={(e) => setOption(index, { ...option, value: e.target.value })}
                  />
                </Field.Root>
                {(['en', 'fr'] as const).map((lang) => (
                  <Field.Root key={lang} flex="1" minW="140px">
                    <Field.Label htmlFor={`${base}-opt-${index}-${lang}`}>
                      {l(lang === 'en' ? 'field.optionEn' : 'field.optionFr')}
                    </Field.Label>
                    <Input
                      id={`${base}-opt-${index}-${lang}`}
                      size="sm"
                      maxLength={4000}
                      value={(lang === 'en' ? option.label.en : option.label.fr) ?? ''}
                      onChange={(e) =>
                        setOption(index, { ...option, label: withText(option.label, lang, e.target.value, false)! })
                      }
                    />
                  </Field.Root>
                ))}
                {ui.widget === 'icon_radio' ? (
                  <Field.Root w="150px">
                    <Field.Label htmlFor={`${base}-opt-${index}-icon`}>{l('field.optionIcon')}</Field.Label>
                    <NativeSelect.Root size="sm">
                      <NativeSelect.Field
                        id={`${base}-opt-${index}-icon`}
                        value={option.icon ?? ''}
                        onChange={(e) => {
                          const next = { ...option };
                          if (e.target.value) next.icon = e.target.value as FormOption['icon'];
                          else delete next.icon;
                          setOption(index, next);
                        }}
                      >
                        <option value="">{l('field.noIcon')}</option>
                        {OPTION_ICONS.map((icon) => (
                          <option key={icon} value={icon}>
                            {icon}
                          </option>
                        ))}
                      </NativeSelect.Field>
                      <NativeSelect.Indicator />
                    </NativeSelect.Root>
                  </Field.Root>
                ) : null}
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={l('field.removeOption', { value: option.value })}
                  onClick={() => patch({ options: options.filter((_, i) => i !== index) })}
                >
                  <Trash2 />
                </Button>
              </HStack>
            ))}
            <Box>
              <Button
                size="sm"
                variant="outline"
                onClick={() => {
                  let n = options.length + 1;
                  while (options.some((o) => o.value === `option_${n}`)) n += 1;
                  patch({
                    options: [...options, { value: `option_${n}`, label: { en: `Option ${n}`, fr: `Option ${n}` } }],
                  });
                }}
              >
                <Plus /> {l('field.addOption')}
              </Button>
            </Box>
          </Stack>
        </Box>
      ) : null}

      {ui.widget === 'file' ? (
        <HStack gap="6" align="start" flexWrap="wrap">
          <Box as="fieldset">
            <Text as="legend" fontWeight="semibold">
              {l('field.accept')}
            </Text>
            {UPLOAD_TYPES.map((type) => (
              <label key={type} style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
                <input
                  type="checkbox"
                  checked={(ui.accept ?? []).includes(type)}
                  onChange={(e) => {
                    const accept = UPLOAD_TYPES.filter((x) =>
                      x === type ? e.target.checked : (ui.accept ?? []).includes(x),
                    );
                    patch({ accept: accept.length ? accept : undefined });
                  }}
                />
                {type}
              </label>
            ))}
          </Box>
          <Field.Root maxW="200px">
            <Field.Label htmlFor={`${base}-mb`}>{l('field.maxMb')}</Field.Label>
            <Input
              id={`${base}-mb`}
              size="sm"
              type="number"
              min={0.1}
              step={0.1}
              max={MAX_UPLOAD_BYTES / 1024 / 1024}
              value={ui.maxBytes ? Math.round((ui.maxBytes / 1024 / 1024) * 10) / 10 : ''}
              onChange={(e) => {
                const mb = Number(e.target.value);
                patch({ maxBytes: e.target.value === '' || !(mb > 0) ? undefined : Math.round(mb * 1024 * 1024) });
              }}
            />
          </Field.Root>
        </HStack>
      ) : null}

      {rulesOf(ui.widget).length ? (
        <Box as="fieldset">
          <Text as="legend" fontWeight="semibold" mb="2">
            {l('field.rules')}
          </Text>
          <HStack gap="3" flexWrap="wrap" align="start">
            {rulesOf(ui.widget).map((key) => {
              const numeric = key === 'minLength' || key === 'maxLength' || key === 'minimum' || key === 'maximum';
              const current = (property as Record<string, unknown>)[key];
              return (
                <Field.Root key={key} w={key === 'pattern' ? '280px' : '170px'}>
                  <Field.Label htmlFor={`${base}-rule-${key}`}>{l(`rules.${key}`)}</Field.Label>
                  <Input
                    id={`${base}-rule-${key}`}
                    size="sm"
                    type={numeric ? 'number' : key.startsWith('format') ? 'date' : 'text'}
                    inputMode={key.endsWith('Amount') ? 'decimal' : undefined}
                    value={current === undefined ? '' : String(current)}
                    onChange={(e) => {
                      const raw = e.target.value;
                      const value = raw === '' ? undefined : numeric ? Number(raw) : raw;
                      onChange(setRule(doc, name, key, value));
                    }}
                  />
                </Field.Root>
              );
            })}
          </HStack>
        </Box>
      ) : null}

      <Box as="fieldset">
        <Text as="legend" fontWeight="semibold" mb="2">
          {l('field.visibleWhen')}
        </Text>
        <HStack gap="3" flexWrap="wrap" align="start">
          <NativeSelect.Root size="sm" width="auto" minW="220px">
            <NativeSelect.Field
              aria-label={l('field.visibleWhen')}
              value={rule?.field ?? ''}
              onChange={(e) => {
                const field = e.target.value;
                const first = doc.ui.fields[field]?.options?.[0]?.value;
                patch({ visibleWhen: field && first ? { field, in: [first] } : undefined });
              }}
            >
              <option value="">{l('field.always')}</option>
              {(rule && !controllers.includes(rule.field) ? [rule.field, ...controllers] : controllers).map((n) => (
                <option key={n} value={n}>
                  {fieldName(n)}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
          {rule && controllerUi ? (
            <Box as="fieldset">
              <Text as="legend" fontSize="sm">
                {l('field.isOneOf')}
              </Text>
              <HStack gap="3" flexWrap="wrap">
                {(controllerUi.options ?? []).map((option) => (
                  <label key={option.value} style={{ display: 'flex', gap: 6, alignItems: 'center' }}>
                    <input
                      type="checkbox"
                      checked={rule.in.includes(option.value)}
                      onChange={(e) => {
                        const values = (controllerUi.options ?? [])
                          .map((o) => o.value)
                          .filter((v) => (v === option.value ? e.target.checked : rule.in.includes(v)));
                        if (values.length) patch({ visibleWhen: { field: rule.field, in: values } });
                      }}
                    />
                    {textOf(option.label, language)}
                  </label>
                ))}
              </HStack>
            </Box>
          ) : null}
        </HStack>
      </Box>

      {bindings ? (
        <Field.Root maxW="360px">
          <Field.Label htmlFor={`${base}-bind`}>{l('field.binding')}</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field
              id={`${base}-bind`}
              value={ui.bind ?? ''}
              onChange={(e) => patch({ bind: (e.target.value || undefined) as Binding | undefined })}
            >
              <option value="">{l('field.noBinding')}</option>
              {BINDINGS.map((b) => (
                <option key={b} value={b}>
                  {bindingLabel(labels, b)}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
      ) : null}
    </Stack>
  );
}
