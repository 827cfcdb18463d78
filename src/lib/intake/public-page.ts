import type { TFunction } from 'i18next';
import type { Db } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { textOf, type FormDocument } from '../forms/document.ts';
import { coercePosted, keptAnswers, type Answers } from '../forms/fields.ts';
import { findPublishedForm, formVersion, type PublishedForm } from '../forms/store.ts';
import { validateAnswers, type FieldError } from '../forms/validate.ts';
import { getT } from '../i18n/index.ts';
import { checkPow, clientHash, honeypotFilled, newChallenge, POW_FIELD, spendBudget } from './abuse.ts';
import { DRAFT_TTL_MS, draftFiles, findDraft, saveDraft, startDraft, type Draft } from './drafts.ts';
import { sendReceipt } from './receipt.ts';
import { getSubmission, submitDraft, termProblems, type Outcome, type TermProblem } from './submit.ts';
import { HARD_BODY_LIMIT, checkFile, parsePosted, readBody, storeDraftFile, type PostedForm } from './uploads.ts';

/**
 * What the public page /application/:id shows for a request: the page (src/pages/application/[id].astro)
 * only renders the view this returns. GET opens the first step, or a draft's current step (`?d=`);
 * POST saves the posted step and moves back or on, or submits from the review step.
 */
export type Language = 'en' | 'fr';
export type ErrorItem = { field: string; href: string; label: string; message: string };
export type SummaryItem = { label: string; value: string };

export type StepView = {
  kind: 'step';
  status: number;
  language: Language;
  title: string;
  slug: string;
  document: FormDocument;
  token: string | null;
  /** 0-based; equal to the number of steps: the review step (summary, then submit). */
  step: number;
  stepCount: number;
  values: Answers;
  errors: Record<string, string>;
  errorList: ErrorItem[];
  formError: string | null;
  files: Record<string, string>;
  /** The proof-of-work challenge (JSON) on the review step. */
  challenge: string | null;
  summary: SummaryItem[];
};
export type DoneView = {
  kind: 'done';
  status: 200;
  language: Language;
  title: string;
  slug: string;
  token: string;
  reference: string;
  outcome: Outcome;
};
export type RefusedView = {
  kind: 'refused';
  status: 400 | 413 | 429;
  language: Language;
  title: string | null;
  slug: string;
  message: string;
  retryAfter: number | null;
};
export type NotFoundView = { kind: 'not-found'; status: 404; language: Language };
/** A redirect after a post; `token` is the draft the cookie keeps. */
export type RedirectView = { kind: 'redirect'; status: 303; location: string; token: string };
export type PageView = StepView | DoneView | RefusedView | NotFoundView | RedirectView;

/** ?lang= (or the posted one) first, then the browser's first language: French for fr*, else English. */
export function pickLanguage(chosen: string | null | undefined, acceptLanguage: string | null): Language {
  if (chosen === 'fr' || chosen === 'en') return chosen;
  const first = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.trim().toLowerCase(), q: q ? Number(q.slice(2)) || 0 : 1 };
    })
    .filter((entry) => entry.tag && entry.q > 0)
    .sort((a, b) => b.q - a.q)[0];
  return first?.tag.startsWith('fr') ? 'fr' : 'en';
}

/**
 * A page address: the language and the step shown, never the draft's token (it lives in a cookie and in
 * POST bodies only, so it is not in the history, the Referer or a shared link).
 */
export function pageUrl(slug: string, params: { lang?: Language; step?: number; fresh?: boolean } = {}): string {
  const query = new URLSearchParams();
  if (params.lang) query.set('lang', params.lang);
  if (params.fresh) query.set('new', '1');
  if (params.step !== undefined) query.set('s', String(params.step));
  const text = query.toString();
  return `/application/${encodeURIComponent(slug)}${text ? `?${text}` : ''}`;
}

/**
 * The cookie keeping the draft's token between requests: HttpOnly, SameSite=Lax, scoped to the form's
 * path, lasting as long as a draft; `__Secure-` and Secure in production (https), a plain name on
 * http://localhost in development and tests (browsers refuse `__Secure-` without Secure).
 */
export function draftCookieName(secure: boolean): string {
  return secure ? '__Secure-apply-draft' : 'apply-draft';
}

export function draftCookie(slug: string, token: string, secure: boolean): string {
  return [
    `${draftCookieName(secure)}=${token}`,
    `Path=/application/${encodeURIComponent(slug)}`,
    `Max-Age=${Math.floor(DRAFT_TTL_MS / 1000)}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** The draft token of the request's cookie (either name), or null. */
export function draftTokenOf(headers: Headers): string | null {
  for (const part of (headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    if (name === draftCookieName(true) || name === draftCookieName(false)) return part.slice(at + 1).trim() || null;
  }
  return null;
}

async function documentOf(db: Db, form: PublishedForm, draft: Draft | null): Promise<FormDocument> {
  if (!draft || draft.formVersion === form.version) return form.document;
  return db.tenant(form.tenantId, (tx) => formVersion(tx, form.formId, draft.formVersion));
}

function fieldHref(doc: FormDocument, name: string): string {
  const widget = doc.ui.fields[name]?.widget;
  return widget === 'radio' || widget === 'icon_radio' ? `#f-${name}-0` : `#f-${name}`;
}

function errorMessage(t: TFunction, error: FieldError): string {
  return t(`forms:errors.${error.key}`, error.params ?? {});
}

function termMessage(t: TFunction, problem: TermProblem): string {
  return t(`apply:errors.${problem.key}`, problem.params ?? {});
}

function displayValue(
  t: TFunction,
  doc: FormDocument,
  name: string,
  value: unknown,
  files: Record<string, string>,
  language: Language,
): string {
  const ui = doc.ui.fields[name]!;
  if (ui.widget === 'file') return files[name] ?? '';
  if (typeof value === 'boolean') return value ? t('apply:yes') : t('apply:no');
  const option = ui.options?.find((o) => o.value === value);
  if (option) return textOf(option.label, language);
  return String(value);
}

type StepInput = {
  form: PublishedForm;
  document: FormDocument;
  language: Language;
  token: string | null;
  step: number;
  values: Answers;
  fileNames: Record<string, string>;
  errors?: Record<string, string>;
  formError?: string | null;
  status?: number;
};

async function stepView(input: StepInput): Promise<StepView> {
  const t = await getT(input.language);
  const { document: doc, language } = input;
  const stepCount = doc.ui.steps.length;
  const step = Math.max(0, Math.min(input.step, stepCount));
  const errors = input.errors ?? {};
  const order = step < stepCount ? doc.ui.steps[step]!.fields : [];
  const errorList = Object.entries(errors)
    .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))
    .map(([field, message]) => ({
      field,
      href: fieldHref(doc, field),
      label: textOf(doc.ui.fields[field]?.label, language),
      message,
    }));
  let summary: SummaryItem[] = [];
  let challenge: string | null = null;
  if (step === stepCount) {
    const kept = keptAnswers(doc, input.values);
    summary = Object.entries(kept).map(([name, value]) => ({
      label: textOf(doc.ui.fields[name]?.label, language),
      value: displayValue(t, doc, name, value, input.fileNames, language),
    }));
    challenge = JSON.stringify(await newChallenge({ draft: input.token ?? undefined }));
  }
  return {
    kind: 'step',
    status: input.status ?? (errorList.length || input.formError ? 422 : 200),
    language,
    title: input.form.name,
    slug: input.form.slug,
    document: doc,
    token: input.token,
    step,
    stepCount,
    values: input.values,
    errors,
    errorList,
    formError: input.formError ?? null,
    files: input.fileNames,
    challenge,
    summary,
  };
}

function namesOf(files: Record<string, { id: string; fileName: string }>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([field, file]) => [field, file.fileName]));
}

async function doneView(
  db: Db,
  form: PublishedForm,
  draft: Draft,
  token: string,
  language: Language,
  now = new Date(),
): Promise<DoneView | null> {
  const submission = await db.tenant(form.tenantId, (tx) => getSubmission(tx, draft.submissionId!));
  // The confirmation lapses with the draft: a day after the submit it is a fresh first step again.
  if (!submission || new Date(submission.created_at).getTime() + DRAFT_TTL_MS < now.getTime()) return null;
  return {
    kind: 'done',
    status: 200,
    language,
    title: form.name,
    slug: form.slug,
    token,
    reference: submission?.reference ?? '',
    outcome: (submission?.status === 'processed' && submission.outcome) || 'received',
  };
}

async function refused(
  form: PublishedForm | null,
  slug: string,
  language: Language,
  status: RefusedView['status'],
  key: string,
  retryAfter: number | null = null,
): Promise<RefusedView> {
  const t = await getT(language);
  return {
    kind: 'refused',
    status,
    language,
    title: form?.name ?? null,
    slug,
    message: t(`apply:refused.${key}`, { minutes: Math.max(1, Math.ceil((retryAfter ?? 0) / 60)) }),
    retryAfter,
  };
}

function stepAsked(value: string | null, furthest: number): number {
  const asked = /^\d{1,2}$/.test(value ?? '') ? Number(value) : furthest;
  return Math.min(asked, furthest);
}

/**
 * GET /application/:slug (?lang=, ?s= the step; the draft from its cookie: its current step, or its
 * confirmation once submitted, for as long as a draft lives).
 */
export async function showPage(db: Db, slug: string, url: URL, headers: Headers, now = new Date()): Promise<PageView> {
  const form = await findPublishedForm(db, slug);
  const language = pickLanguage(url.searchParams.get('lang'), headers.get('accept-language'));
  if (!form) return { kind: 'not-found', status: 404, language };
  // ?new: a fresh start (the confirmation's "start again"), whatever the cookie holds.
  const token = url.searchParams.has('new') ? null : draftTokenOf(headers);
  const draft = token ? await db.tenant(form.tenantId, (tx) => findDraft(tx, form.formId, token)) : null;
  if (draft && token) {
    if (draft.submissionId) {
      const done = await doneView(db, form, draft, token, language, now);
      if (done) return done;
      return stepView({ form, document: form.document, language, token: null, step: 0, values: {}, fileNames: {} });
    }
    const files = await db.tenant(form.tenantId, (tx) => draftFiles(tx, draft.id));
    return stepView({
      form,
      document: await documentOf(db, form, draft),
      language,
      token,
      // The step the applicant was on (the language link says it), never past the furthest reached.
      step: stepAsked(url.searchParams.get('s'), draft.step),
      values: draft.answers,
      fileNames: namesOf(files),
    });
  }
  return stepView({ form, document: form.document, language, token: null, step: 0, values: {}, fileNames: {} });
}

/** POST /application/:slug: one step's answers (and files), Back/Next, or the final submit. */
export async function postPage(db: Db, slug: string, request: Request, ip: string): Promise<PageView> {
  const url = new URL(request.url);
  const form = await findPublishedForm(db, slug);
  const headerLanguage = pickLanguage(url.searchParams.get('lang'), request.headers.get('accept-language'));
  if (!form) {
    await request.body?.cancel().catch(() => undefined);
    return { kind: 'not-found', status: 404, language: headerLanguage };
  }
  let posted: PostedForm;
  try {
    posted = await parsePosted(request.headers.get('content-type') ?? '', await readBody(request, HARD_BODY_LIMIT));
  } catch (error) {
    if (error instanceof AppError && error.code === 'PAYLOAD_TOO_LARGE')
      return refused(form, slug, headerLanguage, 413, 'tooLarge');
    if (error instanceof AppError && error.code === 'BAD_REQUEST')
      return refused(form, slug, headerLanguage, 400, 'unreadable');
    throw error;
  }
  const fields = posted.fields;
  const language = pickLanguage(url.searchParams.get('lang') ?? fields._lang, request.headers.get('accept-language'));
  if (honeypotFilled(fields)) return refused(form, slug, language, 400, 'generic');
  const client = clientHash(ip);

  // The draft is the one the page posted (never the cookie's: a fresh start after a submit posts none).
  let token = fields._d || null;
  let draft = token ? await db.tenant(form.tenantId, (tx) => findDraft(tx, form.formId, token)) : null;
  let formError: string | null = null;
  if (token && !draft) {
    const t = await getT(language);
    formError = t('apply:expired');
  }
  if (!draft) {
    const retry = await spendBudget(db, 'start', client);
    if (retry > 0) return refused(form, slug, language, 429, 'tooMany', retry);
    const started = await db.tenant(form.tenantId, (tx) =>
      startDraft(tx, { tenantId: form.tenantId, formId: form.formId, formVersion: form.version, language }),
    );
    token = started.token;
    draft = started.draft;
  }
  if (draft.submissionId)
    return { kind: 'redirect', status: 303, location: pageUrl(slug, { lang: language }), token: token! };
  const current = draft;
  const doc = await documentOf(db, form, current);
  const stepCount = doc.ui.steps.length;
  const postedStep = Number.parseInt(fields._step ?? '0', 10);
  const step = Math.max(0, Math.min(Number.isFinite(postedStep) ? postedStep : 0, current.step, stepCount));
  const nav = fields._nav === 'back' ? 'back' : fields._nav === 'submit' ? 'submit' : 'next';
  const t = await getT(language);
  const files = await db.tenant(form.tenantId, (tx) => draftFiles(tx, current.id));
  const base = { form, document: doc, language, token };

  if (formError) {
    // The draft expired or is unknown: a new one starts on the first step; what was posted is not kept.
    return stepView({ ...base, step: 0, values: {}, fileNames: {}, formError, status: 200 });
  }

  if (step === stepCount) {
    if (nav === 'back')
      return stepView({ ...base, step: stepCount - 1, values: current.answers, fileNames: namesOf(files) });
    return submitFromReview(db, form, doc, current, token!, language, client, fields, files);
  }

  const names = doc.ui.steps[step]!.fields;
  const coerced = coercePosted(doc, fields, names);
  const errors: Record<string, string> = {};
  for (const name of names) {
    const ui = doc.ui.fields[name];
    if (ui?.widget !== 'file') continue;
    const file = posted.files[name];
    if (file) {
      const check = checkFile(ui, file);
      if (check.ok) {
        files[name] = await storeDraftFile(db, {
          tenantId: form.tenantId,
          draftId: current.id,
          field: name,
          file,
          contentType: check.contentType,
        });
      } else {
        errors[name] =
          check.problem === 'fileSize'
            ? t('apply:errors.fileSize', { size: Math.round(((ui.maxBytes ?? 0) / (1024 * 1024)) * 10) / 10 })
            : t('apply:errors.fileType');
      }
    }
    // A file field's answer is the id of the file received, never a posted text.
    if (files[name]) coerced[name] = files[name].id;
    else delete coerced[name];
  }
  const answers: Answers = { ...current.answers };
  for (const name of names) delete answers[name];
  Object.assign(answers, coerced);

  if (nav === 'back') {
    await db.tenant(form.tenantId, (tx) => saveDraft(tx, current.id, { answers, step: current.step, language }));
    return stepView({ ...base, step: Math.max(0, step - 1), values: answers, fileNames: namesOf(files) });
  }
  const validation = validateAnswers(doc, answers, names);
  if (!validation.ok) for (const error of validation.errors) errors[error.field] ??= errorMessage(t, error);
  const problems =
    Object.keys(errors).length === 0
      ? await db.tenant(form.tenantId, (tx) => termProblems(tx, doc, form.productIds, keptAnswers(doc, answers), names))
      : [];
  for (const problem of problems) errors[problem.field] ??= termMessage(t, problem);
  const isValid = Object.keys(errors).length === 0;
  await db.tenant(form.tenantId, (tx) =>
    saveDraft(tx, current.id, { answers, step: isValid ? step + 1 : current.step, language }),
  );
  if (!isValid) return stepView({ ...base, step, values: answers, fileNames: namesOf(files), errors });
  return stepView({ ...base, step: step + 1, values: answers, fileNames: namesOf(files) });
}

async function submitFromReview(
  db: Db,
  form: PublishedForm,
  doc: FormDocument,
  draft: Draft,
  token: string,
  language: Language,
  client: string,
  fields: Record<string, string>,
  files: Record<string, { id: string; fileName: string }>,
): Promise<PageView> {
  const t = await getT(language);
  const base = { form, document: doc, language, token, values: draft.answers, fileNames: namesOf(files) };
  // Every step again (a step saved under an older rule, a file removed…): back to the first one wrong.
  const all = validateAnswers(doc, draft.answers);
  if (!all.ok) {
    const first = all.errors[0]!;
    const step = Math.max(
      0,
      doc.ui.steps.findIndex((s) => s.fields.includes(first.field)),
    );
    const errors: Record<string, string> = {};
    for (const error of all.errors)
      if (doc.ui.steps[step]!.fields.includes(error.field)) errors[error.field] = errorMessage(t, error);
    return stepView({ ...base, step, errors });
  }
  const retry = await spendBudget(db, 'submit', client);
  if (retry > 0) return refused(form, form.slug, language, 429, 'tooMany', retry);
  const pow = await checkPow(db, fields[POW_FIELD], { draft: token });
  if (pow === 'invalid' || pow === 'replayed')
    return stepView({ ...base, step: doc.ui.steps.length, formError: t('apply:powFailed'), status: 400 });
  if (pow === 'none') {
    const strict = await spendBudget(db, 'noPow', client);
    if (strict > 0) return refused(form, form.slug, language, 429, 'needsScript', strict);
  }
  const result = await submitDraft(db, {
    tenantId: form.tenantId,
    draftId: draft.id,
    formId: form.formId,
    formVersion: draft.formVersion,
    document: doc,
    productIds: form.productIds,
    language,
    clientHash: client,
  });
  if (!result.ok) {
    const first = result.problems[0]!;
    const step = Math.max(
      0,
      doc.ui.steps.findIndex((s) => s.fields.includes(first.field)),
    );
    const errors: Record<string, string> = {};
    for (const problem of result.problems) errors[problem.field] = termMessage(t, problem);
    return stepView({ ...base, step, errors });
  }
  if (result.isNew)
    await sendReceipt({
      to: result.submission.receipt_email,
      language,
      formTitle: form.name,
      reference: result.submission.reference,
      outcome: result.submission.outcome ?? 'received',
    });
  return { kind: 'redirect', status: 303, location: pageUrl(form.slug, { lang: language }), token };
}
