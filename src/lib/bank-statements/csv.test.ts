import { describe, expect, test } from 'vitest';
import { parseStatementCsv, splitCsv } from './csv.ts';

describe('parseStatementCsv', () => {
  test('reads a comma statement with quoted descriptions into minor units', () => {
    const csv =
      'Date,Description,Amount,Balance,Category\n2026-01-02,"Salary, January",1500.00,1600.00,salary\n2026-01-05,Rent,-600.5,999.50,rent\n';
    expect(parseStatementCsv(csv, 'USD')).toEqual({
      errors: [],
      rows: [
        {
          line: 2,
          bookedOn: '2026-01-02',
          amount: 150_000n,
          description: 'Salary, January',
          category: 'salary',
          balance: 160_000n,
        },
        { line: 3, bookedOn: '2026-01-05', amount: -60_050n, description: 'Rent', category: 'rent', balance: 99_950n },
      ],
    });
  });
  test('semicolons, a BOM, CRLF and no balance; category defaults to the direction', () => {
    const csv = '\uFEFFdate;amount\r\n2026-02-01;2500\r\n2026-02-03;-100\r\n';
    const parsed = parseStatementCsv(csv, 'XOF');
    expect(parsed.errors).toEqual([]);
    expect(parsed.rows.map((r) => [r.amount, r.category, r.balance])).toEqual([
      [2500n, 'inflow', null],
      [-100n, 'outflow', null],
    ]);
  });
  test('any faulty row rejects the whole statement, and every fault is reported with its row and column', () => {
    const csv =
      'date,amount,balance\n2026-01-02,10.00,\n2026-02-30,5.00,\n2026-01-03,abc,\n2026-01-04,1.001,x\n2026-01-05,0,\n';
    expect(parseStatementCsv(csv, 'EUR')).toEqual({
      rows: [],
      errors: [
        { row: 3, field: 'date', message: 'date must be a calendar date YYYY-MM-DD' },
        { row: 4, field: 'amount', message: 'Amount must be an amount written with digits, such as 10.50.' },
        { row: 5, field: 'amount', message: 'Amount can have at most 2 decimal places.' },
        { row: 5, field: 'balance', message: 'Balance must be an amount written with digits, such as 10.50.' },
        { row: 6, field: 'amount', message: 'amount must not be zero' },
      ],
    });
  });
  test('a header without the required columns, or no rows, is refused', () => {
    expect(parseStatementCsv('when,how much\n2026-01-01,1\n', 'USD').errors.map((e) => e.field)).toEqual([
      'date',
      'amount',
    ]);
    expect(parseStatementCsv('date,amount\n', 'USD').errors).toEqual([
      { row: 2, field: 'date', message: 'The statement has no transactions' },
    ]);
  });
  test('splitCsv keeps doubled quotes and line breaks inside quotes', () => {
    expect(splitCsv('a,"b ""x""\nc"\n', ',')).toEqual([['a', 'b "x"\nc']]);
  });
});
