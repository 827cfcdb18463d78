import type { TFunction } from 'i18next';
import { AppError } from '#lib/errors/app-error.ts';
import { formatDateTime } from '#lib/i18n/format.ts';
import type { Language } from '#lib/i18n/index.ts';
import { checkCron, describeCron, nextRuns } from '#lib/scheduled-exports/cron.ts';
import type { ExportSource } from '#lib/scheduled-exports/model.ts';

/** The schedule as the pages show it: in words, and its next three run times in the tenant's zone. */
export function scheduleView(
  t: TFunction,
  language: Language,
  timeZone: string,
  cron: string,
): { words: string | null; next: string[]; error: string | null } {
  try {
    const canonical = checkCron(cron, timeZone);
    return {
      words: describeCron(canonical, { t: (k, o) => t(k, o ?? {}), language }),
      next: nextRuns(canonical, timeZone, 3).map((d) => formatDateTime(d, language, timeZone)),
      error: null,
    };
  } catch (error) {
    return { words: null, next: [], error: error instanceof AppError ? error.message : String(error) };
  }
}

/** A source in words: the list's name, and the view or query name when there is one. */
export function sourceLabel(t: TFunction, source: ExportSource, names: Map<string, string>): string {
  if (source.kind === 'query') return `${t('schedexports:sourceQuery')} — ${names.get(source.queryId) ?? '?'}`;
  const list = t(`schedexports:lists.${source.list}`, { defaultValue: source.list });
  const parts = [list];
  if (source.viewId) parts.push(names.get(source.viewId) ?? '?');
  if (source.tab) parts.push(`${t('schedexports:form.tab')}: ${source.tab}`);
  if (Object.keys(source.filters).length) parts.push(new URLSearchParams(source.filters).toString());
  return parts.join(' — ');
}
