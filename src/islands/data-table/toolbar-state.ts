/**
 * Pure URL edits of the list toolbar, kept apart from React so they are unit-tested: each returns
 * the query string the page navigates to. A new filter or column choice resets the position
 * (page, cursor), because the old position means nothing in the new result.
 */
export type FilterKind = 'text' | 'enum' | 'date-range' | 'money-range' | 'number-range' | 'boolean';

function withoutPosition(query: string): URLSearchParams {
  const params = new URLSearchParams(query);
  params.delete('page');
  params.delete('cursor');
  return params;
}

function readable(params: URLSearchParams): string {
  return params.toString().replace(/%2C/g, ',').replace(/%3A/g, ':');
}

/** Replaces every `f.*` parameter with the given filters (empty values are dropped). */
export function applyFilters(query: string, filters: Record<string, string>): string {
  const params = withoutPosition(query);
  for (const name of [...params.keys()]) if (name.startsWith('f.')) params.delete(name);
  for (const key of Object.keys(filters).sort()) {
    const value = filters[key]!.trim();
    if (value && value !== '..') params.set(`f.${key}`, value);
  }
  return readable(params);
}

/** Sets the chosen columns; the defaults when none is chosen. */
export function applyColumns(query: string, columns: readonly string[]): string {
  const params = withoutPosition(query);
  if (columns.length) params.set('cols', columns.join(','));
  else params.delete('cols');
  return readable(params);
}

export function rangeValue(from: string, to: string): string {
  return from || to ? `${from}..${to}` : '';
}

export function splitRange(value: string | undefined): [string, string] {
  const [from = '', to = ''] = (value ?? '').split('..');
  return [from, to];
}
