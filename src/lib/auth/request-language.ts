import { languageOf, type Language } from '../i18n/index.ts';

/** Signed out: ?lang= (en/fr), else the browser's Accept-Language preference, else English. */
export function requestedLanguage(url: URL, acceptLanguage: string | null): Language {
  const asked = url.searchParams.get('lang');
  if (asked) return languageOf(asked);
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.toLowerCase(), q: q ? Number(q.slice(2)) || 0 : 1 };
    })
    .filter((entry) => entry.tag && entry.q > 0)
    .sort((a, b) => b.q - a.q);
  const first = ranked.find((entry) => entry.tag.startsWith('fr') || entry.tag.startsWith('en'));
  return first ? languageOf(first.tag) : 'en';
}
