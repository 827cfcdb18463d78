import type { AstroCookies, AstroCookieSetOptions } from 'astro';
import { sealData, unsealData } from 'iron-session';
import { env } from '../lib/config/env.ts';
import { clientIp } from '../lib/auth/client-ip.ts';
import { ABSOLUTE_TIMEOUT_MS } from '../lib/auth/sessions.ts';

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
  if (!value || value.length < 32) throw new Error('SESSION_SECRET is missing or shorter than 32 characters (boot sets it)');
  return value;
}

export async function readSessionCookie(cookies: AstroCookies): Promise<SessionCookie | null> {
  const sealed = cookies.get(sessionCookieName())?.value;
  if (!sealed) return null;
  try {
    const data = await unsealData<Partial<SessionCookie>>(sealed, { password: secret(), ttl: ABSOLUTE_TIMEOUT_MS / 1000 });
    return typeof data.sessionId === 'string' && typeof data.tenantId === 'string' ? { sessionId: data.sessionId, tenantId: data.tenantId } : null;
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
