import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { handle, json } from '#lib/http/respond.ts';

/**
 * GET /v1/auth/session → { idle_timeout, via } or 401 once the session has ended.
 * The keep-alive of the shell's idle timer: the server measures idleness by requests, so a user who
 * is active in the page (mouse, keys) without loading anything would be signed out on the server
 * while the browser still counts them active. The idle timer calls this (without x-background) at
 * most every idle_timeout/2 seconds while there is activity; authenticate has already touched the
 * session by the time this runs.
 */
export const GET: APIRoute = (context) =>
  handle(context.locals.requestId, async () => {
    const principal = requirePrincipal(context.locals.principal);
    return json({ idle_timeout: principal.idleTimeout, via: principal.via });
  });
