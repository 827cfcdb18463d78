import type { AstroGlobal } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../server/db.ts';
import { loadApplicationPage, loadLoanPage, loadOfferPage } from '#lib/offers-ui/pages.ts';

/**
 * The objects of the customer-profile flow pages, loaded by each PAGE's frontmatter (never inside a
 * nested component): a missing, malformed or out-of-scope id throws AppError NOT_FOUND before the
 * first byte is sent, and the client-errors middleware step answers the section's 404 page with
 * status 404. A component deciding this while the page streams could only ever answer 200.
 */
export type OfferData = Awaited<ReturnType<typeof loadOfferPage>>;
export type LoanData = Awaited<ReturnType<typeof loadLoanPage>>;
export type ApplicationData = Awaited<ReturnType<typeof loadApplicationPage>>;

export async function offerOfPage(Astro: AstroGlobal): Promise<OfferData> {
  return loadOfferPage(
    await pageDb(),
    requirePrincipal(Astro.locals.principal),
    Astro.params.customerId ?? '',
    Astro.params.offerId ?? '',
  );
}

export async function loanOfPage(Astro: AstroGlobal): Promise<LoanData> {
  return loadLoanPage(
    await pageDb(),
    requirePrincipal(Astro.locals.principal),
    Astro.params.customerId ?? '',
    Astro.params.loanId ?? '',
  );
}

export async function applicationOfPage(Astro: AstroGlobal): Promise<ApplicationData> {
  return loadApplicationPage(
    await pageDb(),
    requirePrincipal(Astro.locals.principal),
    Astro.params.customerId ?? '',
    Astro.params.loanId ?? '',
  );
}
