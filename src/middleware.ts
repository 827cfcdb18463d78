import { sequence } from 'astro:middleware';
import { authenticate } from './server/middleware/authenticate.ts';
import { canonicalPath } from './server/middleware/canonical-path.ts';
import { clientErrors } from './server/middleware/client-errors.ts';
import { csrf } from './server/middleware/csrf.ts';
import { guard } from './server/middleware/guard.ts';
import { ipRestriction } from './server/middleware/ip-restriction.ts';
import { requestContext } from './server/middleware/request-context.ts';
import { securityHeaders } from './server/middleware/security-headers.ts';

/**
 * The request pipeline, a sequence of small named steps, deny by default. Steps live in
 * src/server/middleware (Astro glue); the decisions they make live in src/lib.
 *  1. requestContext  — request id, default language
 *  2. securityHeaders — wraps everything below: HSTS/nosniff/no-store on whatever is answered; the CSP
 *                       is the renderer's (astro.config.mjs security.csp), a script-less one otherwise
 *  3. canonicalPath   — one spelling per path, before any decision (refuse or redirect the rest)
 *  4. csrf            — cross-site mutating requests refused before any session lookup
 *  5. authenticate    — locals.principal / tenant / language from the cookie or API token
 *  6. ipRestriction   — a signed-in caller outside the tenant's IP allowlist is refused
 *  7. guard           — the route manifest decides: login, 401, 403 page, 404 page, or on
 *  8. clientErrors    — client mistakes answer 4xx: bad query strings, odd methods on pages, and
 *                       the 404/403/400 a page's frontmatter throws (with the section's page)
 */
export const onRequest = sequence(
  requestContext,
  securityHeaders,
  canonicalPath,
  csrf,
  authenticate,
  ipRestriction,
  guard,
  clientErrors,
);
