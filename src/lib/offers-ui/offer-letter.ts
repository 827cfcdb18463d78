import type { TFunction } from 'i18next';
import type { Principal } from '../auth/principal.ts';
import type { Db } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { isCustomerInScope, getCustomer } from '../lending/customers.ts';
import { getOffer } from '../lending/offers.ts';
import { productOf } from '../lending/products.ts';
import { formatDate } from '../i18n/format.ts';
import type { Language } from '../i18n/index.ts';
import { resolveScopeNodes } from '../tenancy/scope.ts';
import { businessDate } from '../tenancy/tenant.ts';
import { fromMinor, toDecimalString } from '../money/money.ts';
import { textPdf } from './pdf.ts';

/**
 * The printable offer letter (offers: print): the customer, the offer's terms and code, in
 * the user's language. An offer of a customer outside the user's data permissions is a 404.
 */
export async function offerLetter(db: Db, principal: Principal, offerId: string, language: Language, t: TFunction) {
  return db.tenant(principal.tenantId, async (tx) => {
    const offer = await getOffer(tx, offerId);
    if (!(await isCustomerInScope(tx, offer.customer_id, await resolveScopeNodes(tx, principal, null)))) {
      throw new AppError('NOT_FOUND', 'Offer not found', { field: 'offerId' });
    }
    const customer = await getCustomer(tx, offer.customer_id);
    const product = await productOf(tx, offer);
    const today = await businessDate(tx, principal.tenantId);
    const offered = fromMinor(offer.principal, offer.currency);
    const amount = `${toDecimalString(offered)} ${offered.currency}`;
    const title = t('flows:letter.title', { code: offer.code });
    const bytes = textPdf(
      [
        { text: title, size: 18, isBold: true },
        { text: formatDate(today, language), gapBefore: 6 },
        { text: t('flows:letter.greeting', { name: `${customer.first_name} ${customer.last_name}` }), gapBefore: 18 },
        { text: t('flows:letter.body', { product: product.name }), gapBefore: 6 },
        { text: `${t('flows:offer.principal')}: ${amount}`, gapBefore: 12, isBold: true },
        { text: `${t('flows:offer.term')}: ${offer.number_of_repayments}` },
        { text: `${t('flows:offer.rate')}: ${offer.annual_interest_rate} %` },
        { text: `${t('flows:offer.expiresOn')}: ${formatDate(offer.expires_on, language)}` },
        { text: `${t('flows:offer.code')}: ${offer.code}`, isBold: true },
        { text: t('flows:letter.closing'), gapBefore: 18 },
      ],
      { title },
    );
    return { bytes, fileName: `offer-${offer.code}.pdf` };
  });
}
