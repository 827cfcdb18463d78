import { describe, expect, it } from 'vitest';
import { defaultListState, listHref, listQuery, parseListState, serializeListState } from '#lib/lists/url-state.ts';
import { defineList, visibleColumns } from '#lib/lists/definition.ts';
import { peopleList } from '../integration/lists-fixture.ts';
import { encodeCursor } from '#lib/lists/query.ts';

const parse = (query: string) => parseListState(peopleList, new URLSearchParams(query));
/** A cursor as the list writes it (base64url JSON); anything else is refused. */
const CURSOR = encodeCursor({ d: 'n', v: 'Dupont', id: '2b1e4c2a-3f4d-4e5f-8a9b-0c1d2e3f4a5b', k: 'amount:desc' });
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

describe('list URL state', () => {
  it('gives the defaults for an empty query and serialises them to nothing', () => {
    const { state, issues } = parse('');
    expect(issues).toEqual([]);
    expect(state).toEqual(defaultListState(peopleList));
    expect(state.tab).toBe('all');
    expect(state.sort).toEqual({ key: 'name', dir: 'asc' });
    expect(serializeListState(peopleList, state).toString()).toBe('');
    expect(listHref(peopleList, state, '/loans/people')).toBe('/loans/people');
  });

  it('reads every part and writes it back identically', () => {
    const query =
      'view=2b1e4c2a-3f4d-4e5f-8a9b-0c1d2e3f4a5b&tab=overdue&sort=-amount&q=jean+dupont&f.amount=100..250.50&f.opened_on=2026-01-01..&f.status=active,closed' +
      '&cols=status,dpd&limit=50&scope=branch%3A00000000-0000-4000-8000-00000000000a&page=3&cursor=' +
      CURSOR;
    const { state, issues } = parse(query);
    expect(issues).toEqual([]);
    expect(state).toEqual({
      tab: 'overdue',
      sort: { key: 'amount', dir: 'desc' },
      q: 'jean dupont',
      filters: {
        amount: { kind: 'money-range', min: '100', max: '250.50' },
        opened_on: { kind: 'date-range', from: '2026-01-01', to: null },
        status: { kind: 'enum', values: ['active', 'closed'] },
      },
      columns: ['status', 'dpd'],
      limit: 50,
      page: 3,
      cursor: CURSOR,
      scope: { hierarchy_level: 'branch', hierarchy_id: '00000000-0000-4000-8000-00000000000a' },
      view: '2b1e4c2a-3f4d-4e5f-8a9b-0c1d2e3f4a5b',
    });
    expect(listQuery(peopleList, state)).toBe(query.replace('%3A', ':'));
    expect(parse(serializeListState(peopleList, state).toString()).state).toEqual(state);
  });

  it('falls back to safe defaults and names every dropped parameter', () => {
    const { state, issues } = parse(
      'tab=nope&sort=note&f.status=deleted&f.amount=abc&f.unknown=1&f.opened_on=2026-02-01..2026-01-01&cols=name,secret&limit=100000&page=0&cursor=%27or%201=1&scope=tenant:x&view=1',
    );
    expect(state.tab).toBe('all');
    expect(state.sort).toEqual({ key: 'name', dir: 'asc' });
    expect(state.filters).toEqual({});
    expect(state.columns).toEqual(['name']);
    expect(state.limit).toBe(25);
    expect(state.page).toBe(1);
    expect(state.cursor).toBeNull();
    expect(state.scope).toBeNull();
    expect(state.view).toBeNull();
    expect(issues.map((i) => i.param).sort()).toEqual(
      [
        'cols',
        'cursor',
        'f.amount',
        'f.opened_on',
        'f.status',
        'f.unknown',
        'limit',
        'page',
        'scope',
        'sort',
        'tab',
        'view',
      ].sort(),
    );
  });

  it('refuses cursors it did not write, repeated parameters and unknown names', () => {
    for (const cursor of [
      'abc_DEF-1',
      b64({ a: 1 }),
      b64({ d: 'n', v: 1, id: 'x', k: 'name:asc' }),
      b64({ d: 'x', v: 'a', id: 'b', k: 'c' }),
      b64([1, 2]),
      b64(null),
      b64('s'),
    ]) {
      const { state, issues } = parse(`cursor=${cursor}`);
      expect(state.cursor, cursor).toBeNull();
      expect(
        issues.map((i) => i.param),
        cursor,
      ).toEqual(['cursor']);
    }
    expect(parse('limit=10&limit=25').issues).toEqual([{ param: 'limit', message: 'give this parameter once' }]);
    expect(parse('limit[]=10').issues).toEqual([{ param: 'limit[]', message: 'unknown parameter' }]);
    expect(parse('limit=1.5').issues.map((i) => i.param)).toEqual(['limit']);
    expect(parse('f.status=active&f.status=closed').issues).toEqual([]);
  });

  it('bounds the search and the page number', () => {
    expect(parse(`q=${'x'.repeat(101)}`).issues[0]?.param).toBe('q');
    expect(parse('q=%20%20a%20%20%20b%20').state.q).toBe('a b');
    expect(parse('page=2001').state.page).toBe(1);
    expect(parse('page=2000').state.page).toBe(2000);
  });

  it('parses boolean, number and one-sided ranges and rejects empty ones', () => {
    expect(parse('f.is_vip=true').state.filters.is_vip).toEqual({ kind: 'boolean', value: true });
    expect(parse('f.is_vip=yes').state.filters.is_vip).toBeUndefined();
    expect(parse('f.dpd=..30').state.filters.dpd).toEqual({ kind: 'number-range', min: null, max: '30' });
    expect(parse('f.dpd=..').state.filters.dpd).toBeUndefined();
    expect(parse('f.note=%25_').state.filters.note).toEqual({ kind: 'text', value: '%_' });
  });

  it('shows required columns first, then the chosen ones, defaults when none are chosen', () => {
    expect(visibleColumns(peopleList, null).map((c) => c.key)).toEqual(['name', 'status', 'amount', 'opened_on']);
    expect(visibleColumns(peopleList, ['dpd', 'name']).map((c) => c.key)).toEqual(['name', 'dpd']);
  });

  it('refuses a definition whose defaults do not exist', () => {
    expect(() => defineList({ ...peopleList, defaultSort: { key: 'note', dir: 'asc' } })).toThrow(/default sort note/);
    expect(() => defineList({ ...peopleList, defaultTab: 'x' })).toThrow(/default tab x/);
    expect(() =>
      defineList({
        ...peopleList,
        columns: [...peopleList.columns, { key: 'Bad Key', label: '', sql: '1', type: 'text' }],
      }),
    ).toThrow(/bad column key/);
  });
});
