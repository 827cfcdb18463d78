import type { AstroGlobal } from 'astro';
import { ZodError } from 'zod';
import { AppError } from '../../lib/errors/app-error.ts';
import { getDb } from '../../lib/db/index.ts';
import { updateOwnProfile } from '../../lib/home/profile.ts';

/**
 * The profile form posts to its own page (works without JavaScript). On success: 303 back to the
 * page (so a reload does not post again); on bad input: the message, naming the field.
 */
export async function handleProfilePost(Astro: AstroGlobal): Promise<{ redirect?: string; error?: { field?: string; message: string } }> {
  if (Astro.request.method !== 'POST') return {};
  const principal = Astro.locals.principal;
  if (!principal || principal.via !== 'session') return { error: { message: 'Sign in to continue.' } };
  const form = await Astro.request.formData();
  try {
    await updateOwnProfile(await getDb(), {
      tenantId: principal.tenantId,
      userId: principal.userId,
      input: { display_name: String(form.get('display_name') ?? ''), language: String(form.get('language') ?? '') },
      requestId: Astro.locals.requestId,
    });
    return { redirect: `${Astro.url.pathname}?saved=1` };
  } catch (error) {
    if (error instanceof ZodError) {
      const issue = error.issues[0];
      return { error: { field: String(issue?.path[0] ?? ''), message: `${String(issue?.path[0] ?? '')}: ${issue?.message ?? 'invalid'}` } };
    }
    if (error instanceof AppError) return { error: { field: error.field, message: error.message } };
    throw error;
  }
}
