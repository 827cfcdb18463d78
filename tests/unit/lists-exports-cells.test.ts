import { describe, expect, it } from 'vitest';
import { neutralise, toCell } from '#lib/exports/cells.ts';
import { csvField } from '#lib/exports/csv-writer.ts';
import { listAccess } from '#lib/lists/access.ts';
import { decideAccess } from '#lib/auth/guard.ts';
import type { Principal } from '#lib/auth/principal.ts';
import type { ColumnDef } from '#lib/lists/definition.ts';
import type { ListRow } from '#lib/lists/query.ts';

const t = (key: string) => `<${key}>`;
const row = (value: unknown, currency?: string): ListRow => ({
  id: 'x',
  href: null,
  values: { v: value },
  currencies: currency ? { v: currency } : {},
});
const col = (type: ColumnDef['type'], extra: Partial<ColumnDef> = {}): ColumnDef => ({
  key: 'v',
  label: 'l',
  sql: 'v',
  type,
  ...extra,
});

describe('export cells', () => {
  it('neutralises every formula start OWASP lists, and nothing else', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r'])
      expect(neutralise(`${start}cmd|' /C calc'!A0`)).toBe(`'${start}cmd|' /C calc'!A0`);
    expect(neutralise('Dupont')).toBe('Dupont');
    expect(neutralise(' =1')).toBe(' =1');
    expect(neutralise('')).toBe('');
  });

  it('writes money to the cent in its currency digits, never through a float', () => {
    expect(toCell(col('money'), row(123456789012345678n, 'EUR'), 'EUR', t)).toEqual({
      kind: 'number',
      text: '1234567890123456.78',
      digits: 2,
    });
    expect(toCell(col('money'), row(-5n, 'EUR'), 'EUR', t)).toEqual({ kind: 'number', text: '-0.05', digits: 2 });
    expect(toCell(col('money'), row(1500n, 'XOF'), 'EUR', t)).toEqual({ kind: 'number', text: '1500', digits: 0 });
    expect(toCell(col('money'), row(1500n), 'KWD', t)).toEqual({ kind: 'number', text: '1.500', digits: 3 });
  });

  it('types the other cells and neutralises text from users, enum labels included', () => {
    expect(toCell(col('text'), row('=1+1'), 'EUR', t)).toEqual({ kind: 'text', text: "'=1+1" });
    expect(toCell(col('enum', { optionLabelPrefix: 'p' }), row('A'), 'EUR', t)).toEqual({
      kind: 'text',
      text: '<p.A>',
    });
    expect(toCell(col('date'), row('2026-03-15'), 'EUR', t)).toEqual({ kind: 'date', text: '2026-03-15' });
    expect(toCell(col('number'), row(42), 'EUR', t)).toEqual({ kind: 'number', text: '42', digits: 0 });
    expect(toCell(col('number'), row('-1+2'), 'EUR', t)).toEqual({ kind: 'text', text: "'-1+2" });
    expect(toCell(col('boolean'), row(true), 'EUR', t)).toEqual({ kind: 'text', text: '<lists:common.yes>' });
    expect(toCell(col('text'), row(null), 'EUR', t)).toEqual({ kind: 'empty' });
  });

  it('quotes CSV fields that hold separators, quotes or line breaks', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("'\rReturn")).toBe('"\'\rReturn"');
  });
});

describe('list access', () => {
  const principal = (authorities: string[], isAdmin = false) =>
    ({ tenantId: 't', userId: 'u', isAdmin, authorities, dataPermissions: [] }) as unknown as Principal;
  it('answers 401, 404, 403 or the list', () => {
    expect(() => listAccess(undefined, 'loans')).toThrow(expect.objectContaining({ code: 'UNAUTHORIZED' }));
    expect(() => listAccess(principal(['loans']), 'secrets')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => listAccess(principal(['loans.customers.view']), 'loans')).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN' }),
    );
    expect(listAccess(principal(['loans.loans.view']), 'loans').entry.path).toBe('/loans/loans');
    // Editing a list's views needs the custom-views permission too: the guard decides it from the route.
    const editViews = (authorities: string[]) =>
      decideAccess({
        method: 'POST',
        path: '/v1/custom-views/loans',
        search: '',
        principal: { ...principal(authorities), passwordChangeRequired: false },
      });
    expect(editViews(['loans.loans.view'])).toMatchObject({ kind: 'api-error', status: 403 });
    expect(editViews(['loans.loans.view', 'loans.custom_views.edit'])).toMatchObject({ kind: 'allow' });
    expect(listAccess(principal([], true), 'customers').entry.def.name).toBe('customers');
    expect(() => listAccess(principal(['loans']), 'constructor')).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND' }),
    );
  });
});
