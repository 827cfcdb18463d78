import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.ts';
import { BAD_NUMBERS, MALFORMED_VALUES } from '../../../tests/e2e/support/payloads-input.ts';
import { QueryReader, checkQueryString } from './query-params.ts';
import { inputErrorFromPg } from './respond.ts';

const reader = (query: string, known?: string[]) => new QueryReader(new URLSearchParams(query), known);
function fieldOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
    return (error as AppError).field;
  }
  return undefined;
}

describe('checkQueryString', () => {
  it('refuses every malformed value, naming its parameter', () => {
    for (const value of MALFORMED_VALUES) {
      expect(checkQueryString(`?ok=1&q=${value}`), value).toMatchObject({ param: 'q' });
      expect(checkQueryString(`search=${value}`)?.param, value).toBe('search');
    }
  });

  it('refuses control characters and bad encodings in names, without echoing them', () => {
    expect(checkQueryString('?a%00b=1')).toMatchObject({ param: '(parameter name)' });
    expect(checkQueryString('?%FF=1')).toMatchObject({ param: '(parameter name)' });
  });

  it('lets clean text through, however odd', () => {
    for (const query of [
      '',
      '?',
      '?q=caf%C3%A9',
      '?q=%F0%9F%92%A5',
      '?q=a+b',
      '?q=%27%20or%201%3D1--',
      '?q=%25',
      '?limit=25&f.status=a,b',
      '?flag',
      '?a=&b=',
    ]) {
      expect(checkQueryString(query), query).toBeNull();
    }
  });
});

describe('QueryReader', () => {
  it('reads whole numbers in range and refuses everything else, naming the field', () => {
    expect(reader('limit=25').int('limit', { min: 1, max: 500, fallback: 50 })).toBe(25);
    expect(reader('').int('limit', { min: 1, max: 500, fallback: 50 })).toBe(50);
    expect(reader('limit=').int('limit', { min: 1, max: 500, fallback: 50 })).toBe(50);
    for (const value of BAD_NUMBERS) {
      const params = `limit=${value}`;
      expect(
        fieldOf(() => reader(params).int('limit', { min: 1, max: 500, fallback: 50 })),
        params,
      ).toBe('limit');
    }
    expect(fieldOf(() => reader('limit=501').int('limit', { min: 1, max: 500 }))).toBe('limit');
  });

  it('refuses a parameter given twice and names outside the known ones', () => {
    expect(fieldOf(() => reader('limit=1&limit=2').int('limit', { min: 1, max: 9 }))).toBe('limit');
    expect(fieldOf(() => reader('limit[]=1', ['limit']))).toBe('limit[]');
    expect(fieldOf(() => reader('lmit=1', ['limit']))).toBe('lmit');
    expect(fieldOf(() => reader('limit=1', ['limit']))).toBeUndefined();
  });

  it('reads ids, enums, bounded text and cursors', () => {
    expect(reader('id=2B1E4C2A-3F4D-4E5F-8A9B-0C1D2E3F4A5B').uuid('id')).toBe('2b1e4c2a-3f4d-4e5f-8a9b-0c1d2e3f4a5b');
    for (const id of ['abc', '1', "1' or '1'='1", '00000000-0000-0000-0000-00000000000g'])
      expect(fieldOf(() => reader(`id=${encodeURIComponent(id)}`).uuid('id'))).toBe('id');
    expect(reader('status=a').oneOf('status', ['a', 'b'])).toBe('a');
    expect(fieldOf(() => reader('status=c').oneOf('status', ['a', 'b']))).toBe('status');
    expect(reader('q=%20a%20%20b%20').text('q', { max: 5 })).toBe('a b');
    expect(fieldOf(() => reader(`q=${'x'.repeat(6)}`).text('q', { max: 5 }))).toBe('q');
    expect(fieldOf(() => reader('q=a%00b').text('q', { max: 5 }))).toBe('q');
    expect(reader('cursor=abc_DEF-1').cursor('cursor')).toBe('abc_DEF-1');
    expect(fieldOf(() => reader('cursor=a%7Cb').cursor('cursor'))).toBe('cursor');
  });
});

describe('inputErrorFromPg', () => {
  it('turns Postgres errors caused by input into 400s, directly or as a cause', () => {
    for (const code of ['22P02', '22021', '22P05', '22003', '22007', '22008', '22001', '2201W', '2201X']) {
      expect(inputErrorFromPg(Object.assign(new Error('x'), { code }))?.status, code).toBe(400);
      expect(
        inputErrorFromPg(new Error('wrapped', { cause: Object.assign(new Error('x'), { code }) }))?.status,
        code,
      ).toBe(400);
    }
  });

  it('leaves every other error alone', () => {
    for (const error of [
      new Error('boom'),
      Object.assign(new Error('x'), { code: '23505' }),
      Object.assign(new Error('x'), { code: '57P01' }),
      null,
      'text',
    ]) {
      expect(inputErrorFromPg(error)).toBeNull();
    }
  });
});
