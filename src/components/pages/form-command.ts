import type { AstroGlobal } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { formErrorOf } from '#lib/errors/messages.ts';
import { runCommand, type Command } from '#lib/http/command.ts';
import { actorFromPrincipal } from '#lib/lending/actor.ts';
import { pageDb } from '../../server/db.ts';
import { requestIp } from '../../server/session.ts';

/**
 * The form adapter of a command (src/lib/http/command.ts): a page whose plain HTML form posts to
 * itself (it works without JavaScript) runs the same command as the /v1 endpoint the islands call.
 * Success: a 303 to `redirect(output)`, so a reload does not post again. Refusal: the response gets
 * the refusal's status and the page shows the message (in the user's language, naming the field)
 * with the values as they were typed. Errors that are not the user's (5xx) are thrown on.
 */
export type FieldError = { field?: string; message: string; rows?: { row: number; field: string; message: string }[] };
export type FormValues = Record<string, string>;
export type FormRefusal = { kind: 'refused'; values: FormValues; error: FieldError; details?: Record<string, unknown> };
/** The command ran but its answer is shown on the page itself (`redirect` gave null), e.g. possible duplicates to confirm. */
export type FormAnswer<O> = { kind: 'answered'; values: FormValues; output: O };
/** What the page does next; 'answered' only when `redirect` may give null. */
export type FormOutcome<O, R extends string | null = string> =
  { kind: 'redirect'; location: string } | FormRefusal | (null extends R ? FormAnswer<O> : never);

/** The text fields of a posted form (files and repeated names aside: `form.getAll` reads those). */
export function formValues(form: FormData): FormValues {
  const values: FormValues = {};
  for (const [name, value] of form.entries()) if (typeof value === 'string' && !(name in values)) values[name] = value;
  return values;
}

export async function formCommand<I, O, R extends string | null = string>(
  Astro: AstroGlobal,
  command: Command<I, O>,
  spec: {
    /** The posted form (read once by the page, which may choose the command by a field such as `_action`). */
    form: FormData;
    /** The command's raw input from the form's values (default: the values themselves). */
    input?: (values: FormValues, form: FormData) => unknown;
    /** The object the command acts on, for the audit of a refusal. */
    objectId?: string | null;
    redirect: (output: O) => R;
  },
): Promise<FormOutcome<O, R>> {
  const values = formValues(spec.form);
  const language = Astro.locals.language ?? 'en';
  try {
    const principal = requirePrincipal(Astro.locals.principal);
    const actor = actorFromPrincipal(principal, {
      // The same client address as the middleware (X-Forwarded-For only with TRUST_PROXY): the IP rules' lockout check uses it.
      ip: requestIp(Astro),
      requestId: Astro.locals.requestId ?? null,
    });
    const readInput = () => (spec.input ? spec.input(values, spec.form) : values);
    const output = await runCommand(
      { db: await pageDb(), actor, permissionSubject: principal, objectId: spec.objectId, language },
      command,
      readInput,
    );
    const location = spec.redirect(output);
    if (location === null) return { kind: 'answered', values, output } as FormOutcome<O, R>;
    return { kind: 'redirect', location };
  } catch (error) {
    const refusal = formErrorOf(error, language);
    if (!refusal) throw error;
    Astro.response.status = refusal.status;
    const details = (error as { details?: Record<string, unknown> }).details;
    const rows = details?.rows as FieldError['rows'] | undefined;
    return {
      kind: 'refused',
      values,
      error: { field: refusal.field, message: refusal.message, ...(rows ? { rows } : {}) },
      ...(details ? { details } : {}),
    };
  }
}
