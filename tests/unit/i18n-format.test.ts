import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatDate,
  formatDateTime,
  formatDecimalMoney,
  formatMoney,
  formatNumber,
  formatTime,
} from '#lib/i18n/format.ts';
import { getT, languageOf } from '#lib/i18n/index.ts';
import { fromMinor } from '#lib/money/money.ts';

// Intl puts narrow no-break spaces in French numbers; compare with plain spaces.
const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('dates and times', () => {
  it('French dates are DD/MM/YYYY, times HH:mm:ss', () => {
    expect(formatDate('2026-03-07', 'fr')).toBe('07/03/2026');
    expect(formatTime(new Date('2026-03-07T13:04:05Z'), 'fr', 'UTC')).toBe('13:04:05');
    expect(formatDateTime(new Date('2026-03-07T23:30:00Z'), 'fr', 'Europe/Paris')).toBe('08/03/2026 00:30:00');
  });
  it('English dates are MM/DD/YYYY', () => {
    expect(formatDate('2026-03-07', 'en')).toBe('03/07/2026');
  });
  it('a calendar date never shifts with the time zone', () => {
    expect(formatDate('2026-01-01', 'fr', 'America/New_York')).toBe('01/01/2026');
  });
  it('empty and invalid values give an empty string', () => {
    expect(formatDate(null, 'fr')).toBe('');
    expect(formatDate('not a date', 'en')).toBe('');
  });
});

describe('numbers and money through Intl', () => {
  it('money to the cent from minor units, no float', () => {
    expect(plain(formatMoney(fromMinor(123456789012345678n, 'EUR'), 'fr'))).toBe('1 234 567 890 123 456,78 €');
    expect(formatMoney(fromMinor(-1050n, 'USD'), 'en')).toBe('-$10.50');
    expect(plain(formatMoney(fromMinor(1500n, 'XOF'), 'fr'))).toBe('1 500 F CFA');
  });
  it('decimal strings from the API, in their currency, no float', () => {
    expect(formatDecimalMoney('9350.00', 'EUR', 'en')).toBe('€9,350.00');
    expect(plain(formatDecimalMoney('90071992547409.93', 'EUR', 'fr'))).toBe('90 071 992 547 409,93 €');
    expect(plain(formatDecimalMoney('1500', 'XOF', 'fr'))).toBe('1 500 F CFA');
    expect(formatDecimalMoney(undefined, 'EUR', 'en')).toBe('—');
  });
  it('numbers', () => {
    expect(plain(formatNumber(1234567.5, 'fr'))).toBe('1 234 567,5');
    expect(formatNumber(1234567.5, 'en')).toBe('1,234,567.5');
    expect(plain(formatBytes(2048, 'fr'))).toBe('2 Ko');
    expect(formatBytes(512, 'en')).toBe('512 B');
  });
});

describe('languages', () => {
  it('French when the locale starts with fr, English otherwise', () => {
    expect(languageOf('fr-FR')).toBe('fr');
    expect(languageOf('fr')).toBe('fr');
    expect(languageOf('en-US')).toBe('en');
    expect(languageOf(undefined)).toBe('en');
  });
  it('the error-report texts are exact', async () => {
    const t = await getT('en');
    expect(t('errors:forbiddenAdmins', { users: 'Ada (ada@demo.test)' })).toBe(
      'Sorry, you don’t have permission to access this page. For access, please reach out to one of the administrators: Ada (ada@demo.test)',
    );
    expect(t('errors:failedToLoadAdmins')).toBe('failed to load administrators');
    expect(t('common:report.sent')).toBe('Error report sent, thank you!');
    expect(t('common:report.failed')).toBe('Failed to send error report');
    expect(t('errors:unexpected')).toBe('Unexpected Application Error!');
    expect([t('errors:titles.404'), t('errors:titles.500'), t('errors:titles.403')]).toEqual([
      'No Found',
      'Server Error',
      'Unauthorized',
    ]);
  });
  it('French navigation comes out in French', async () => {
    const t = await getT('fr');
    expect(t('nav:sections.loans')).toBe('Prêts');
    expect(t('common:report.sent')).toBe('Rapport d’erreur envoyé, merci !');
  });
});
