// `npm run bench:js-size`: how much JavaScript pages load, as sent over the wire.
//
// Builds nothing: it signs in to a RUNNING server (default http://localhost:4321, or --url / BASE_URL)
// as a demo user, fetches the HTML of each page, collects every script the page loads (script tags,
// module preloads, island component and renderer URLs, then every static import of those modules,
// transitively), downloads each with `accept-encoding: br` and counts the bytes actually received.
// Inline scripts count too (brotli-compressed here, as the HTML around them is). Modules reached only
// through a dynamic `import()` (a dialog's content, fetched when the dialog first opens) are
// downloaded and reported beside each page as "on demand", outside its budget.
// Four kinds of pages, each with its budget; the script exits 1 when one is over:
// - the list pages of the loans workspace, under --budget-kb;
// - the loan page and the offer page (the first loan and the first offer of the user's lists), under
//   --page-budget-kb;
// - the pages that only show data (a customer profile's resume, metrics, behaviour, class and
//   transactions, for the first customer the user sees): they must load no island at all, only the
//   shell's own script (idle logout, error reports, sign-out), under --data-budget-kb;
// - the public application page (issue 13, /application/:id, fetched with no session: --public-page,
//   default the demo form), the one page the public uses on phones: no island, its small script
//   (inline validation, conditional fields, the proof-of-work solver) included, under --public-budget-kb.
// Prints a table and writes bench/results/js-size.json.
//
//   npm run bench:js-size -- --url http://localhost:4321 --email officer@demo.test --budget-kb 170 --page-budget-kb 120 --data-budget-kb 20
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import zlib from 'node:zlib';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.BASE_URL ?? 'http://localhost:4321' },
    email: { type: 'string', default: 'officer@demo.test' },
    password: { type: 'string', default: process.env.DEMO_PASSWORD ?? 'Demo-Lender-2026!' },
    'budget-kb': { type: 'string', default: '170' },
    'page-budget-kb': { type: 'string', default: '120' },
    'data-budget-kb': { type: 'string', default: '20' },
    'public-budget-kb': { type: 'string', default: '30' },
    'public-page': { type: 'string', multiple: true },
    out: { type: 'string', default: 'bench/results/js-size.json' },
    page: { type: 'string', multiple: true },
  },
});
const base = values.url!.replace(/\/$/, '');
const budgetBytes = Number(values['budget-kb']) * 1000;
const pageBudgetBytes = Number(values['page-budget-kb']) * 1000;
const dataBudgetBytes = Number(values['data-budget-kb']) * 1000;
const publicBudgetBytes = Number(values['public-budget-kb']) * 1000;
const PUBLIC_PAGES = values['public-page']?.length ? values['public-page'] : ['/application/demo-personal-loan'];
// Every list page of the loans workspace (and a tab / sort variant of the two busiest), as the
// README's budget line says "list pages ship at most 170 KB".
const PAGES = values.page?.length
  ? values.page
  : [
      '/loans/customers',
      '/loans/customers?tab=borrower&sort=-created_at',
      '/loans/loans',
      '/loans/loans?tab=overdue',
      '/loans/offers',
      '/loans/payments',
      '/loans/loan-applications',
      '/loans/collaterals',
    ];

type Fetched = { status: number; headers: http.IncomingHttpHeaders; wireBytes: number; body: Buffer };

/** A raw GET that reports the bytes on the wire (before decompression) and the decoded body. */
function get(url: string, headers: Record<string, string>): Promise<Fetched> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(url, { headers: { 'accept-encoding': 'br', ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => {
        const raw = Buffer.concat(chunks);
        const encoding = response.headers['content-encoding'];
        const body =
          encoding === 'br' ? zlib.brotliDecompressSync(raw) : encoding === 'gzip' ? zlib.gunzipSync(raw) : raw;
        resolve({ status: response.statusCode ?? 0, headers: response.headers, wireBytes: raw.length, body });
      });
    });
    request.on('error', reject);
  });
}

async function signIn(): Promise<string> {
  const response = await fetch(`${base}/v1/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email: values.email, password: values.password }),
  });
  if (!response.ok)
    throw new Error(`sign-in as ${values.email} failed: HTTP ${response.status} ${await response.text()}`);
  const cookies = response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  if (!cookies) throw new Error('sign-in answered no session cookie');
  return cookies;
}

const ATTRIBUTE_URLS = [
  /<script\b[^>]*\bsrc="([^"]+)"/g,
  /<link\b[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g,
  /<link\b[^>]*href="([^"]+)"[^>]*rel="modulepreload"/g,
  /\bcomponent-url="([^"]+)"/g,
  /\brenderer-url="([^"]+)"/g,
  /\bbefore-hydration-url="([^"]+)"/g,
];
const STATIC_IMPORTS = [
  /\bimport\s*(?:[\w*${}\s,]+from\s*)?["']([^"']+)["']/g,
  /\bexport\s*(?:[\w*${}\s,]+)from\s*["']([^"']+)["']/g,
];
// The bundler writes dynamic imports with template literals: import(`./chunk.js`).
const DYNAMIC_IMPORTS = [/\bimport\(\s*["'`]([^"'`$]+)["'`]\s*\)/g];

function matches(text: string, patterns: RegExp[]): string[] {
  const out: string[] = [];
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) out.push(m[1]!.replace(/&amp;/g, '&'));
  return out;
}

type Script = { url: string; wireBytes: number; encoding: string };
type PageResult = {
  page: string;
  status: number;
  islands: number;
  scripts: Script[];
  inlineBytes: number;
  totalBytes: number;
  onDemand: Script[];
  onDemandBytes: number;
};

const downloaded = new Map<string, { wireBytes: number; encoding: string; body: string }>();

/** A script's bytes on the wire, downloaded once per run (pages share most of their modules). */
async function script(url: string) {
  let known = downloaded.get(url);
  if (!known) {
    const response = await get(url, {});
    if (response.status !== 200) throw new Error(`${url}: HTTP ${response.status}`);
    known = {
      wireBytes: response.wireBytes,
      encoding: String(response.headers['content-encoding'] ?? 'identity'),
      body: response.body.toString('utf8'),
    };
    downloaded.set(url, known);
  }
  return known;
}

/**
 * The modules reachable from `entries` through static imports, and the targets of the dynamic
 * imports met on the way (followed by the caller, outside the page's load).
 */
async function closure(entries: string[], skip: Set<string>) {
  const seen = new Map<string, Script>();
  const dynamic: string[] = [];
  const queue = [...entries];
  while (queue.length) {
    const url = queue.shift()!;
    if (seen.has(url) || skip.has(url) || !url.startsWith(base)) continue;
    const s = await script(url);
    seen.set(url, { url: url.slice(base.length), wireBytes: s.wireBytes, encoding: s.encoding });
    const local = (deps: string[]) =>
      deps.filter((d) => d.startsWith('.') || d.startsWith('/')).map((d) => new URL(d, url).toString());
    queue.push(...local(matches(s.body, STATIC_IMPORTS)));
    dynamic.push(...local(matches(s.body, DYNAMIC_IMPORTS)));
  }
  return { seen, dynamic };
}

const bySize = (a: Script, b: Script) => b.wireBytes - a.wireBytes;
const sum = (scripts: Script[]) => scripts.reduce((n, s) => n + s.wireBytes, 0);

async function measure(page: string, cookie: string): Promise<PageResult> {
  const html = await get(`${base}${page}`, cookie ? { cookie } : {});
  if (html.status !== 200)
    throw new Error(`${page}: HTTP ${html.status} (is the server running and the user allowed?)`);
  const text = html.body.toString('utf8');
  const inline = [...text.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!).join('\n');
  const inlineBytes = inline ? zlib.brotliCompressSync(Buffer.from(inline)).length : 0;
  const load = await closure(
    matches(text, ATTRIBUTE_URLS).map((u) => new URL(u, `${base}${page}`).toString()),
    new Set(),
  );
  // What the page fetches later, on a click: dynamic imports and everything they bring that the page
  // did not already load (their own dynamic imports included).
  const onDemand = new Map<string, Script>();
  let pending = load.dynamic;
  while (pending.length) {
    const later = await closure(pending, new Set([...load.seen.keys(), ...onDemand.keys()]));
    for (const [url, s] of later.seen) onDemand.set(url, s);
    pending = later.dynamic.filter((u) => !load.seen.has(u) && !onDemand.has(u));
  }
  const scripts = [...load.seen.values()].sort(bySize);
  const onDemandScripts = [...onDemand.values()].sort(bySize);
  const islands = (text.match(/<astro-island\b/g) ?? []).length;
  return {
    page,
    status: html.status,
    islands,
    scripts,
    inlineBytes,
    totalBytes: sum(scripts) + inlineBytes,
    onDemand: onDemandScripts,
    onDemandBytes: sum(onDemandScripts),
  };
}

/** The profile pages that only show data, for the first customer of the user's customers list. */
async function dataPages(cookie: string): Promise<string[]> {
  const response = await fetch(`${base}/v1/lists/customers?limit=10`, { headers: { cookie } });
  if (!response.ok) throw new Error(`customers list: HTTP ${response.status}`);
  const { rows } = (await response.json()) as { rows: { id: string }[] };
  if (!rows.length) throw new Error(`${values.email} sees no customer`);
  const profile = `/loans/customer/profile/${rows[0]!.id}`;
  return ['resume', 'transaction-metrics', 'repayment-behavior', 'class', 'transactions'].map(
    (sub) => `${profile}/${sub}`,
  );
}

/** The loan page and the offer page of the first loan and the first offer in the user's lists. */
async function detailPages(cookie: string): Promise<string[]> {
  const pages: string[] = [];
  for (const list of ['loans', 'offers']) {
    const response = await fetch(`${base}/v1/lists/${list}?limit=10`, { headers: { cookie } });
    if (!response.ok) throw new Error(`${list} list: HTTP ${response.status}`);
    const { rows } = (await response.json()) as { rows: { id: string; href: string }[] };
    if (!rows.length) throw new Error(`${values.email} sees no ${list}`);
    pages.push(rows[0]!.href);
  }
  return pages;
}

const cookie = await signIn();
const results: PageResult[] = [];
for (const page of PAGES) results.push(await measure(page, cookie));
const detailResults: PageResult[] = [];
const dataResults: PageResult[] = [];
if (!values.page?.length) {
  for (const page of await detailPages(cookie)) detailResults.push(await measure(page, cookie));
  for (const page of await dataPages(cookie)) dataResults.push(await measure(page, cookie));
}
// The public page is measured as the public sees it: no session cookie.
const publicResults: PageResult[] = [];
for (const page of PUBLIC_PAGES) publicResults.push(await measure(page, ''));

const kb = (n: number) => `${(n / 1000).toFixed(1)} KB`;
for (const r of [...results, ...detailResults, ...dataResults, ...publicResults]) {
  const later = r.onDemand.length ? `; ${kb(r.onDemandBytes)} more on demand in ${r.onDemand.length} files` : '';
  console.log(
    `\n${r.page}: ${kb(r.totalBytes)} of JavaScript over the wire (${r.scripts.length} files + ${kb(r.inlineBytes)} inline, ${r.islands} island(s)${later})`,
  );
  for (const s of r.scripts.slice(0, 8))
    console.log(`  ${kb(s.wireBytes).padStart(9)}  ${s.encoding.padEnd(8)} ${s.url}`);
  for (const s of r.onDemand.slice(0, 4))
    console.log(`  ${kb(s.wireBytes).padStart(9)}  ${s.encoding.padEnd(8)} ${s.url} (on demand)`);
}
const worstOf = (rs: PageResult[]) => Math.max(0, ...rs.map((r) => r.totalBytes));
const worst = worstOf(results);
const isWithinBudget = worst <= budgetBytes;
const worstDetail = worstOf(detailResults);
const isDetailWithinBudget = worstDetail <= pageBudgetBytes;
const worstData = worstOf(dataResults);
const dataIslands = dataResults.reduce((n, r) => n + r.islands, 0);
const isDataWithinBudget = dataIslands === 0 && worstData <= dataBudgetBytes;
const worstPublic = worstOf(publicResults);
const publicIslands = publicResults.reduce((n, r) => n + r.islands, 0);
const isPublicWithinBudget = publicIslands === 0 && worstPublic <= publicBudgetBytes;
const report = {
  measuredAt: new Date().toISOString(),
  baseUrl: base,
  user: values.email,
  budgetBytes,
  worstBytes: worst,
  isWithinBudget,
  pages: results,
  pageBudgetBytes,
  worstDetailBytes: worstDetail,
  isDetailWithinBudget,
  detailPages: detailResults,
  dataBudgetBytes,
  worstDataBytes: worstData,
  dataIslands,
  isDataWithinBudget,
  dataPages: dataResults,
  publicBudgetBytes,
  worstPublicBytes: worstPublic,
  publicIslands,
  isPublicWithinBudget,
  publicPages: publicResults,
};
fs.mkdirSync(path.dirname(values.out!), { recursive: true });
fs.writeFileSync(values.out!, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nworst list page: ${kb(worst)} — ${isWithinBudget ? 'within' : 'OVER'} the ${kb(budgetBytes)} budget`);
if (detailResults.length) {
  console.log(
    `worst loan / offer page: ${kb(worstDetail)} — ${isDetailWithinBudget ? 'within' : 'OVER'} the ${kb(pageBudgetBytes)} budget`,
  );
}
if (dataResults.length) {
  console.log(
    `worst data-only page: ${kb(worstData)}, ${dataIslands} island(s) — ${isDataWithinBudget ? 'within' : 'OVER'} the ${kb(dataBudgetBytes)} budget and no island allowed`,
  );
}
console.log(
  `public application page: ${kb(worstPublic)}, ${publicIslands} island(s) — ${isPublicWithinBudget ? 'within' : 'OVER'} the ${kb(publicBudgetBytes)} budget and no island allowed`,
);
console.log(`written to ${values.out}`);
if (!isWithinBudget || !isDetailWithinBudget || !isDataWithinBudget || !isPublicWithinBudget) process.exit(1);
