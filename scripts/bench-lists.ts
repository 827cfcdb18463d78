// `npm run bench:lists`: server time of the first page of each loans-workspace list (every tab, with
// its tab counts, custom views and row scope: everything a list page does but rendering HTML),
// median and p95, on a big Postgres tenant.
//
//   DATABASE_URL=postgres://… npm run bench:lists -- --tenant demo [--runs 30] [--user officer@demo.test]
//   DATABASE_URL=postgres://… npm run bench:lists -- --bulk 100000     # creates tenant 'bench-lists'
//   … --branch R1-B1            # a viewer whose data permission is that one branch (scoped counts)
//   … --list loans --cap 1000   # only some lists; another tab-count cap than COUNT_CAP
//
// The tenant should be seeded by `npm run seed -- --tenant <slug> --customers 100000` (the lending
// engine's own simulator). As that takes long, `--bulk N` instead fills a dedicated tenant
// 'bench-lists' with N customers, ~0.7 loans each and their installments by set-based SQL, in the
// same shape (hierarchy, products, active / overdue / closed loans); the report says which was used.
// Results go to bench/results/lists.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase, type Db } from '#lib/db/index.ts';
import { LISTS } from '#lib/lists/registry.ts';
import { serveList, type ListViewer } from '#lib/lists/serve.ts';
import { COUNT_CAP } from '#lib/lists/query.ts';

const { values } = parseArgs({
  options: {
    tenant: { type: 'string' },
    bulk: { type: 'string' },
    runs: { type: 'string', default: '30' },
    user: { type: 'string' },
    branch: { type: 'string' },
    list: { type: 'string', multiple: true },
    cap: { type: 'string' },
    out: { type: 'string', default: 'bench/results/lists.json' },
  },
});
const url = process.env.DATABASE_URL;
if (!url) {
  process.stderr.write('bench:lists needs DATABASE_URL (a real Postgres): the target is a 100,000-customer tenant.\n');
  process.exit(2);
}
const runs = Math.max(3, Number(values.runs));

async function bulkFill(db: Db, customers: number): Promise<string> {
  const tenantId = 'bench-lists';
  await db.owner(async (tx) => {
    await tx.query(
      `insert into tenants (id, slug, name, currency, business_date) values ($1, 'bench-lists', 'Bench lists', 'EUR', '2026-06-15')
                    on conflict (id) do nothing`,
      [tenantId],
    );
  });
  const [{ n }] = await db.tenant(tenantId, (tx) =>
    tx.query<{ n: number }>('select count(*)::int as n from customers'),
  );
  if (n >= customers) {
    await fillWorkspace(tenantId);
    return tenantId;
  }
  const started = Date.now();
  await db.tenant(tenantId, async (tx) => {
    await tx.query(
      `insert into hierarchy_nodes (tenant_id, level, code, name)
      select $1, 'region', 'R' || r, 'Region ' || r from generate_series(1, 4) r`,
      [tenantId],
    );
    await tx.query(
      `insert into hierarchy_nodes (tenant_id, level, parent_id, code, name)
      select $1, 'branch', p.id, p.code || '-B' || b, 'Branch ' || p.code || '-' || b from hierarchy_nodes p, generate_series(1, 5) b where p.level = 'region'`,
      [tenantId],
    );
    await tx.query(
      `insert into hierarchy_nodes (tenant_id, level, parent_id, code, name)
      select $1, 'officer', p.id, p.code || '-O' || o, 'Officer ' || p.code || '-' || o from hierarchy_nodes p, generate_series(1, 5) o where p.level = 'branch'`,
      [tenantId],
    );
    await tx.query(
      `insert into loan_products (tenant_id, code, name, currency, digits_after_decimal, min_principal, max_principal, min_repayments, max_repayments, annual_interest_rate, repayment_frequency)
      values ($1, 'MICRO', 'Micro loan', 'EUR', 2, 10000, 5000000, 3, 24, 18, 'MONTHS')`,
      [tenantId],
    );
    await tx.query(
      `
      with officers as (select o.id as officer_id, o.parent_id as branch_id, row_number() over (order by o.code) - 1 as k from hierarchy_nodes o where o.level = 'officer'),
           total as (select count(*) as c from officers)
      insert into customers (tenant_id, first_name, last_name, phone, national_id, branch_id, officer_id, opt_in_status, created_at)
      select $1, (array['Jean','Awa','Luc','Inès','Moussa','Fatou','Paul','Aminata'])[1 + g % 8],
             (array['Diallo','Martin','Ndiaye','Dupont','Traoré','Bernard','Sow','Petit','Ba','Moreau'])[1 + (g / 8) % 10] || ' ' || g,
             '+2217' || lpad(g::text, 8, '0'), 'NID' || lpad(g::text, 9, '0'), o.branch_id, o.officer_id,
             case when g % 17 = 0 then 'opted_out' else 'opted_in' end, timestamptz '2024-01-01' + g * interval '5 minutes'
        from generate_series(1, $2::int) g join officers o on o.k = g % (select c from total)`,
      [tenantId, customers],
    );
    await tx.query(
      `
      insert into loans (tenant_id, account_no, customer_id, product_id, status, currency, principal, number_of_repayments, annual_interest_rate, terms, submitted_on, disbursed_on, closed_on, officer_id, created_at)
      select $1, 'L' || lpad(row_number() over (order by c.created_at)::text, 9, '0'), c.id, p.id,
             case when h % 10 < 7 then 'ACTIVE' else 'CLOSED_OBLIGATIONS_MET' end, 'EUR', 100000 + (h % 50) * 10000, 6, 18, '{}'::jsonb,
             date '2026-06-15' - (h % 300), date '2026-06-15' - (h % 300),
             case when h % 10 < 7 then null else date '2026-06-15' - (h % 40) end, c.officer_id, c.created_at + interval '1 day'
        from customers c cross join lateral (select abs(hashtext(c.id::text)) as h) x, loan_products p
       where c.opt_in_status = 'opted_in' and h % 10 < 8`,
      [tenantId],
    );
    await tx.query(
      `
      insert into loan_installments (tenant_id, loan_id, number, from_date, due_date, principal_due, interest_due, principal_paid, interest_paid, obligations_met_on)
      select $1, l.id, k, (l.disbursed_on + (k - 1) * interval '1 month')::date, (l.disbursed_on + k * interval '1 month')::date,
             l.principal / 6, l.principal / 60,
             case when l.status <> 'ACTIVE' or (l.disbursed_on + k * interval '1 month')::date < date '2026-06-15' - (abs(hashtext(l.id::text)) % 3) * 20 then l.principal / 6 else 0 end,
             case when l.status <> 'ACTIVE' or (l.disbursed_on + k * interval '1 month')::date < date '2026-06-15' - (abs(hashtext(l.id::text)) % 3) * 20 then l.principal / 60 else 0 end,
             null
        from loans l, generate_series(1, 6) k`,
      [tenantId],
    );
    await tx.query(
      `update loan_installments set obligations_met_on = due_date where principal_paid = principal_due and interest_paid = interest_due`,
    );
  });
  await fillWorkspace(tenantId, false);
  await vacuumAnalyze(
    'customers, loans, loan_installments, hierarchy_nodes, offers, loan_applications, collaterals, loan_collaterals',
  );
  process.stderr.write(
    `bulk-filled ${customers} customers into ${tenantId} in ${Math.round((Date.now() - started) / 1000)} s\n`,
  );
  return tenantId;

  // VACUUM cannot run in a transaction (db.owner opens one): a bare client. Without it the partial
  // indexes on unpaid installments still point at the pre-update row versions and the tabs read bloat
  // that autovacuum would have cleaned in a live system.
  async function vacuumAnalyze(tables: string): Promise<void> {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`vacuum analyze ${tables}`);
    } finally {
      await client.end();
    }
  }

  /**
   * The rest of the loans workspace, so every list has rows at scale: offers (about one customer in
   * two; all lifecycle states, most still open), loan applications (one per loan plus the offers
   * being requested: submitted, approved, rejected, withdrawn) and collaterals (about one customer in
   * three, linked to the customer's loan). Added to an already-filled tenant that lacks them.
   */
  async function fillWorkspace(id: string, shouldVacuum = true): Promise<void> {
    const [{ offers }] = await db.tenant(id, (tx) =>
      tx.query<{ offers: number }>('select count(*)::int as offers from offers'),
    );
    if (offers > 0) return;
    const began = Date.now();
    await db.tenant(id, async (tx) => {
      await tx.query(
        `
        insert into offers (tenant_id, code, customer_id, product_id, currency, principal, number_of_repayments, annual_interest_rate, expires_on, status, notify_channel, created_at)
        select $1, 'OF' || lpad(row_number() over (order by c.created_at)::text, 9, '0'), c.id, p.id, 'EUR', 50000 + (h % 40) * 10000, 6 + h % 7, 18,
               date '2026-06-15' + (h % 60) - 10,
               (array['to_propose','to_propose','to_propose','pending','pending','requested','disbursed','disbursed','rejected','expired'])[1 + h % 10],
               case when h % 10 between 3 and 7 then (array['Message','PhoneCall','InPerson','Other'])[1 + h % 4] end,
               c.created_at + interval '2 days'
          from customers c cross join lateral (select abs(hashtext(c.id::text || 'offer')) as h) x, loan_products p
         where h % 2 = 0`,
        [id],
      );
      await tx.query(
        `
        insert into loan_applications (tenant_id, customer_id, product_id, currency, principal, number_of_repayments, annual_interest_rate, expected_disbursement_date, status, submitted_by, submitted_at, loan_id)
        select $1, l.customer_id, l.product_id, 'EUR', l.principal, l.number_of_repayments, 18, coalesce(l.disbursed_on, date '2026-06-15'), 'approved', 'bench', l.created_at - interval '1 day', l.id
          from loans l`,
        [id],
      );
      await tx.query(
        `
        insert into loan_applications (tenant_id, customer_id, product_id, offer_id, currency, principal, number_of_repayments, annual_interest_rate, expected_disbursement_date, status, submitted_by, submitted_at)
        select $1, o.customer_id, o.product_id, o.id, 'EUR', o.principal, o.number_of_repayments, 18, date '2026-06-20',
               (array['submitted','submitted','rejected','withdrawn'])[1 + abs(hashtext(o.id::text)) % 4], 'bench', o.created_at + interval '1 day'
          from offers o where o.status in ('requested', 'rejected')`,
        [id],
      );
      await tx.query(
        `
        insert into collaterals (tenant_id, customer_id, type, description, currency, value, valuation_date, created_at)
        select $1, c.id, (array['vehicle','real_estate','deposit','guarantee'])[1 + h % 4], 'Bench collateral ' || h % 1000, 'EUR',
               200000 + (h % 90) * 10000, date '2026-06-15' - (h % 700), c.created_at + interval '3 days'
          from customers c cross join lateral (select abs(hashtext(c.id::text || 'collateral')) as h) x
         where h % 3 = 0`,
        [id],
      );
      await tx.query(
        `
        insert into loan_collaterals (tenant_id, loan_id, collateral_id)
        select distinct on (k.id) $1, l.id, k.id from collaterals k join loans l on l.tenant_id = k.tenant_id and l.customer_id = k.customer_id
         order by k.id, l.created_at desc`,
        [id],
      );
    });
    if (shouldVacuum) await vacuumAnalyze('offers, loan_applications, collaterals, loan_collaterals');
    process.stderr.write(
      `filled offers, loan applications and collaterals of ${id} in ${Math.round((Date.now() - began) / 1000)} s\n`,
    );
  }
}

const db = await openDatabase({ databaseUrl: url });
try {
  const isBulk = Boolean(values.bulk);
  const tenantId = isBulk
    ? await bulkFill(db, Number(values.bulk))
    : (
        await db.system((tx) =>
          tx.query<{ id: string }>('select id from tenants where slug = $1 or id = $1', [values.tenant ?? 'demo']),
        )
      )[0]?.id;
  if (!tenantId) throw new Error(`no tenant ${values.tenant}`);
  const [tenant] = await db.system((tx) =>
    tx.query<{ currency: string }>('select currency from tenants where id = $1', [tenantId]),
  );
  const [sizes] = await db.tenant(tenantId, (tx) =>
    tx.query<{ customers: number; loans: number }>(
      'select (select count(*)::int from customers) as customers, (select count(*)::int from loans) as loans',
    ),
  );
  // The viewer: a named user with their data permissions, or an unrestricted (admin) viewer.
  let viewer: ListViewer = {
    tenantId,
    userId: '00000000-0000-4000-8000-000000000000',
    isAdmin: true,
    dataPermissions: [],
    currency: tenant!.currency.trim(),
  };
  if (values.user) {
    const [user] = await db.tenant(tenantId, (tx) =>
      tx.query<{ id: string }>('select id from users where lower(email) = lower($1)', [values.user]),
    );
    if (!user) throw new Error(`no user ${values.user} in ${tenantId}`);
    const permissions = await db.tenant(tenantId, (tx) =>
      tx.query<{ field: string; value: string }>('select field, value from user_data_permissions where user_id = $1', [
        user.id,
      ]),
    );
    viewer = { ...viewer, userId: user.id, isAdmin: false, dataPermissions: permissions };
  }
  if (values.branch)
    viewer = { ...viewer, isAdmin: false, dataPermissions: [{ field: 'branch', value: values.branch }] };
  const countCap = values.cap ? Number(values.cap) : COUNT_CAP;
  const results: {
    list: string;
    query: string;
    medianMs: number;
    p95Ms: number;
    rows: number;
    counts: Record<string, string>;
  }[] = [];
  for (const entry of Object.values(LISTS)) {
    if (values.list?.length && !values.list.includes(entry.def.name)) continue;
    const queries = [
      '',
      ...entry.def.tabs.filter((t) => t.name !== entry.def.defaultTab).map((t) => `tab=${t.name}`),
      'q=dia',
      'q=12345',
      `sort=-${entry.def.columns.find((c) => c.isSortable && c.isNotNull && !c.isRequired)?.key ?? entry.def.defaultSort.key}`,
    ];
    for (const query of queries) {
      const times: number[] = [];
      let rows = 0;
      let counts: Record<string, string> = {};
      for (let i = 0; i < runs + 2; i++) {
        const started = process.hrtime.bigint();
        const served = await serveList(db, viewer, entry, new URLSearchParams(query), { countCap });
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (i >= 2) times.push(ms); // two warm-up runs
        rows = served.page.rows.length;
        counts = Object.fromEntries(
          Object.entries(served.counts).map(([tab, n]) => [tab, `${n}${served.cappedTabs.includes(tab) ? '+' : ''}`]),
        );
      }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)]!;
      const p95 = times[Math.min(times.length - 1, Math.ceil(times.length * 0.95) - 1)]!;
      results.push({
        list: entry.def.name,
        query: query || '(default)',
        medianMs: Math.round(median * 10) / 10,
        p95Ms: Math.round(p95 * 10) / 10,
        rows,
        counts,
      });
      console.log(
        `${entry.path.padEnd(24)} ${(query || '(default)').padEnd(28)} median ${median.toFixed(1).padStart(7)} ms   p95 ${p95.toFixed(1).padStart(7)} ms   ${rows} rows   ${Object.entries(
          counts,
        )
          .map(([t, n]) => `${t}=${n}`)
          .join(' ')}`,
      );
    }
  }
  const firstPages = results.filter((r) => r.query === '(default)');
  const report = {
    measuredAt: new Date().toISOString(),
    tenantId,
    data: isBulk ? 'bulk SQL fill (--bulk)' : 'existing tenant (npm run seed)',
    ...sizes,
    viewer: values.user ?? (values.branch ? `data permission branch ${values.branch}` : 'unrestricted'),
    countCap,
    runs,
    machine: { cpus: os.cpus().length, loadAverage: os.loadavg().map((n) => Math.round(n * 10) / 10) },
    // The acceptance target: the first page of each list (default tab, sort and columns) under 100 ms.
    targetMedianMs: 100,
    firstPages: firstPages.map((r) => ({
      list: r.list,
      medianMs: r.medianMs,
      p95Ms: r.p95Ms,
      isWithinTarget: r.medianMs < 100,
    })),
    areFirstPagesWithinTarget: firstPages.every((r) => r.medianMs < 100),
    // Every measured view (other tabs, a search, another sort), for information.
    isWithinTarget: results.every((r) => r.medianMs < 100),
    results,
  };
  fs.mkdirSync(path.dirname(values.out!), { recursive: true });
  fs.writeFileSync(values.out!, `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    `\n${sizes!.customers} customers, ${sizes!.loans} loans; ${report.areFirstPagesWithinTarget ? 'every' : 'NOT every'} first page under 100 ms at the median (over: ${
      firstPages
        .filter((r) => r.medianMs >= 100)
        .map((r) => r.list)
        .join(', ') || 'none'
    }); written to ${values.out}`,
  );
} finally {
  await db.close();
}
