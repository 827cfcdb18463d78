import type { APIRoute } from 'astro';
import { requirePrincipal } from '#lib/auth/principal.ts';
import { pageDb } from '../../../../server/db.ts';
import { contentDisposition } from '#lib/http/content-disposition.ts';
import { errorResponse } from '#lib/http/respond.ts';
import { getT, LANGUAGES, type Language } from '#lib/i18n/index.ts';
import { offerLetter } from '#lib/offers-ui/offer-letter.ts';

/** GET /v1/offers/{id}/letter?lang=fr → the offer letter as a PDF in the user's language (the route manifest asks loans.offers.print; the offer is loaded through the caller's scope). */
export const GET: APIRoute = async ({ params, url, locals }) => {
  try {
    const principal = requirePrincipal(locals.principal);
    const asked = url.searchParams.get('lang');
    const language: Language =
      asked && (LANGUAGES as readonly string[]).includes(asked) ? (asked as Language) : locals.language;
    const db = await pageDb();
    const { bytes, fileName } = await offerLetter(db, principal, params.id ?? '', language, await getT(language));
    return new Response(bytes as Uint8Array<ArrayBuffer>, {
      status: 200,
      headers: {
        'content-type': 'application/pdf',
        'content-disposition': contentDisposition('inline', fileName),
        'cache-control': 'no-store',
      },
    });
  } catch (error) {
    return errorResponse(error, locals.requestId);
  }
};
