import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layer boundaries enforced by `npm run lint` (eslint.config.js, eslint-rules/boundaries.js),
 * checked with the real configuration on small snippets placed, by name, where the rule applies.
 * None of these files exist: ESLint lints the text as if it lived at that path.
 */
const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

async function ruleIds(relativePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, relativePath) });
  const fatal = result.messages.filter((message) => message.fatal);
  expect(fatal, 'the snippet must parse').toEqual([]);
  return result.messages.map((message) => message.ruleId ?? '');
}

const pageWithSql = `---
import { pageContext } from '../../layouts/page-context.ts';
const { t } = await pageContext(Astro);
const tx = Astro.locals.tx;
const rows = await tx.query('select id, account_no from loans where customer_id = $1', [Astro.params.id]);
---
<ul>{rows.map((row) => <li>{row.account_no}</li>)}</ul>
<p>{t('lists:common.empty')}</p>
`;

describe('lint boundaries: pages, components, layouts and islands hold no SQL', () => {
  it('fails on a query in an Astro page', async () => {
    const ids = await ruleIds('src/pages/lint-fixture/page.astro', pageWithSql);
    expect(ids.filter((id) => id === 'boundaries/no-sql-in-pages')).toHaveLength(2); // the SQL text and `.query(`
  });

  it('fails on SQL text in a component module, even without a call', async () => {
    const code =
      'export const LOANS = `\n  select l.id, l.status\n    from loans l\n   where l.customer_id = ${"$"}1`;\n';
    expect(await ruleIds('src/components/lint-fixture/loans.ts', code)).toEqual(['boundaries/no-sql-in-pages']);
  });

  it('fails on SQL in a layout and in an island', async () => {
    const code = "export const sql = 'update loans set status = $1 where id = $2';\n";
    expect(await ruleIds('src/layouts/lint-fixture.ts', code)).toEqual(['boundaries/no-sql-in-pages']);
    expect(await ruleIds('src/islands/lint-fixture.tsx', code)).toEqual(['boundaries/no-sql-in-pages']);
  });

  it('fails on an import of the database module, by relative path or by #lib', async () => {
    const relative = "import { getDb } from '../../lib/db/index.ts';\nexport const db = await getDb();\n";
    expect(await ruleIds('src/components/lint-fixture/data.ts', relative)).toEqual(['boundaries/no-db-in-pages']);
    const subpath = "import { getDb } from '#lib/db/index.ts';\nexport const db = await getDb();\n";
    expect(await ruleIds('src/pages/lint-fixture.ts', subpath)).toEqual(['boundaries/no-db-in-pages']);
  });

  it('passes a page that calls src/lib and shows text that merely reads like SQL', async () => {
    const code = `---
import { getLoanView } from '#lib/lending/loans.ts';
import { pageContext } from '../../layouts/page-context.ts';
const { t } = await pageContext(Astro);
const loan = await getLoanView(Astro.locals.tx, Astro.params.id ?? '');
const hint = 'Select a lender from the list';
const update = 'Update the settings from your profile';
---
<h1>{t('lending:loan.title')}</h1>
<p>{hint} {update} {String(loan)}</p>
<select name="lender"><option>one</option></select>
`;
    expect(await ruleIds('src/pages/lint-fixture/clean.astro', code)).toEqual([]);
  });
});

describe('lint boundaries: src/lib imports no Astro and nothing above it', () => {
  it('fails on an import from astro, astro:* and an .astro file', async () => {
    const code = [
      "import type { APIContext } from 'astro';",
      "import { actions } from 'astro:actions';",
      "import Page from '../../components/pages/ProfilePage.astro';",
      'export const parts: unknown[] = [actions, Page];',
      'export type Context = APIContext;',
      '',
    ].join('\n');
    expect(await ruleIds('src/lib/lint-fixture/verb.ts', code)).toEqual([
      'boundaries/no-framework-in-lib',
      'boundaries/no-framework-in-lib',
      'boundaries/no-framework-in-lib',
    ]);
  });

  it('fails on an import from the page, component, layout and island layers', async () => {
    const code = [
      "import { pageContext } from '../../layouts/page-context.ts';",
      "import { SECTION_HOME } from '../../components/nav/nav-model.ts';",
      "import { api } from '../../islands/lib/api.ts';",
      'export const parts: unknown[] = [pageContext, SECTION_HOME, api];',
      '',
    ].join('\n');
    expect(await ruleIds('src/lib/lint-fixture/verb.ts', code)).toEqual([
      'boundaries/no-framework-in-lib',
      'boundaries/no-framework-in-lib',
      'boundaries/no-framework-in-lib',
    ]);
  });

  it('passes a domain module that imports the domain, by relative path and by #lib, and may hold SQL', async () => {
    const code = [
      "import type { Tx } from '../db/index.ts';",
      "import { parseMinor } from '#lib/money/money.ts';",
      'export async function loanIds(tx: Tx, customerId: string): Promise<string[]> {',
      "  const rows = await tx.query<{ id: string }>('select id from loans where customer_id = $1', [customerId]);",
      "  parseMinor('1.00', 2);",
      '  return rows.map((row) => row.id);',
      '}',
      '',
    ].join('\n');
    expect(await ruleIds('src/lib/lint-fixture/loans.ts', code)).toEqual([]);
  });
});
