/// <reference types="astro/client" />

declare namespace App {
  interface Locals {
    /** Correlation id of this request (x-request-id), carried into logs and 5xx bodies. */
    requestId: string;
    /** UI language for this request: the user's, else the tenant's default, else 'en'. */
    language: import('#lib/i18n/index.ts').Language;
    /** The signed-in user or API client; absent on public routes when signed out. */
    principal?: import('#lib/auth/principal.ts').Principal;
    /** The caller's tenant (from the session or the x-tenant-id of an API token). */
    tenant?: import('#lib/tenancy/tenant.ts').Tenant;
    /** The decoded, canonical request path the guard decided on (src/lib/http/canonical-path.ts). */
    canonicalPath?: string;
    /** The manifest entry of this page or API route, when one matched (src/lib/auth/route-manifest.ts). */
    route?: import('#lib/auth/route-manifest.ts').RouteEntry | import('#lib/auth/route-manifest.ts').ApiRouteEntry;
    /** Set by the guard when the page's plan feature is not in the tenant's plan (src/pages/plan-required.astro). */
    planRefusal?: { feature: string; plan: string | null };
    /** The client mistake the /400 page explains (src/server/middleware/client-errors.ts). */
    clientError?: import('#lib/http/client-errors.ts').ClientError;
  }
}
