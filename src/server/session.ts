import type { AstroCookies, AstroCookieSetOptions } from 'astro';
import { sealData, unsealData } from 'iron-session';
import { env } from '#lib/config/env.ts';
import { clientIp } from '#lib/auth/client-ip.ts';
import { ABSOLUTE_TIMEOUT_MS, endSession } from '#lib/auth/sessions.ts';
import { recordEvent } from '#lib/analytics/events.ts';
import { safeRedirect } from '#lib/auth/redirect.ts';
import { getDb } from '#lib/db/index.ts';
import { findTenant } from '#lib/tenancy/tenant.ts';

/**
 * The iron-session adapter: the session cookie is sealed (encrypted and authenticated with
 * SESSION_SECRET) and holds only { sessionId, tenantId }. It proves nothing by itself — every
 * request checks the session row (src/lib/auth/sessions.ts checkSession).
 *
 * Cookie names and flags: in production (NODE_ENV=production, or PUBLIC_URL on https) the cookie is
 * `__Host-session`, Secure, HttpOnly, SameSite=Lax, Path=/ — the `__Host-` prefix makes the browser
 * refuse it unless it is Secure, host-only and path /, so a sibling subdomain cannot plant or
 * shadow it. In development and the tests the app is served over plain http://localhost, where a
 * Secure cookie (and therefore a `__Host-` one) is not reliably stored by every browser and never
 * over plain http on other hosts, so the cookie is `session` without Secure; the other flags stay.
 */
export type SessionCookie = { sessionId: string; tenantId: string };

export function isSecureCookies(): boolean {
  const config = env();
  return config.isProduction || Boolean(config.publicUrl?.startsWith('https://'));
}

export function sessionCookieName(): string {
  return isSecureCookies() ? '__Host-session' : 'session';
}

/** The short-lived cookie binding an SSO round trip to the browser that started it. */
export function oidcStateCookieName(): string {
  return isSecureCookies() ? '__Host-oidc-state' : 'oidc-state';
}

function cookieOptions(): AstroCookieSetOptions {
  return { path: '/', httpOnly: true, sameSite: 'lax', secure: isSecureCookies() };
}

function secret(): string {
  const value = process.env.SESSION_SECRET;
  if (!value || value.length < 32)
    throw new Error('SESSION_SECRET is missing or shorter than 32 characters (boot sets it)');
  return value;
}

export async function readSessionCookie(cookies: AstroCookies): Promise<SessionCookie | null> {
  const sealed = cookies.get(sessionCookieName())?.value;
  if (!sealed) return null;
  try {
    const data = await unsealData<Partial<SessionCookie>>(sealed, {
      password: secret(),
      ttl: ABSOLUTE_TIMEOUT_MS / 1000,
    });
    return typeof data.sessionId === 'string' && typeof data.tenantId === 'string'
      ? { sessionId: data.sessionId, tenantId: data.tenantId }
      : null;
  } catch {
    return null;
  }
}

/** Sets the cookie for a new session. No Max-Age: it ends with the browser; the server ends it sooner. */
export async function writeSessionCookie(cookies: AstroCookies, value: SessionCookie): Promise<void> {
  const sealed = await sealData(value, { password: secret(), ttl: ABSOLUTE_TIMEOUT_MS / 1000 });
  cookies.set(sessionCookieName(), sealed, cookieOptions());
}

export function clearSessionCookie(cookies: AstroCookies): void {
  cookies.delete(sessionCookieName(), cookieOptions());
}

export function writeOidcStateCookie(cookies: AstroCookies, state: string): void {
  cookies.set(oidcStateCookieName(), state, { ...cookieOptions(), maxAge: 600 });
}

export function readOidcStateCookie(cookies: AstroCookies): string | undefined {
  return cookies.get(oidcStateCookieName())?.value;
}

export function clearOidcStateCookie(cookies: AstroCookies): void {
  cookies.delete(oidcStateCookieName(), cookieOptions());
}

/** The caller's IP (X-Forwarded-For only with TRUST_PROXY; see src/lib/auth/client-ip.ts). */
export function requestIp(context: { request: Request; clientAddress?: string }): string {
  let direct: string | undefined;
  try {
    direct = context.clientAddress;
  } catch {
    direct = undefined;
  }
  return clientIp(direct, context.request.headers.get('x-forwarded-for'));
}

/** The public origin for links in mail and the OIDC callback: PUBLIC_URL, else the request's own. */
export function publicOrigin(requestUrl: URL): string {
  const configured = env().publicUrl;
  return configured ? new URL(configured).origin : requestUrl.origin;
}

/** Remembers the lender (tenant slug) of the last sign-in on this browser, to offer its single sign-on. */
export const LENDER_COOKIE = 'lender';

/**
 * After any successful sign-in (password, second factor, single sign-on): the new session's cookie,
 * the remembered lender, the 'login' analytics event when the user came from a remembered origin
 *, and where to go next — the forced password change first, else the origin.
 */
export async function finishSignIn(
  context: { cookies: AstroCookies },
  input: {
    tenantId: string;
    userId: string;
    sessionId: string;
    passwordChangeRequired: boolean;
    redirect: string | null;
    method: string;
  },
): Promise<string> {
  const db = await getDb();
  // Signing in again in the same browser replaces the old session: end it rather than leave it alive.
  const previous = await readSessionCookie(context.cookies);
  if (previous && previous.sessionId !== input.sessionId) {
    await db
      .tenant(previous.tenantId, (tx) => endSession(tx, { ...previous, now: new Date(), reason: 'replaced' }))
      .catch(() => undefined);
  }
  await writeSessionCookie(context.cookies, { sessionId: input.sessionId, tenantId: input.tenantId });
  const tenant = await findTenant(db, input.tenantId);
  if (tenant)
    context.cookies.set(LENDER_COOKIE, tenant.slug, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: isSecureCookies(),
      maxAge: 365 * 24 * 3600,
    });
  const target = safeRedirect(input.redirect);
  if (input.redirect && target !== '/') {
    await db.tenant(input.tenantId, (tx) =>
      recordEvent(tx, {
        tenantId: input.tenantId,
        name: 'login',
        userId: input.userId,
        path: target.split(/[?#]/)[0],
        properties: { method: input.method },
      }),
    );
  }
  if (input.passwordChangeRequired)
    return `/user/reset-password${target !== '/' ? `?redirect=${encodeURIComponent(target)}` : ''}`;
  return target;
}

/** Query string carrying the language choice and the origin between the auth pages. */
export function authQuery(params: { lang?: string | null; redirect?: string | null; tenant?: string | null }): string {
  const query = new URLSearchParams();
  if (params.lang) query.set('lang', params.lang);
  if (params.redirect) query.set('redirect', params.redirect);
  if (params.tenant) query.set('tenant', params.tenant);
  const text = query.toString();
  return text ? `?${text}` : '';
}
