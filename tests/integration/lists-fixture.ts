import { defineList } from '#lib/lists/definition.ts';
import type { Db } from '#lib/db/index.ts';

/**
 * A small list over a table made only for the list tests, so the generic machinery is proven on
 * its own (the real customers and loans lists are tested against the lending engine's tables).
 */
export const peopleList = defineList({
  name: 'people',
  from: 'list_test_people p',
  idSql: 'p.id',
  columns: [
    {
      key: 'name',
      label: 'x.name',
      sql: 'p.name',
      type: 'text',
      isSortable: true,
      isNotNull: true,
      filter: 'text',
      isRequired: true,
    },
    {
      key: 'status',
      label: 'x.status',
      sql: 'p.status',
      type: 'enum',
      isSortable: true,
      isNotNull: true,
      filter: 'enum',
      options: ['active', 'closed'],
      isDefault: true,
    },
    {
      key: 'amount',
      label: 'x.amount',
      sql: 'p.amount',
      type: 'money',
      currencySql: 'p.currency',
      isSortable: true,
      isNotNull: true,
      filter: 'money-range',
      isDefault: true,
    },
    {
      key: 'opened_on',
      label: 'x.opened',
      sql: 'p.opened_on',
      type: 'date',
      isSortable: true,
      isNotNull: true,
      filter: 'date-range',
      isDefault: true,
    },
    { key: 'closed_on', label: 'x.closed', sql: 'p.closed_on', type: 'date', isSortable: true, filter: 'date-range' },
    {
      key: 'dpd',
      label: 'x.dpd',
      sql: 'p.dpd',
      type: 'number',
      isSortable: true,
      isNotNull: true,
      filter: 'number-range',
    },
    { key: 'note', label: 'x.note', sql: 'p.note', type: 'text', filter: 'text' },
    { key: 'is_vip', label: 'x.vip', sql: 'p.is_vip', type: 'boolean', filter: 'boolean' },
  ],
  defaultSort: { key: 'name', dir: 'asc' },
  tabs: [
    { name: 'all', label: 'x.all', help: 'x.all_help', where: null },
    { name: 'overdue', label: 'x.overdue', help: 'x.overdue_help', where: () => 'p.dpd > 0' },
    {
      name: 'opened_this_month',
      label: 'x.month',
      help: 'x.month_help',
      where: ({ businessDate, bind }) =>
        `p.opened_on >= date_trunc('month', ${bind(businessDate)}::date)::date and p.opened_on <= ${bind(businessDate)}::date`,
    },
  ],
  defaultTab: 'all',
  searchColumns: [
    { sql: 'p.name', mode: 'contains' },
    { sql: 'p.phone', mode: 'prefix' },
  ],
  scopeSql: ['p.branch_id', 'p.officer_id'],
});

export const BRANCH_A = '00000000-0000-4000-8000-00000000000a';
export const BRANCH_B = '00000000-0000-4000-8000-00000000000b';
export const OFFICER_A1 = '00000000-0000-4000-8000-0000000000a1';

export async function createPeopleTable(db: Db): Promise<void> {
  await db.owner((tx) =>
    tx.exec(`
      create table if not exists list_test_people (
        tenant_id text not null references tenants(id),
        id uuid not null,
        name text not null,
        phone text not null,
        status text not null,
        amount int8 not null,
        currency char(3) not null,
        opened_on date not null,
        closed_on date,
        dpd int not null default 0,
        note text,
        is_vip boolean not null default false,
        branch_id uuid not null,
        officer_id uuid,
        primary key (tenant_id, id)
      );
      select app_enable_tenant_rls('list_test_people');
      grant select, insert, update, delete on list_test_people to lending_app;
    `),
  );
}

/** A uuid whose last 12 hex digits are `n`, so ids sort in insertion order. */
export function idOf(n: number): string {
  return `10000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}
