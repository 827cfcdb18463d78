import type { APIRoute } from 'astro';
import { finishSsoCallback } from '#lib/auth/oidc.ts';
import { ssoTestResultPath } from '#lib/tenancy/settings.ts';
import { pageDb } from '../../../../server/db.ts';
import { logger } from '#lib/observability/log.ts';
import {
  clearOidcStateCookie,
  finishSignIn,
  publicOrigin,
  readOidcStateCookie,
  requestIp,
} from '../../../../server/session.ts';

/**
 * GET /v1/auth/oidc/callback — the provider sends the browser back here with code and state.
 * Any refusal (tampered or replayed state, wrong nonce, reused code, unlinked identity) lands on the
 * login page with a neutral message; the reason goes to the log only.
 */
export const GET: APIRoute = async (context) => {
  const browserState = readOidcStateCookie(context.cookies);
  clearOidcStateCookie(context.cookies);
  const db = await pageDb();
  try {
    const finished = await finishSsoCallback(db, {
      callbackUrl: `${publicOrigin(context.url)}/v1/auth/oidc/callback`,
      query: context.url.searchParams,
      browserState,
      now: new Date(),
      ip: requestIp(context),
      userAgent: context.request.headers.get('user-agent') ?? undefined,
    });
    // A "test sign-in" from the settings page: back to it with the outcome, nobody signed in.
    if (finished.kind === 'test') return context.redirect(ssoTestResultPath(finished.outcome), 303);
    const done = finished.signIn;
    const location = await finishSignIn(context, {
      ...done,
      passwordChangeRequired: false,
      redirect: done.redirectTo || null,
      method: 'sso',
    });
    return context.redirect(location, 303);
  } catch (error) {
    logger.warn('sso callback refused', {
      request_id: context.locals.requestId,
      reason: (error as { internal?: string }).internal ?? String(error),
    });
    return context.redirect('/user/login?message=sso_failed', 303);
  }
};
