import { Box, Button, Field, HStack, Heading, Input, NativeSelect, Stack, Text, Textarea } from '@chakra-ui/react';
import { useMemo, useState } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import { formOf, type FieldSpec } from '#lib/forms/build.ts';
import { formProblems, type FormProblem } from '#lib/forms/check.ts';
import {
  CHOICE_WIDGETS,
  FIELD_NAME,
  OPTION_ICONS,
  orderedFieldNames,
  textOf,
  type FormDocument,
  type FormOption,
  type Localized,
  type PropertySchema,
  type VisibleWhen,
  type Widget,
} from '#lib/forms/document.ts';
import { isRequired, visibleNames } from '#lib/forms/fields.ts';
import { createApi, errorMessageOf } from '../lib/api.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { IslandProvider } from '../ui/provider.tsx';

/**
 * The notify-customer form editor of the general-settings page. The form is a document of the one
 * form format (src/lib/forms); the editor shows it as a list of fields (name, type, question in
 * English and French, required, options, rows, "shown when <earlier field> is one of …"), rebuilds
 * the document with `formOf` on every change, checks it with the server's own `formProblems`, shows a
 * live preview, and saves it (the server also compiles the schema) (PATCH /v1/tenant-settings). Words come from the page (`settings:editor`,
 * `settings:errors` and `forms:problems`).
 */
export const NOTIFY_WIDGETS = ['icon_radio', 'radio', 'select', 'text', 'textarea'] as const;
type NotifyWidget = (typeof NOTIFY_WIDGETS)[number];

type Labels = {
  editor: Record<string, string> & { types: Record<NotifyWidget, string> };
  errors: Record<string, string>;
  problems: Record<string, string>;
};
type Props = { language: Language; form: FormDocument; labels: Labels };

/** One field as the editor holds it (the document is rebuilt from these). */
type Row = {
  name: string;
  type: NotifyWidget;
  label: Localized;
  required: boolean;
  options: FormOption[];
  rows?: number;
  visibleWhen?: VisibleWhen;
  /** The stored schema's own limits (lengths), kept while the type is unchanged. */
  schema?: Partial<PropertySchema>;
};

const api = createApi({ module: 'NotifyFormEditor' });

function fill(template: string | undefined, params: Record<string, string | number> = {}): string {
  return (template ?? '').replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(params[name] ?? ''));
}

const hasOptions = (type: Widget) => CHOICE_WIDGETS.includes(type);

function rowsOf(doc: FormDocument): Row[] {
  return orderedFieldNames(doc)
    .filter((name) => doc.ui.fields[name] && doc.schema.properties[name])
    .map((name) => {
      const ui = doc.ui.fields[name];
      const property = doc.schema.properties[name];
      const type = ((NOTIFY_WIDGETS as readonly string[]).includes(ui.widget) ? ui.widget : 'text') as NotifyWidget;
      const limits: Partial<PropertySchema> = {};
      if (property.maxLength !== undefined) limits.maxLength = property.maxLength;
      if (property.minLength !== undefined) limits.minLength = property.minLength;
      return {
        name,
        type,
        label: ui.label,
        required: isRequired(doc, name),
        options: ui.options ?? [],
        rows: ui.rows,
        visibleWhen: ui.visibleWhen,
        schema: hasOptions(type) ? undefined : limits,
      };
    });
}

/** Problems the document cannot express (a name missing, malformed or taken; an empty text). */
function rowProblems(rows: Row[]): FormProblem[] {
  const problems: FormProblem[] = [];
  if (rows.length === 0) problems.push({ path: 'fields', key: 'noFields' });
  const seen = new Set<string>();
  rows.forEach((row, index) => {
    const at = `fields[${index}]`;
    const name = row.name.trim();
    if (!name) problems.push({ path: `${at}.name`, key: 'required' });
    else if (!FIELD_NAME.test(name)) problems.push({ path: `${at}.name`, key: 'nameFormat' });
    else if (seen.has(name)) problems.push({ path: `${at}.name`, key: 'nameTaken', params: { name } });
    seen.add(name);
    if (!row.label.en.trim()) problems.push({ path: `${at}.label`, key: 'required' });
    if (hasOptions(row.type)) {
      if (row.options.length === 0) problems.push({ path: `${at}.options`, key: 'optionsRequired' });
      row.options.forEach((option, o) => {
        if (!option.value.trim()) problems.push({ path: `${at}.options[${o}].value`, key: 'required' });
        if (!option.label.en.trim()) problems.push({ path: `${at}.options[${o}].label`, key: 'required' });
      });
    }
    if (row.visibleWhen && row.visibleWhen.in.length === 0)
      problems.push({ path: `${at}.visibleWhen.in`, key: 'visibleWhenEmpty' });
  });
  return problems;
}

const localized = (text: Localized): Localized =>
  text.fr?.trim() ? { en: text.en.trim(), fr: text.fr.trim() } : { en: text.en.trim() };

/** The document the rows make (step title kept from the stored form). */
function documentOf(rows: Row[], title: Localized): FormDocument {
  const fields: FieldSpec[] = rows.map((row) => ({
    name: row.name.trim(),
    widget: row.type,
    label: localized(row.label),
    required: row.required,
    ...(row.schema && !hasOptions(row.type) ? { schema: row.schema } : {}),
    ui: {
      ...(hasOptions(row.type)
        ? {
            options: row.options.map((o) => ({
              value: o.value.trim(),
              label: localized(o.label),
              ...(o.icon && row.type === 'icon_radio' ? { icon: o.icon } : {}),
            })),
          }
        : {}),
      ...(row.type === 'textarea' && row.rows !== undefined ? { rows: row.rows } : {}),
      ...(row.visibleWhen ? { visibleWhen: row.visibleWhen } : {}),
    },
  }));
  return formOf([{ id: 'notify', title, fields }]);
}

/** Which field (index) a problem of the built document is about, from its path. */
function rowOfProblem(rows: Row[], problem: FormProblem): number {
  const match = /^(?:ui\.fields|schema\.properties)\.([^.[]+)/.exec(problem.path);
  const name = match?.[1] ?? (typeof problem.params?.name === 'string' ? problem.params.name : '');
  return rows.findIndex((row) => row.name.trim() === name);
}

function Preview({ form, language, labels }: { form: FormDocument | null; language: Language; labels: Labels }) {
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const visible = form ? orderedFieldNames(form).filter((name) => visibleNames(form, answers).has(name)) : [];
  const set = (name: string, value: string) => setAnswers((a) => ({ ...a, [name]: value }));
  return (
    <Box borderWidth="1px" borderRadius="md" p="4" data-testid="notify-preview" aria-live="polite">
      <Heading as="h3" size="sm" mb="1">
        {labels.editor.preview}
      </Heading>
      <Text mb="3" color="fg.muted">
        {labels.editor.previewIntro}
      </Text>
      {visible.length === 0 ? <Text>{labels.editor.previewEmpty}</Text> : null}
      <Stack gap="3">
        {form
          ? visible.map((name, index) => {
              const field = form.ui.fields[name];
              const id = `preview-${index}-${name}`;
              const title = `${textOf(field.label, language)}${isRequired(form, name) ? ' *' : ''}`;
              if (field.widget === 'icon_radio' || field.widget === 'radio')
                return (
                  <fieldset key={id}>
                    <legend>{title}</legend>
                    <HStack gap="3" wrap="wrap">
                      {(field.options ?? []).map((option) => (
                        <label key={option.value}>
                          <input
                            type="radio"
                            name={id}
                            value={option.value}
                            checked={answers[name] === option.value}
                            onChange={() => set(name, option.value)}
                          />{' '}
                          {textOf(option.label, language)}
                        </label>
                      ))}
                    </HStack>
                  </fieldset>
                );
              return (
                <Field.Root key={id}>
                  <Field.Label htmlFor={id}>{title}</Field.Label>
                  {field.widget === 'select' ? (
                    <NativeSelect.Root>
                      <NativeSelect.Field
                        id={id}
                        value={answers[name] ?? ''}
                        onChange={(e) => set(name, e.target.value)}
                      >
                        <option value="">{labels.editor.choose}</option>
                        {(field.options ?? []).map((option) => (
                          <option key={option.value} value={option.value}>
                            {textOf(option.label, language)}
                          </option>
                        ))}
                      </NativeSelect.Field>
                    </NativeSelect.Root>
                  ) : field.widget === 'textarea' ? (
                    <Textarea id={id} rows={field.rows ?? 4} />
                  ) : (
                    <Input id={id} />
                  )}
                </Field.Root>
              );
            })
          : null}
      </Stack>
    </Box>
  );
}

function Editor(props: Props) {
  const { labels, language } = props;
  const title = props.form.ui.steps[0]?.title ?? { en: 'Notify the customer', fr: 'Notifier le client' };
  const [rows, setRows] = useState<Row[]>(() => rowsOf(props.form));
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [failure, setFailure] = useState<{ status: number; message: string; error: unknown } | null>(null);
  const { problems, document } = useMemo(() => {
    const own = rowProblems(rows);
    if (own.length) return { problems: own, document: null };
    const doc = documentOf(rows, title);
    // Without compiling (the page's CSP refuses Ajv's generated code); the server checks fully on save.
    const found = formProblems(doc, { compile: false });
    return { problems: found, document: found.length ? null : doc };
  }, [rows, title]);
  const problemAt = (path: string): FormProblem | undefined => problems.find((p) => p.path === path);
  const say = (problem: FormProblem | undefined) =>
    problem
      ? fill(labels.errors[problem.key] ?? labels.problems[problem.key] ?? problem.key, problem.params)
      : undefined;
  /** The built document's problems about a field, in words. */
  const documentProblems = (index: number) =>
    problems.filter((p) => !p.path.startsWith('fields') && rowOfProblem(rows, p) === index).map(say);

  const update = (index: number, change: Partial<Row>) => {
    setSaved(false);
    setRows((all) => all.map((row, i) => (i === index ? { ...row, ...change } : row)));
  };
  const move = (index: number, by: -1 | 1) =>
    setRows((all) => {
      const next = [...all];
      const [taken] = next.splice(index, 1);
      next.splice(index + by, 0, taken);
      return next;
    });
  const remove = (index: number) => setRows((all) => all.filter((_, i) => i !== index));
  const add = () =>
    setRows((all) => [
      ...all,
      { name: `Field_${all.length + 1}`, type: 'text', label: { en: '' }, required: false, options: [] },
    ]);

  const save = async () => {
    if (!document) return;
    setSaving(true);
    setFailure(null);
    try {
      const body = { config: { notify_customer_modal_config: { form: document } } };
      await api.patch('tenant-settings', { json: body }).json();
      setSaved(true);
    } catch (error) {
      setFailure({ ...(await errorMessageOf(error)), error });
    } finally {
      setSaving(false);
    }
  };
  return (
    <Stack gap="4" data-testid="notify-editor">
      <HStack align="start" gap="6" wrap="wrap">
        <Stack gap="3" flex="3 1 520px" minW="0">
          {rows.map((field, index) => {
            const at = `fields[${index}]`;
            const withOptions = hasOptions(field.type);
            const earlier = rows.slice(0, index).filter((f) => hasOptions(f.type));
            const condition = field.visibleWhen;
            const conditionField = earlier.find((f) => f.name === condition?.field);
            return (
              <Box
                key={index}
                as="fieldset"
                borderWidth="1px"
                borderRadius="md"
                p="3"
                data-testid={`notify-field-${index}`}
              >
                <HStack justify="space-between" mb="2">
                  <Text as="legend" fontWeight="semibold">
                    {fill(labels.editor.field, { n: index + 1 })}
                    {field.name ? ` · ${field.name}` : ''}
                  </Text>
                  <HStack gap="1">
                    <Button size="xs" variant="outline" disabled={index === 0} onClick={() => move(index, -1)}>
                      {labels.editor.moveUp}
                    </Button>
                    <Button
                      size="xs"
                      variant="outline"
                      disabled={index === rows.length - 1}
                      onClick={() => move(index, 1)}
                    >
                      {labels.editor.moveDown}
                    </Button>
                    <Button size="xs" variant="outline" colorPalette="red" onClick={() => remove(index)}>
                      {labels.editor.removeField}
                    </Button>
                  </HStack>
                </HStack>
                <HStack gap="3" align="start" wrap="wrap">
                  <Field.Root invalid={Boolean(problemAt(`${at}.name`))} flex="1 1 160px">
                    <Field.Label>{labels.editor.name}</Field.Label>
                    <Input value={field.name} onChange={(e) => update(index, { name: e.target.value })} />
                    <Field.ErrorText>{say(problemAt(`${at}.name`))}</Field.ErrorText>
                  </Field.Root>
                  <Field.Root flex="1 1 140px">
                    <Field.Label>{labels.editor.type}</Field.Label>
                    <NativeSelect.Root>
                      <NativeSelect.Field
                        value={field.type}
                        onChange={(e) => update(index, { type: e.target.value as NotifyWidget, schema: undefined })}
                      >
                        {NOTIFY_WIDGETS.map((type) => (
                          <option key={type} value={type}>
                            {labels.editor.types[type]}
                          </option>
                        ))}
                      </NativeSelect.Field>
                    </NativeSelect.Root>
                  </Field.Root>
                  <Field.Root invalid={Boolean(problemAt(`${at}.label`))} flex="2 1 220px">
                    <Field.Label>{labels.editor.labelEn}</Field.Label>
                    <Input
                      value={field.label.en}
                      maxLength={4000}
                      onChange={(e) => update(index, { label: { ...field.label, en: e.target.value } })}
                    />
                    <Field.ErrorText>{say(problemAt(`${at}.label`))}</Field.ErrorText>
                  </Field.Root>
                  <Field.Root flex="2 1 220px">
                    <Field.Label>{labels.editor.labelFr}</Field.Label>
                    <Input
                      value={field.label.fr ?? ''}
                      maxLength={4000}
                      onChange={(e) => update(index, { label: { ...field.label, fr: e.target.value } })}
                    />
                  </Field.Root>
                </HStack>
                <HStack gap="4" mt="2" wrap="wrap">
                  <label>
                    <input
                      type="checkbox"
                      checked={field.required}
                      onChange={(e) => update(index, { required: e.target.checked })}
                    />{' '}
                    {labels.editor.required}
                  </label>
                  {field.type === 'textarea' ? (
                    <Field.Root invalid={Boolean(problemAt(`${at}.rows`))} maxW="120px">
                      <Field.Label>{labels.editor.rows}</Field.Label>
                      <Input
                        type="number"
                        min={1}
                        max={20}
                        value={field.rows ?? ''}
                        onChange={(e) =>
                          update(index, { rows: e.target.value === '' ? undefined : Number(e.target.value) })
                        }
                      />
                      <Field.ErrorText>{say(problemAt(`${at}.rows`))}</Field.ErrorText>
                    </Field.Root>
                  ) : null}
                </HStack>
                {withOptions ? (
                  <Box mt="3">
                    <Text fontWeight="semibold">{labels.editor.options}</Text>
                    {problemAt(`${at}.options`) ? (
                      <Text color="fg.error" role="alert">
                        {say(problemAt(`${at}.options`))}
                      </Text>
                    ) : null}
                    <Stack gap="2" mt="1">
                      {field.options.map((option, o) => {
                        const setOption = (change: Partial<typeof option>) =>
                          update(index, {
                            options: field.options.map((x, i) => (i === o ? { ...x, ...change } : x)),
                          });
                        const valueProblem = problemAt(`${at}.options[${o}].value`);
                        const labelProblem = problemAt(`${at}.options[${o}].label`);
                        return (
                          <HStack key={o} gap="2" align="end" wrap="wrap" data-testid={`notify-option-${index}-${o}`}>
                            <Field.Root invalid={Boolean(valueProblem)} flex="1 1 120px">
                              <Field.Label>{labels.editor.optionValue}</Field.Label>
                              <Input value={option.value} onChange={(e) => setOption({ value: e.target.value })} />
                              <Field.ErrorText>{say(valueProblem)}</Field.ErrorText>
                            </Field.Root>
                            <Field.Root invalid={Boolean(labelProblem)} flex="2 1 160px">
                              <Field.Label>{labels.editor.optionLabelEn}</Field.Label>
                              <Input
                                value={option.label.en}
                                onChange={(e) => setOption({ label: { ...option.label, en: e.target.value } })}
                              />
                              <Field.ErrorText>{say(labelProblem)}</Field.ErrorText>
                            </Field.Root>
                            <Field.Root flex="2 1 160px">
                              <Field.Label>{labels.editor.optionLabelFr}</Field.Label>
                              <Input
                                value={option.label.fr ?? ''}
                                onChange={(e) => setOption({ label: { ...option.label, fr: e.target.value } })}
                              />
                            </Field.Root>
                            {field.type === 'icon_radio' ? (
                              <Field.Root flex="1 1 120px">
                                <Field.Label>{labels.editor.optionIcon}</Field.Label>
                                <NativeSelect.Root>
                                  <NativeSelect.Field
                                    value={option.icon ?? ''}
                                    onChange={(e) =>
                                      setOption({ icon: (e.target.value || undefined) as FormOption['icon'] })
                                    }
                                  >
                                    <option value="">{labels.editor.noIcon}</option>
                                    {OPTION_ICONS.map((icon) => (
                                      <option key={icon} value={icon}>
                                        {icon}
                                      </option>
                                    ))}
                                  </NativeSelect.Field>
                                </NativeSelect.Root>
                              </Field.Root>
                            ) : null}
                            <Button
                              size="sm"
                              variant="outline"
                              colorPalette="red"
                              onClick={() => update(index, { options: field.options.filter((_, i) => i !== o) })}
                            >
                              {labels.editor.removeOption}
                            </Button>
                          </HStack>
                        );
                      })}
                    </Stack>
                    <Button
                      mt="2"
                      size="sm"
                      variant="outline"
                      onClick={() => update(index, { options: [...field.options, { value: '', label: { en: '' } }] })}
                    >
                      {labels.editor.addOption}
                    </Button>
                  </Box>
                ) : null}
                <Box mt="3">
                  <Field.Root invalid={Boolean(problemAt(`${at}.visibleWhen.field`))}>
                    <Field.Label>{labels.editor.visibleWhen}</Field.Label>
                    <NativeSelect.Root maxW="320px">
                      <NativeSelect.Field
                        value={condition?.field ?? ''}
                        onChange={(e) =>
                          update(index, { visibleWhen: e.target.value ? { field: e.target.value, in: [] } : undefined })
                        }
                      >
                        <option value="">{labels.editor.always}</option>
                        {earlier.map((f) => (
                          <option key={f.name} value={f.name}>
                            {fill(labels.editor.whenField, { field: textOf(f.label, language) || f.name })}
                          </option>
                        ))}
                        {condition && !conditionField ? (
                          <option value={condition.field}>{condition.field}</option>
                        ) : null}
                      </NativeSelect.Field>
                    </NativeSelect.Root>
                    <Field.ErrorText>{say(problemAt(`${at}.visibleWhen.field`))}</Field.ErrorText>
                  </Field.Root>
                  {condition && conditionField ? (
                    <HStack gap="3" mt="1" wrap="wrap" role="group" aria-label={labels.editor.visibleWhen}>
                      {conditionField.options.map((option) => (
                        <label key={option.value}>
                          <input
                            type="checkbox"
                            checked={condition.in.includes(option.value)}
                            onChange={(e) =>
                              update(index, {
                                visibleWhen: {
                                  field: condition.field,
                                  in: e.target.checked
                                    ? [...condition.in, option.value]
                                    : condition.in.filter((v) => v !== option.value),
                                },
                              })
                            }
                          />{' '}
                          {textOf(option.label, language) || option.value}
                        </label>
                      ))}
                    </HStack>
                  ) : null}
                  {problemAt(`${at}.visibleWhen.in`) ? (
                    <Text color="fg.error" role="alert">
                      {say(problemAt(`${at}.visibleWhen.in`))}
                    </Text>
                  ) : null}
                </Box>
                {documentProblems(index).map((message, p) => (
                  <Text key={p} color="fg.error" role="alert">
                    {message}
                  </Text>
                ))}
              </Box>
            );
          })}
          <Box>
            <Button variant="outline" onClick={add}>
              {labels.editor.addField}
            </Button>
          </Box>
        </Stack>
        <Box flex="2 1 320px" minW="0">
          <Preview form={document} language={language} labels={labels} />
        </Box>
      </HStack>
      {problems.length > 0 ? (
        <Text color="fg.error" role="alert" data-testid="notify-problems">
          {problemAt('fields') ? say(problemAt('fields')) : labels.editor.problems}
        </Text>
      ) : null}
      <HStack gap="3">
        <Button colorPalette="brand" loading={saving} disabled={!document} onClick={save}>
          {labels.editor.save}
        </Button>
        {saved ? (
          <Text role="status" data-testid="notify-saved">
            {labels.editor.saved}
          </Text>
        ) : null}
      </HStack>
      {failure ? (
        <ErrorAlert status={failure.status} message={failure.message} error={failure.error} module="NotifyFormEditor" />
      ) : null}
    </Stack>
  );
}

export default function NotifyFormEditor(props: Props) {
  return (
    <IslandProvider language={props.language} module="NotifyFormEditor">
      <Editor {...props} />
    </IslandProvider>
  );
}
