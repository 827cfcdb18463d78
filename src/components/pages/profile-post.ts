import type { AstroGlobal } from 'astro';
import { updateOwnProfileCommand } from '#lib/home/profile.ts';
import { formCommand, type FieldError } from './form-command.ts';

/**
 * The user profile form posts to its own page (works without JavaScript) and runs the profile
 * command through the form adapter: 303 back to the page on success, the message naming the field
 * on bad input. Only a signed-in session edits its own profile (an API token has no profile page).
 */
export async function handleProfilePost(Astro: AstroGlobal): Promise<{ redirect?: string; error?: FieldError }> {
  if (Astro.request.method !== 'POST') return {};
  const principal = Astro.locals.principal;
  if (!principal || principal.via !== 'session') return { error: { message: 'Sign in to continue.' } };
  const outcome = await formCommand(Astro, updateOwnProfileCommand, {
    form: await Astro.request.formData(),
    input: (values) => ({ display_name: values.display_name ?? '', language: values.language ?? '' }),
    redirect: () => `${Astro.url.pathname}?saved=1`,
  });
  return outcome.kind === 'redirect' ? { redirect: outcome.location } : { error: outcome.error };
}
