import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILE, generateSchemaTypes, renderSchemaTypes, rowTypeName } from '#lib/db/schema-types.ts';

describe('generated row types', () => {
  it('src/lib/db/schema.generated.ts matches the migrations (run `npm run db:types` when this fails)', async () => {
    const committed = fs.readFileSync(path.resolve(GENERATED_FILE), 'utf8');
    const fresh = await generateSchemaTypes();
    expect(committed === fresh, `${GENERATED_FILE} is stale: run npm run db:types and commit the result`).toBe(true);
  });

  it('maps column types as the drivers return them', () => {
    const column = (name: string, udt: string, extra: { isArray?: boolean; isNullable?: boolean } = {}) => ({
      table: 'things',
      column: name,
      udt,
      isArray: extra.isArray ?? false,
      isNullable: extra.isNullable ?? false,
    });
    const text = renderSchemaTypes({
      enums: new Map([['thing_kind', ['A', "B'C"]]]),
      tables: [
        {
          name: 'thing_parts',
          isView: false,
          columns: [
            column('big', 'int8'),
            column('small', 'int2'),
            column('amount', 'numeric', { isNullable: true }),
            column('on_day', 'date'),
            column('at', 'timestamptz', { isNullable: true }),
            column('flag', 'bool'),
            column('data', 'jsonb', { isNullable: true }),
            column('tags', 'text', { isArray: true }),
            column('kind', 'thing_kind'),
            column('odd name', 'uuid'),
          ],
        },
      ],
    });
    expect(text).toContain("export type ThingKind = 'A' | 'B\\'C';");
    expect(text).toContain(
      [
        'export type ThingPartsRow = {',
        '  big: bigint;',
        '  small: number;',
        '  amount: string | null;',
        '  on_day: string;',
        '  at: Date | null;',
        '  flag: boolean;',
        '  data: unknown;',
        '  tags: string[];',
        '  kind: ThingKind;',
        "  'odd name': string;",
        '};',
      ].join('\n'),
    );
    expect(text).toContain('  thing_parts: ThingPartsRow;');
    expect(rowTypeName('loan_installments')).toBe('LoanInstallmentsRow');
  });

  it('refuses a column type it has no mapping for', () => {
    expect(() =>
      renderSchemaTypes({
        enums: new Map(),
        tables: [
          {
            name: 't',
            isView: false,
            columns: [{ table: 't', column: 'c', udt: 'tsvector', isArray: false, isNullable: false }],
          },
        ],
      }),
    ).toThrow(/t\.c: no TypeScript type for column type "tsvector"/);
  });
});
