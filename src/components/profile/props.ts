import type { TFunction } from 'i18next';
import type { Language } from '#lib/i18n/index.ts';
import { formatMoney, fromMinor } from '#lib/money/money.ts';
import type { ProfileContext, PostOutcome } from './profile.ts';

/** What every profile subpage component receives from the shell. */
export type ViewProps = {
  ctx: ProfileContext;
  t: TFunction;
  language: Language;
  error?: PostOutcome['error'];
  posted?: PostOutcome['posted'];
};

export function moneyOf(ctx: ProfileContext, language: Language) {
  return (minor: bigint | null | undefined, currency = ctx.currency) =>
    minor === null || minor === undefined ? '—' : formatMoney(fromMinor(minor, currency), language);
}

/** Basis points as a percentage text ("33.3 %"). */
export function bpText(bp: number | null, language: Language): string {
  if (bp === null) return '—';
  return new Intl.NumberFormat(language === 'fr' ? 'fr-FR' : 'en-US', {
    style: 'percent',
    maximumFractionDigits: 1,
  }).format(bp / 10000);
}
