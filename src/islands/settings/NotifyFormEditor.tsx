import { Box, Button, Field, HStack, Heading, Input, NativeSelect, Stack, Text, Textarea } from '@chakra-ui/react';
import { useMemo, useState } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import type { FormDefinition, FormField, FormFieldType } from '#lib/tenancy/config.ts';
import { formProblems, TYPES_WITH_OPTIONS, type FormProblem } from '#lib/tenancy/notify-form-rules.ts';
import { createApi, errorMessageOf } from '../lib/api.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { IslandProvider } from '../ui/provider.tsx';

/**
 * The notify-customer form editor of the general-settings page: the fields as a list (name, type,
 * question, required, options, rows, "shown when <earlier field> is one of …"), checked while typing
 * by the same rules as the server (src/lib/tenancy/notify-form-rules.ts), a live preview, and Save
 * (PATCH /v1/tenant-settings). Words come from the page (`settings:editor` and `settings:errors`).
 */
type Labels = {
  editor: Record<string, string> & { types: Record<FormFieldType, string> };
  errors: Record<string, string>;
};
type Props = { language: Language; form: FormDefinition; types: readonly FormFieldType[]; labels: Labels };

const api = createApi({ module: 'NotifyFormEditor' });

function fill(template: string | undefined, params: Record<string, string | number> = {}): string {
  return (template ?? '').replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(params[name] ?? ''));
}

/** The field as saved: no options where the type has none, no rows except on a text area. */
function tidy(field: FormField): FormField {
  const next: FormField = { name: field.name.trim(), type: field.type, label: field.label, required: field.required };
  if (TYPES_WITH_OPTIONS.includes(field.type)) next.options = field.options ?? [];
  if (field.type === 'textarea' && field.rows !== undefined) next.rows = field.rows;
  if (field.visibleWhen) next.visibleWhen = field.visibleWhen;
  return next;
}

function Preview({ form, labels }: { form: FormDefinition; labels: Labels }) {
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const visible = form.fields.filter(
    (f) => !f.visibleWhen || f.visibleWhen.in.includes(answers[f.visibleWhen.field] ?? ''),
  );
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
        {visible.map((field, index) => {
          const id = `preview-${index}-${field.name}`;
          const title = `${field.label}${field.required ? ' *' : ''}`;
          if (field.type === 'icon_radio' || field.type === 'radio')
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
                        checked={answers[field.name] === option.value}
                        onChange={() => set(field.name, option.value)}
                      />{' '}
                      {option.label}
                    </label>
                  ))}
                </HStack>
              </fieldset>
            );
          return (
            <Field.Root key={id}>
              <Field.Label htmlFor={id}>{title}</Field.Label>
              {field.type === 'select' ? (
                <NativeSelect.Root>
                  <NativeSelect.Field
                    id={id}
                    value={answers[field.name] ?? ''}
                    onChange={(e) => set(field.name, e.target.value)}
                  >
                    <option value="">{labels.editor.choose}</option>
                    {(field.options ?? []).map((option) => (
                      <option key={option.value} value={option.value}>
                        {option.label}
                      </option>
                    ))}
                  </NativeSelect.Field>
                </NativeSelect.Root>
              ) : field.type === 'textarea' ? (
                <Textarea id={id} rows={field.rows ?? 3} />
              ) : (
                <Input id={id} />
              )}
            </Field.Root>
          );
        })}
      </Stack>
    </Box>
  );
}

function Editor(props: Props) {
  const { labels } = props;
  const [form, setForm] = useState<FormDefinition>(props.form);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [failure, setFailure] = useState<{ status: number; message: string; error: unknown } | null>(null);
  const problems = useMemo(() => formProblems({ fields: form.fields.map(tidy) }), [form]);
  const problemAt = (path: string): FormProblem | undefined => problems.find((p) => p.path === path);
  const say = (problem: FormProblem | undefined) =>
    problem ? fill(labels.errors[problem.key] ?? problem.key, problem.params) : undefined;

  const update = (index: number, change: Partial<FormField>) => {
    setSaved(false);
    setForm((f) => ({ fields: f.fields.map((field, i) => (i === index ? { ...field, ...change } : field)) }));
  };
  const move = (index: number, by: -1 | 1) =>
    setForm((f) => {
      const fields = [...f.fields];
      const [taken] = fields.splice(index, 1);
      fields.splice(index + by, 0, taken);
      return { fields };
    });
  const remove = (index: number) => setForm((f) => ({ fields: f.fields.filter((_, i) => i !== index) }));
  const add = () =>
    setForm((f) => ({
      fields: [
        ...f.fields,
        { name: `Field_${f.fields.length + 1}`, type: 'text', label: '', required: false } satisfies FormField,
      ],
    }));

  const save = async () => {
    setSaving(true);
    setFailure(null);
    try {
      const body = { config: { notify_customer_modal_config: { form: { fields: form.fields.map(tidy) } } } };
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
          {form.fields.map((field, index) => {
            const at = `fields[${index}]`;
            const hasOptions = TYPES_WITH_OPTIONS.includes(field.type);
            const earlier = form.fields.slice(0, index).filter((f) => TYPES_WITH_OPTIONS.includes(f.type));
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
                      disabled={index === form.fields.length - 1}
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
                        onChange={(e) => update(index, { type: e.target.value as FormFieldType })}
                      >
                        {props.types.map((type) => (
                          <option key={type} value={type}>
                            {labels.editor.types[type]}
                          </option>
                        ))}
                      </NativeSelect.Field>
                    </NativeSelect.Root>
                  </Field.Root>
                  <Field.Root invalid={Boolean(problemAt(`${at}.label`))} flex="2 1 220px">
                    <Field.Label>{labels.editor.label}</Field.Label>
                    <Input value={field.label} onChange={(e) => update(index, { label: e.target.value })} />
                    <Field.ErrorText>{say(problemAt(`${at}.label`))}</Field.ErrorText>
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
                {hasOptions ? (
                  <Box mt="3">
                    <Text fontWeight="semibold">{labels.editor.options}</Text>
                    {problemAt(`${at}.options`) ? (
                      <Text color="fg.error" role="alert">
                        {say(problemAt(`${at}.options`))}
                      </Text>
                    ) : null}
                    <Stack gap="2" mt="1">
                      {(field.options ?? []).map((option, o) => {
                        const setOption = (change: Partial<typeof option>) =>
                          update(index, {
                            options: (field.options ?? []).map((x, i) => (i === o ? { ...x, ...change } : x)),
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
                              <Field.Label>{labels.editor.optionLabel}</Field.Label>
                              <Input value={option.label} onChange={(e) => setOption({ label: e.target.value })} />
                              <Field.ErrorText>{say(labelProblem)}</Field.ErrorText>
                            </Field.Root>
                            {field.type === 'icon_radio' ? (
                              <Field.Root flex="1 1 100px">
                                <Field.Label>{labels.editor.optionIcon}</Field.Label>
                                <Input
                                  value={option.icon ?? ''}
                                  onChange={(e) => setOption({ icon: e.target.value || undefined })}
                                />
                              </Field.Root>
                            ) : null}
                            <Button
                              size="sm"
                              variant="outline"
                              colorPalette="red"
                              onClick={() =>
                                update(index, { options: (field.options ?? []).filter((_, i) => i !== o) })
                              }
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
                      onClick={() => update(index, { options: [...(field.options ?? []), { value: '', label: '' }] })}
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
                            {fill(labels.editor.whenField, { field: f.label || f.name })}
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
                      {(conditionField.options ?? []).map((option) => (
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
                          {option.label || option.value}
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
          <Preview form={{ fields: form.fields.map(tidy) }} labels={labels} />
        </Box>
      </HStack>
      {problems.length > 0 ? (
        <Text color="fg.error" role="alert" data-testid="notify-problems">
          {problemAt('fields') ? say(problemAt('fields')) : labels.editor.problems}
        </Text>
      ) : null}
      <HStack gap="3">
        <Button colorPalette="brand" loading={saving} disabled={problems.length > 0} onClick={save}>
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
