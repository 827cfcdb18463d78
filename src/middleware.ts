import { sequence } from 'astro:middleware';
import { requestContext } from './server/middleware/request-context.ts';

/**
 * The request pipeline, a sequence of small named steps, deny by default. Steps live in
 * src/server/middleware (Astro glue); the decisions they make live in src/lib.
 */
export const onRequest = sequence(requestContext);
