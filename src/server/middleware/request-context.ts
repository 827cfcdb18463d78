import crypto from 'node:crypto';
import { defineMiddleware } from 'astro:middleware';
import { DEFAULT_LANGUAGE } from '#lib/i18n/index.ts';

/** First step: the request id (set by scripts/server.mjs, or made here in dev) and a default language. */
export const requestContext = defineMiddleware((context, next) => {
  context.locals.requestId = context.request.headers.get('x-request-id') ?? crypto.randomUUID();
  context.locals.language = DEFAULT_LANGUAGE;
  return next();
});
