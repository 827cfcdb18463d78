import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_ROLES, PERMISSION_TABLE, allows, need } from '#lib/auth/permissions.ts';
import { getT } from '#lib/i18n/index.ts';
import { RESOURCES, type Resource } from '#lib/i18n/resources.ts';
import { effectiveKeys, grantLevel, grantSource, grantsBeyond, keysUnder, normaliseGrants } from '#lib/roles/grants.ts';
import { grantLabels } from '#lib/roles/labels.ts';
import { cellWords, filterMatrix, matrixCsv, type PermissionMatrix } from '#lib/roles/matrix.ts';

describe('[ROLES]: grants', () => {
  it('knows keys, whole resources and whole areas, and nothing else', () => {
    expect(grantLevel('loans.customers.view')).toBe('key');
    expect(grantLevel('loans.customers')).toBe('resource');
    expect(grantLevel('loans')).toBe('area');
    for (const bad of ['loans.customer.view', 'loans.customers.fly', 'banking', '', 'loans.', 'loans.products.view'])
      expect(grantLevel(bad), bad).toBeNull();
  });

  it('a resource or an area covers every action below it', () => {
    expect(keysUnder('loans.customers')).toEqual([
      'loans.customers.view',
      'loans.customers.opt_in',
      'loans.customers.opt_out',
      'loans.customers.view_details',
    ]);
    expect(keysUnder('collection')).toEqual(['collection.buckets.view']);
    expect(keysUnder('loans.customers.view')).toEqual(['loans.customers.view']);
    expect(effectiveKeys(['loans']).length).toBe(Object.values(PERMISSION_TABLE.loans).flat().length);
  });

  it('stores each grant once, in table order, without what a broader grant already gives', () => {
    expect(
      normaliseGrants([
        'loans.offers.view',
        'analytics',
        'loans.customers.view',
        'loans.customers',
        'analytics.reports.view',
      ]),
    ).toEqual(['loans.customers', 'loans.offers.view', 'analytics']);
    expect(normaliseGrants(['loans.customers.view', 'loans.customers.view'])).toEqual(['loans.customers.view']);
  });

  it('says how a role holds a key', () => {
    const role = ['loans.customers.view', 'loans.offers', 'analytics'];
    expect(grantSource(role, 'loans.customers.view')).toBe('key');
    expect(grantSource(role, 'loans.offers.notify')).toBe('resource');
    expect(grantSource(role, 'analytics.reports.edit')).toBe('area');
    expect(grantSource(role, 'loans.customers.opt_in')).toBeNull();
  });

  it('nobody gives what they do not hold; administrators give anything', () => {
    const manager = { isAdmin: false, authorities: ['admin.roles', 'loans.customers.view', 'loans.offers'] };
    expect(grantsBeyond(manager, ['loans.customers.view', 'loans.offers', 'loans.offers.notify'])).toEqual([]);
    expect(grantsBeyond(manager, ['loans.customers', 'loans', 'admin.users.edit', 'loans.customers.view'])).toEqual([
      'loans.customers',
      'loans',
      'admin.users.edit',
    ]);
    // Holding every action of a resource one by one is holding the resource.
    const allCustomers = { isAdmin: false, authorities: keysUnder('loans.customers') };
    expect(grantsBeyond(allCustomers, ['loans.customers'])).toEqual([]);
    expect(grantsBeyond({ isAdmin: true, authorities: [] }, ['loans', 'admin'])).toEqual([]);
    // The one evaluator agrees with what a grant gives.
    expect(allows({ isAdmin: false, authorities: ['loans.customers'] }, need('loans.customers.opt_in'))).toBe(true);
  });

  it('the demo roles hold only known keys', () => {
    for (const role of Object.values(DEMO_ROLES))
      for (const key of role.authorities) expect(grantLevel(key), `${role.name}: ${key}`).toBe('key');
  });
});

describe('[ROLES]: labels', () => {
  it('every area, resource and action of the permission table has a label in English and French', async () => {
    for (const language of ['en', 'fr'] as const) {
      const t = await getT(language);
      const missing: string[] = [];
      for (const [area, resources] of Object.entries(PERMISSION_TABLE)) {
        const check = (key: string) => {
          const text = t(key);
          if (!text || text === key || text.includes('roles:')) missing.push(`${language} ${key}`);
        };
        check(`roles:areas.${area}`);
        for (const [resource, actions] of Object.entries(resources)) {
          check(`roles:resources.${area}.${resource}`);
          for (const action of actions as readonly string[]) check(`roles:actions.${action}`);
        }
      }
      expect(missing).toEqual([]);
    }
    const t = await getT('fr');
    expect(grantLabels((k) => t(k)).grant('loans.customers.view')).toBe('Prêts › Clients › Consulter');
  });

  it('every literal roles: key used by the role pages exists', () => {
    const files = [
      'src/components/roles/PermissionPicker.astro',
      'src/components/roles/RoleForm.astro',
      'src/pages/admin/user/roles/index.astro',
      'src/pages/admin/user/roles/add.astro',
      'src/pages/admin/user/roles/[id].astro',
      'src/pages/admin/user/permissions.astro',
      'src/lib/roles/commands.ts',
      'src/lib/roles/matrix.ts',
    ];
    const missing: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(path.resolve(file), 'utf8');
      for (const m of text.matchAll(/\bt\('roles:([\w.]+)'/g)) {
        let node: Resource | string | undefined = RESOURCES.en.roles as Resource;
        for (const part of m[1].split('.')) node = typeof node === 'object' ? node[part] : undefined;
        if (typeof node !== 'string') missing.push(`${file}: ${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('[ROLES]: matrix export', () => {
  const matrix: PermissionMatrix = {
    roles: [
      { id: 'a', name: 'Administrator', isAdmin: true, users: [] },
      { id: 'b', name: '=HYPERLINK("http://x")', isAdmin: false, users: [] },
    ],
    rows: [
      { key: 'loans.customers.view', area: 'loans', resource: 'customers', action: 'view', cells: ['admin', 'area'] },
      { key: 'admin.users.edit', area: 'admin', resource: 'users', action: 'edit', cells: ['admin', null] },
    ],
  };

  it('writes CSV with formula-looking role names neutralised and words for each cell', async () => {
    const t = await getT('en');
    const tr = (k: string) => t(k);
    const csv = matrixCsv(matrix, grantLabels(tr), tr);
    const lines = csv
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe(`Area,Resource,Action,Key,Administrator,"'=HYPERLINK(""http://x"")"`);
    expect(lines[1]).toBe(
      `Loans,Customers,View,loans.customers.view,Granted as administrator,Granted through the whole area`,
    );
    expect(lines[2]).toBe('Administration,Users,Edit,admin.users.edit,Granted as administrator,');
    expect(cellWords(null, tr)).toBe('');
  });

  it('filters by area and by text in any case and without accents', async () => {
    const t = await getT('fr');
    const labels = grantLabels((k) => t(k));
    expect(filterMatrix(matrix, { area: 'admin' }, labels).rows.map((r) => r.key)).toEqual(['admin.users.edit']);
    expect(filterMatrix(matrix, { text: 'PRETS' }, labels).rows.map((r) => r.key)).toEqual(['loans.customers.view']);
    expect(filterMatrix(matrix, { text: 'users.edit' }, labels).rows.map((r) => r.key)).toEqual(['admin.users.edit']);
  });
});
