import {
  Alert,
  Badge,
  Box,
  Button,
  Field,
  HStack,
  Heading,
  Input,
  NativeSelect,
  Stack,
  Text,
  Textarea,
} from '@chakra-ui/react';
import { ArrowDown, ArrowUp, Copy, Pencil, Plus, Save, Send, Trash2, Undo2 } from 'lucide-react';
import type { TFunction } from 'i18next';
import { lazy, memo, Suspense, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import type { FormProblem } from '#lib/forms/check.ts';
import { textOf, WIDGETS, type FormDocument, type Widget } from '#lib/forms/document.ts';
import { isRequired } from '#lib/forms/fields.ts';
import { problemMessage } from '#lib/forms/messages.ts';
import type { Language } from '#lib/i18n/index.ts';
import { createApi, errorMessageOf } from '../lib/api.ts';
import { label, type Labels } from '../loans/labels.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { IslandProvider } from '../ui/provider.tsx';
import {
  addStep,
  addWidget,
  moveField,
  moveStep,
  removeField,
  removeStep,
  renameField,
  setStepTitle,
  withText,
} from './doc-edit.ts';
import { bindingLabel, FieldPanel } from './FieldPanel.tsx';

const FormPreview = lazy(() => import('./FormPreview.tsx').then((m) => ({ default: memo(m.default) })));
const api = createApi({ module: 'FormEditor' });

/** The application form as /v1/application-forms/{id} answers it. */
export type EditedForm = {
  id: string;
  name: string;
  slug: string;
  description: string;
  draft: FormDocument;
  revision: number;
  productIds: string[];
  publishedVersion: number | null;
  status: 'draft' | 'published' | 'changed';
};

type Props = {
  language: Language;
  /** `appforms:editor` */
  labels: Labels;
  /** `forms:problems` */
  problemLabels: Labels;
} & (
  | { mode: 'application'; form: EditedForm; products: { id: string; name: string }[]; origin: string }
  | { mode: 'customized'; entity: string; document: FormDocument; revision: number | null }
);

type Failure = { status: number; message: string; error: unknown; stale?: boolean; problems?: FormProblem[] };

/** Problems of a form still being built: they stop publishing, not saving a draft. */
const UNFINISHED = new Set(['noFields', 'emptyStep']);
const CUSTOMIZED_WIDGETS = WIDGETS.filter((w) => w !== 'file' && w !== 'consent');

function Editor(props: Props) {
  const { labels, language } = props;
  const l = (key: string, vars: Record<string, string | number> = {}) => label(labels, key, vars);
  const application = props.mode === 'application' ? props : null;
  const [doc, setDoc] = useState<FormDocument>(
    application ? application.form.draft : (props as { document: FormDocument }).document,
  );
  const [name, setName] = useState(application?.form.name ?? '');
  const [description, setDescription] = useState(application?.form.description ?? '');
  const [productIds, setProductIds] = useState<string[]>(application?.form.productIds ?? []);
  const [status, setStatus] = useState(application?.form.status ?? 'draft');
  const [publishedVersion, setPublishedVersion] = useState(application?.form.publishedVersion ?? null);
  const revision = useRef<number | null>(
    application ? application.form.revision : (props as { revision: number | null }).revision,
  );
  const [dirty, setDirty] = useState(false);
  const [busy, setBusy] = useState<null | 'save' | 'publish' | 'unpublish'>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [widgetToAdd, setWidgetToAdd] = useState<Record<number, Widget>>({});
  const [showPreview, setShowPreview] = useState(false);
  const noticeRef = useRef<HTMLDivElement>(null);

  // The live check: the core's formProblems, loaded on demand (it brings Ajv), without Ajv's compile
  // steps (the page's CSP forbids eval; the server runs them and its 422 shows below).
  const [checker, setChecker] = useState<null | ((raw: unknown) => FormProblem[])>(null);
  useEffect(() => {
    let live = true;
    void import('#lib/forms/check.ts').then((m) => {
      if (live) setChecker(() => (raw: unknown) => m.formProblems(raw, { compile: false }));
    });
    // The preview waits for the browser to be idle: most of the work is editing.
    const timer = window.setTimeout(() => setShowPreview(true), 0);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, []);
  const checked = useDeferredValue(doc);
  const problems = useMemo(() => (checker ? checker(checked) : null), [checker, checked]);
  // An application draft may be unfinished; customized fields may be emptied again (saved at once).
  const blocking = (problems ?? []).filter((p) => !UNFINISHED.has(p.key));
  const unfinished = application ? (problems ?? []).filter((p) => UNFINISHED.has(p.key)) : [];

  // Unsaved changes are not lost silently.
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = l('leaveWarning');
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  });

  const edit = (next: FormDocument) => {
    setDoc(next);
    setDirty(true);
    setNotice(null);
  };
  const touch =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setDirty(true);
      setNotice(null);
    };

  const problemT = ((key: string, params?: Record<string, string | number>) =>
    label(props.problemLabels, key.replace(/^forms:problems\./, ''), params ?? {})) as unknown as TFunction;
  const where = (path: string, params?: Record<string, string | number>): string => {
    const field =
      /^(?:ui\.fields|schema\.properties)\.([^.[]+)/.exec(path)?.[1] ??
      (path.startsWith('schema.allOf') ? params?.name : undefined);
    if (field) return textOf(doc.ui.fields[String(field)]?.label, language) || String(field);
    const step = /^ui\.steps\[(\d+)\]/.exec(path)?.[1];
    if (step !== undefined) return l('step', { number: Number(step) + 1 });
    return l('formWide');
  };
  const say = (p: FormProblem) => l('at', { where: where(p.path, p.params), message: problemMessage(problemT, p) });

  const applyForm = (form: EditedForm) => {
    revision.current = form.revision;
    setStatus(form.status);
    setPublishedVersion(form.publishedVersion);
  };

  const fail = async (error: unknown) => {
    const failed = await errorMessageOf(error);
    const details = failed.details as { code?: string; problems?: FormProblem[] } | undefined;
    setFailure({
      status: failed.status,
      message: failed.message,
      error,
      stale: failed.status === 409 && (details?.code === 'stale_revision' || failed.field === 'expectedRevision'),
      problems: Array.isArray(details?.problems) ? details.problems : undefined,
    });
    requestAnimationFrame(() => noticeRef.current?.focus());
  };

  const done = (message: string) => {
    setNotice(message);
    requestAnimationFrame(() => noticeRef.current?.focus());
  };

  const save = async (quiet = false): Promise<boolean> => {
    setBusy('save');
    setFailure(null);
    try {
      if (application) {
        const form = await api
          .put(`application-forms/${application.form.id}`, {
            json: { expectedRevision: revision.current, name, description, document: doc, productIds },
          })
          .json<EditedForm>();
        applyForm(form);
      } else {
        const saved = await api
          .put(`customized-forms/${(props as { entity: string }).entity}`, {
            json: { document: doc, expectedRevision: revision.current },
          })
          .json<{ revision: number }>();
        revision.current = saved.revision;
      }
      setDirty(false);
      if (!quiet) done(l('saved'));
      return true;
    } catch (error) {
      await fail(error);
      return false;
    } finally {
      setBusy(null);
    }
  };

  const publication = async (action: 'publish' | 'unpublish') => {
    if (!application) return;
    if (action === 'publish' && dirty && !(await save(true))) return;
    setBusy(action);
    setFailure(null);
    try {
      const form = await api
        .post(`application-forms/${application.form.id}/${action}`, { json: { expectedRevision: revision.current } })
        .json<EditedForm>();
      applyForm(form);
      done(
        action === 'publish' ? l('publishedNotice', { version: form.publishedVersion ?? '' }) : l('unpublishedNotice'),
      );
    } catch (error) {
      await fail(error);
    } finally {
      setBusy(null);
    }
  };

  const focusRow = (field: string) => requestAnimationFrame(() => document.getElementById(`fe-row-${field}`)?.focus());
  const move = (field: string, delta: -1 | 1) => {
    edit(moveField(doc, field, delta));
    focusRow(field);
  };
  const widgets = application ? WIDGETS : CUSTOMIZED_WIDGETS;
  const publicLink = application ? `${application.origin}/application/${application.form.slug}` : '';
  const fieldLabel = (field: string) => textOf(doc.ui.fields[field]?.label, language) || field;

  return (
    <HStack gap="8" align="start" flexWrap="wrap">
      <Stack gap="6" flex="1 1 560px" minW="0">
        {application ? (
          <HStack gap="3" flexWrap="wrap">
            <Badge
              colorPalette={status === 'published' ? 'green' : status === 'changed' ? 'orange' : 'gray'}
              data-testid="form-status"
            >
              {l(`status`, { status: label(labels, `statuses.${status}`) })}
            </Badge>
            <Badge data-testid="published-version">
              {publishedVersion ? l('published', { version: publishedVersion }) : l('unpublished')}
            </Badge>
            {dirty ? <Badge colorPalette="yellow">{l('unsaved')}</Badge> : null}
          </HStack>
        ) : dirty ? (
          <Badge colorPalette="yellow" alignSelf="start">
            {l('unsaved')}
          </Badge>
        ) : null}

        <Box ref={noticeRef} tabIndex={-1} aria-live="polite">
          {notice ? (
            <Alert.Root status="success" data-testid="editor-notice">
              <Alert.Indicator />
              <Alert.Description>{notice}</Alert.Description>
            </Alert.Root>
          ) : null}
          {failure ? (
            <Stack gap="2" data-testid="editor-failure">
              <ErrorAlert status={failure.status} message={failure.message} error={failure.error} module="FormEditor" />
              {failure.stale ? (
                <Alert.Root status="warning">
                  <Alert.Indicator />
                  <Alert.Content>
                    <Alert.Description>{l('stale')}</Alert.Description>
                  </Alert.Content>
                  <Button size="sm" variant="outline" onClick={() => window.location.reload()}>
                    {l('reload')}
                  </Button>
                </Alert.Root>
              ) : null}
              {failure.problems?.length ? (
                <Box>
                  <Text fontWeight="semibold">{l('serverProblems')}</Text>
                  <ul>
                    {failure.problems.slice(0, 30).map((p, i) => (
                      <li key={i}>{say(p)}</li>
                    ))}
                  </ul>
                </Box>
              ) : null}
            </Stack>
          ) : null}
        </Box>

        {application ? (
          <Box as="section" aria-labelledby="fe-settings">
            <Heading as="h2" size="md" id="fe-settings" mb="3">
              {l('settings')}
            </Heading>
            <Stack gap="3" maxW="720px">
              <Field.Root required>
                <Field.Label htmlFor="fe-name">{l('name')}</Field.Label>
                <Input id="fe-name" maxLength={120} value={name} onChange={(e) => touch(setName)(e.target.value)} />
              </Field.Root>
              <Field.Root>
                <Field.Label htmlFor="fe-description">{l('description')}</Field.Label>
                <Textarea
                  id="fe-description"
                  rows={2}
                  maxLength={2000}
                  value={description}
                  onChange={(e) => touch(setDescription)(e.target.value)}
                />
              </Field.Root>
              <Box as="fieldset" data-testid="products-picker">
                <Text as="legend" fontWeight="semibold">
                  {l('products')}
                </Text>
                <Text fontSize="sm" color="fg.muted" mb="1">
                  {l('productsHint')}
                </Text>
                {application.products.length === 0 ? <Text>{l('noActiveProducts')}</Text> : null}
                {application.products.map((p) => (
                  <label key={p.id} style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
                    <input
                      type="checkbox"
                      checked={productIds.includes(p.id)}
                      onChange={(e) =>
                        touch(setProductIds)(
                          e.target.checked ? [...productIds, p.id] : productIds.filter((id) => id !== p.id),
                        )
                      }
                    />
                    {p.name}
                  </label>
                ))}
              </Box>
            </Stack>
          </Box>
        ) : null}

        <Box as="section" aria-labelledby="fe-steps">
          <Heading as="h2" size="md" id="fe-steps" mb="1">
            {application ? l('steps') : l('fields')}
          </Heading>
          <Text fontSize="sm" color="fg.muted" mb="3">
            {l('keyboardHint')}
          </Text>
          <Stack gap="5">
            {doc.ui.steps.map((step, s) => (
              <Box
                key={step.id}
                as="section"
                borderWidth="1px"
                borderRadius="md"
                p="4"
                aria-label={l('step', { number: s + 1 })}
                data-testid={`step-${s}`}
              >
                {application ? (
                  <HStack gap="3" align="end" flexWrap="wrap" mb="3">
                    <Text fontWeight="bold" minW="64px">
                      {l('step', { number: s + 1 })}
                    </Text>
                    {(['en', 'fr'] as const).map((lang) => (
                      <Field.Root key={lang} flex="1" minW="180px">
                        <Field.Label htmlFor={`fe-step-${s}-${lang}`}>
                          {l(lang === 'en' ? 'stepTitleEn' : 'stepTitleFr')}
                        </Field.Label>
                        <Input
                          id={`fe-step-${s}-${lang}`}
                          size="sm"
                          maxLength={4000}
                          value={(lang === 'en' ? step.title.en : step.title.fr) ?? ''}
                          onChange={(e) =>
                            edit(setStepTitle(doc, s, withText(step.title, lang, e.target.value, false)!))
                          }
                        />
                      </Field.Root>
                    ))}
                    <HStack gap="1">
                      <Button
                        size="sm"
                        variant="ghost"
                        aria-label={l('moveStepUp', { number: s + 1 })}
                        disabled={s === 0}
                        onClick={() => edit(moveStep(doc, s, -1))}
                      >
                        <ArrowUp />
                      </Button>
                      <Button
                        size="sm"
                        variant="ghost"
                        aria-label={l('moveStepDown', { number: s + 1 })}
                        disabled={s === doc.ui.steps.length - 1}
                        onClick={() => edit(moveStep(doc, s, 1))}
                      >
                        <ArrowDown />
                      </Button>
                      <Button
                        size="sm"
                        variant="ghost"
                        aria-label={l('deleteStep', { number: s + 1 })}
                        disabled={doc.ui.steps.length <= 1}
                        onClick={() => {
                          if (step.fields.length === 0 || window.confirm(l('confirmDeleteStep')))
                            edit(removeStep(doc, s));
                        }}
                      >
                        <Trash2 />
                      </Button>
                    </HStack>
                  </HStack>
                ) : null}
                {step.fields.length === 0 ? (
                  <Text color="fg.muted" mb="3">
                    {l('noFields')}
                  </Text>
                ) : null}
                <Stack as="ol" gap="2" listStyleType="none" ps="0">
                  {step.fields.map((field) => {
                    const ui = doc.ui.fields[field];
                    const text = fieldLabel(field);
                    return (
                      <Box as="li" key={field} data-testid={`field-row-${field}`}>
                        <HStack
                          gap="2"
                          p="2"
                          borderWidth="1px"
                          borderRadius="md"
                          flexWrap="wrap"
                          onKeyDown={(e) => {
                            if (e.altKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) {
                              e.preventDefault();
                              move(field, e.key === 'ArrowUp' ? -1 : 1);
                            }
                          }}
                        >
                          <Button
                            id={`fe-row-${field}`}
                            size="sm"
                            variant="ghost"
                            aria-expanded={open === field}
                            aria-label={l('edit', { label: text })}
                            onClick={() => setOpen(open === field ? null : field)}
                          >
                            <Pencil />
                          </Button>
                          <Box flex="1" minW="160px">
                            <Text fontWeight="semibold">{text}</Text>
                            <Text fontSize="xs" color="fg.muted">
                              {ui ? l(`widgets.${ui.widget}`) : '?'} · {field}
                            </Text>
                          </Box>
                          {isRequired(doc, field) ? <Badge>{l('requiredBadge')}</Badge> : null}
                          {ui?.visibleWhen ? <Badge colorPalette="purple">{l('conditionalBadge')}</Badge> : null}
                          {ui?.bind ? (
                            <Badge colorPalette="blue">
                              {l('boundBadge', { bind: bindingLabel(labels, ui.bind) })}
                            </Badge>
                          ) : null}
                          <Button
                            size="sm"
                            variant="ghost"
                            aria-label={l('moveUp', { label: text })}
                            onClick={() => move(field, -1)}
                          >
                            <ArrowUp />
                          </Button>
                          <Button
                            size="sm"
                            variant="ghost"
                            aria-label={l('moveDown', { label: text })}
                            onClick={() => move(field, 1)}
                          >
                            <ArrowDown />
                          </Button>
                          <Button
                            size="sm"
                            variant="ghost"
                            aria-label={l('delete', { label: text })}
                            onClick={() => {
                              if (open === field) setOpen(null);
                              edit(removeField(doc, field));
                            }}
                          >
                            <Trash2 />
                          </Button>
                        </HStack>
                        {open === field ? (
                          <Box mt="2">
                            <FieldPanel
                              doc={doc}
                              name={field}
                              bindings={!!application}
                              labels={labels}
                              language={language}
                              onChange={edit}
                              onRename={(to) => {
                                edit(renameField(doc, field, to));
                                setOpen(to);
                              }}
                            />
                            <Button
                              size="sm"
                              variant="ghost"
                              mt="1"
                              onClick={() => {
                                setOpen(null);
                                focusRow(field);
                              }}
                            >
                              <Undo2 /> {l('close')}
                            </Button>
                          </Box>
                        ) : null}
                      </Box>
                    );
                  })}
                </Stack>
                <HStack gap="2" mt="3" align="end" flexWrap="wrap">
                  <Field.Root w="auto">
                    <Field.Label htmlFor={`fe-add-${s}`}>{l('widgetToAdd')}</Field.Label>
                    <NativeSelect.Root size="sm" minW="200px">
                      <NativeSelect.Field
                        id={`fe-add-${s}`}
                        value={widgetToAdd[s] ?? 'text'}
                        onChange={(e) => setWidgetToAdd((w) => ({ ...w, [s]: e.target.value as Widget }))}
                      >
                        {widgets.map((w) => (
                          <option key={w} value={w}>
                            {l(`widgets.${w}`)}
                          </option>
                        ))}
                      </NativeSelect.Field>
                      <NativeSelect.Indicator />
                    </NativeSelect.Root>
                  </Field.Root>
                  <Button
                    size="sm"
                    variant="outline"
                    onClick={() => {
                      const added = addWidget(doc, s, widgetToAdd[s] ?? 'text', { en: l('newField') });
                      edit(added.doc);
                      setOpen(added.name);
                    }}
                  >
                    <Plus /> {l('addField')}
                  </Button>
                </HStack>
              </Box>
            ))}
          </Stack>
          {application ? (
            <Button mt="3" size="sm" variant="outline" onClick={() => edit(addStep(doc, { en: l('newStep') }))}>
              <Plus /> {l('addStep')}
            </Button>
          ) : null}
        </Box>

        <Box as="section" aria-labelledby="fe-problems" data-testid="live-problems">
          <Heading as="h2" size="sm" id="fe-problems" mb="2">
            {l('problems')}
          </Heading>
          {problems === null ? (
            <Text color="fg.muted">{l('loadingChecks')}</Text>
          ) : blocking.length === 0 && unfinished.length === 0 ? (
            <Text color="green.700">{l('problemsNone')}</Text>
          ) : (
            <ul>
              {blocking.slice(0, 30).map((p, i) => (
                <li key={`b${i}`} style={{ color: 'var(--chakra-colors-red-700, #b91c1c)' }}>
                  {say(p)}
                </li>
              ))}
              {unfinished.map((p, i) => (
                <li key={`u${i}`}>{l('beforePublish', { message: say(p) })}</li>
              ))}
            </ul>
          )}
        </Box>

        <HStack gap="3" position="sticky" bottom="0" bg="bg" py="3" borderTopWidth="1px" zIndex="1" flexWrap="wrap">
          <Button
            colorPalette="brand"
            loading={busy === 'save'}
            loadingText={l('saving')}
            disabled={!!busy}
            onClick={() => void save()}
          >
            <Save /> {l('save')}
          </Button>
          {application ? (
            <>
              <Button
                variant="outline"
                loading={busy === 'publish'}
                loadingText={l('publishing')}
                disabled={!!busy}
                onClick={() => void publication('publish')}
              >
                <Send /> {l('publish')}
              </Button>
              {publishedVersion ? (
                <Button
                  variant="ghost"
                  disabled={!!busy}
                  loading={busy === 'unpublish'}
                  onClick={() => void publication('unpublish')}
                >
                  {l('unpublish')}
                </Button>
              ) : null}
            </>
          ) : null}
        </HStack>

        {application && publishedVersion ? (
          <Box data-testid="public-link">
            <Text fontWeight="semibold">{l('publicLink')}</Text>
            <HStack gap="2" flexWrap="wrap">
              <a href={publicLink} target="_blank" rel="noopener" data-testid="public-link-url">
                {publicLink}
              </a>
              <Button
                size="sm"
                variant="ghost"
                onClick={() => {
                  void navigator.clipboard?.writeText(publicLink).then(() => done(l('copied')));
                }}
              >
                <Copy /> {l('copy')}
              </Button>
            </HStack>
          </Box>
        ) : null}
      </Stack>

      <Box flex="0 0 auto" position={{ base: 'static', xl: 'sticky' }} top="4">
        {showPreview ? (
          <Suspense fallback={<Text color="fg.muted">{l('preview')}…</Text>}>
            <FormPreview doc={doc} labels={labels} language={language === 'fr' ? 'fr' : 'en'} />
          </Suspense>
        ) : null}
      </Box>
    </HStack>
  );
}

/**
 * The form editor of /admin/business/application-form/:id (steps, fields, rules, visibility, bindings,
 * products, publish) and, with fewer features, of /admin/business/customized-form/:entity (one step,
 * no file or consent, no bindings, saving applies at once). It edits the one form document of
 * src/lib/forms through the core's functions (./doc-edit.ts), shows the core's problems live and the
 * server's 422, saves with the revision it started from, and previews the draft as an applicant.
 */
export default function FormEditor(props: Props) {
  return (
    <IslandProvider language={props.language} module="FormEditor">
      <Editor {...props} />
    </IslandProvider>
  );
}
