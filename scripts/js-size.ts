// `npm run bench:js-size`: how much JavaScript the list pages load, as sent over the wire.
//
// Builds nothing: it signs in to a RUNNING server (default http://localhost:4321, or --url / BASE_URL)
// as a demo user, fetches the HTML of each list page, collects every script the page loads (script
// tags, module preloads, island component and renderer URLs, then every static and dynamic import of
// those modules, transitively), downloads each with `accept-encoding: br` and counts the bytes
// actually received. Inline scripts count too (brotli-compressed here, as the HTML around them is).
// Prints a table, writes bench/results/js-size.json, and exits 1 when a page exceeds the budget.
// Then the pages that only show data (a customer profile's resume, metrics, behaviour, class and
// transactions, for the first customer the user sees): they must load no island at all, only the
// shell's own script (idle logout, error reports, sign-out), under --data-budget-kb.
//
//   npm run bench:js-size -- --url http://localhost:4321 --email officer@demo.test --budget-kb 170 --data-budget-kb 20
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
    'data-budget-kb': { type: 'string', default: '20' },
    out: { type: 'string', default: 'bench/results/js-size.json' },
    page: { type: 'string', multiple: true },
  },
});
const base = values.url!.replace(/\/$/, '');
const budgetBytes = Number(values['budget-kb']) * 1000;
const dataBudgetBytes = Number(values['data-budget-kb']) * 1000;
// Every list page of the loans workspace (and a tab / sort variant of the two busiest), as the
// README's budget line says "list pages ship at most 170 KB".
const PAGES = values.page?.length ? values.page : [
  '/loans/customers', '/loans/customers?tab=borrower&sort=-created_at',
  '/loans/loans', '/loans/loans?tab=overdue',
  '/loans/offers', '/loans/payments', '/loans/loan-applications', '/loans/collaterals',
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
        const body = encoding === 'br' ? zlib.brotliDecompressSync(raw) : encoding === 'gzip' ? zlib.gunzipSync(raw) : raw;
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
  if (!response.ok) throw new Error(`sign-in as ${values.email} failed: HTTP ${response.status} ${await response.text()}`);
  const cookies = response.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
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
const IMPORTS = [
  /\bimport\s*(?:[\w*${}\s,]+from\s*)?["']([^"']+)["']/g,
  /\bexport\s*(?:[\w*${}\s,]+)from\s*["']([^"']+)["']/g,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
];

function matches(text: string, patterns: RegExp[]): string[] {
  const out: string[] = [];
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) out.push(m[1]!.replace(/&amp;/g, '&'));
  return out;
}

type PageResult = { page: string; status: number; islands: number; scripts: { url: string; wireBytes: number; encoding: string }[]; inlineBytes: number; totalBytes: number };

async function measure(page: string, cookie: string): Promise<PageResult> {
  const html = await get(`${base}${page}`, { cookie });
  if (html.status !== 200) throw new Error(`${page}: HTTP ${html.status} (is the server running and the user allowed?)`);
  const text = html.body.toString('utf8');
  const inline = [...text.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!).join('\n');
  const inlineBytes = inline ? zlib.brotliCompressSync(Buffer.from(inline)).length : 0;
  const queue = matches(text, ATTRIBUTE_URLS).map((u) => new URL(u, `${base}${page}`).toString());
  const seen = new Map<string, { wireBytes: number; encoding: string }>();
  while (queue.length) {
    const url = queue.shift()!;
    if (seen.has(url) || !url.startsWith(base)) continue;
    const script = await get(url, {});
    if (script.status !== 200) throw new Error(`${url}: HTTP ${script.status}`);
    seen.set(url, { wireBytes: script.wireBytes, encoding: String(script.headers['content-encoding'] ?? 'identity') });
    for (const dep of matches(script.body.toString('utf8'), IMPORTS)) {
      if (dep.startsWith('.') || dep.startsWith('/')) queue.push(new URL(dep, url).toString());
    }
  }
  const scripts = [...seen].map(([url, s]) => ({ url: url.slice(base.length), ...s })).sort((a, b) => b.wireBytes - a.wireBytes);
  const totalBytes = scripts.reduce((sum, s) => sum + s.wireBytes, 0) + inlineBytes;
  const islands = (text.match(/<astro-island\b/g) ?? []).length;
  return { page, status: html.status, islands, scripts, inlineBytes, totalBytes };
}

/** The profile pages that only show data, for the first customer of the user's customers list. */
async function dataPages(cookie: string): Promise<string[]> {
  const response = await fetch(`${base}/v1/lists/customers?limit=10`, { headers: { cookie } });
  if (!response.ok) throw new Error(`customers list: HTTP ${response.status}`);
  const { rows } = (await response.json()) as { rows: { id: string }[] };
  if (!rows.length) throw new Error(`${values.email} sees no customer`);
  const profile = `/loans/customer/profile/${rows[0]!.id}`;
  return ['resume', 'transaction-metrics', 'repayment-behavior', 'class', 'transactions'].map((sub) => `${profile}/${sub}`);
}

const cookie = await signIn();
const results: PageResult[] = [];
for (const page of PAGES) results.push(await measure(page, cookie));
const dataResults: PageResult[] = [];
if (!values.page?.length) for (const page of await dataPages(cookie)) dataResults.push(await measure(page, cookie));

const kb = (n: number) => `${(n / 1000).toFixed(1)} KB`;
for (const r of [...results, ...dataResults]) {
  console.log(`\n${r.page}: ${kb(r.totalBytes)} of JavaScript over the wire (${r.scripts.length} files + ${kb(r.inlineBytes)} inline, ${r.islands} island(s))`);
  for (const s of r.scripts.slice(0, 8)) console.log(`  ${kb(s.wireBytes).padStart(9)}  ${s.encoding.padEnd(8)} ${s.url}`);
}
const worst = Math.max(...results.map((r) => r.totalBytes));
const isWithinBudget = worst <= budgetBytes;
const worstData = Math.max(0, ...dataResults.map((r) => r.totalBytes));
const isDataWithinBudget = dataResults.every((r) => r.islands === 0 && r.totalBytes <= dataBudgetBytes);
const report = {
  measuredAt: new Date().toISOString(), baseUrl: base, user: values.email,
  budgetBytes, worstBytes: worst, isWithinBudget, pages: results,
  dataBudgetBytes, worstDataBytes: worstData, isDataWithinBudget, dataPages: dataResults,
};
fs.mkdirSync(path.dirname(values.out!), { recursive: true });
fs.writeFileSync(values.out!, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nworst list page: ${kb(worst)} — ${isWithinBudget ? 'within' : 'OVER'} the ${kb(budgetBytes)} budget`);
if (dataResults.length) {
  console.log(`worst data-only page: ${kb(worstData)}, ${dataResults.reduce((n, r) => n + r.islands, 0)} island(s) — ${isDataWithinBudget ? 'within' : 'OVER'} the ${kb(dataBudgetBytes)} budget, islands allowed: none`);
}
console.log(`written to ${values.out}`);
if (!isWithinBudget || !isDataWithinBudget) process.exit(1);
