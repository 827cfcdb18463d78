// `npm run bench:js-size`: how much JavaScript the list pages load, as sent over the wire.
//
// Builds nothing: it signs in to a RUNNING server (default http://localhost:4321, or --url / BASE_URL)
// as a demo user, fetches the HTML of each list page, collects every script the page loads (script
// tags, module preloads, island component and renderer URLs, then every static and dynamic import of
// those modules, transitively), downloads each with `accept-encoding: br` and counts the bytes
// actually received. Inline scripts count too (brotli-compressed here, as the HTML around them is).
// Prints a table, writes bench/results/js-size.json, and exits 1 when a page exceeds the budget.
//
//   npm run bench:js-size -- --url http://localhost:4321 --email officer@demo.test --budget-kb 170
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
    out: { type: 'string', default: 'bench/results/js-size.json' },
    page: { type: 'string', multiple: true },
  },
});
const base = values.url!.replace(/\/$/, '');
const budgetBytes = Number(values['budget-kb']) * 1000;
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

type PageResult = { page: string; status: number; scripts: { url: string; wireBytes: number; encoding: string }[]; inlineBytes: number; totalBytes: number };

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
  return { page, status: html.status, scripts, inlineBytes, totalBytes };
}

const cookie = await signIn();
const results: PageResult[] = [];
for (const page of PAGES) results.push(await measure(page, cookie));

const kb = (n: number) => `${(n / 1000).toFixed(1)} KB`;
for (const r of results) {
  console.log(`\n${r.page}: ${kb(r.totalBytes)} of JavaScript over the wire (${r.scripts.length} files + ${kb(r.inlineBytes)} inline), budget ${kb(budgetBytes)}`);
  for (const s of r.scripts.slice(0, 8)) console.log(`  ${kb(s.wireBytes).padStart(9)}  ${s.encoding.padEnd(8)} ${s.url}`);
}
const worst = Math.max(...results.map((r) => r.totalBytes));
const report = { measuredAt: new Date().toISOString(), baseUrl: base, user: values.email, budgetBytes, worstBytes: worst, isWithinBudget: worst <= budgetBytes, pages: results };
fs.mkdirSync(path.dirname(values.out!), { recursive: true });
fs.writeFileSync(values.out!, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nworst page: ${kb(worst)} — ${worst <= budgetBytes ? 'within' : 'OVER'} the ${kb(budgetBytes)} budget; written to ${values.out}`);
if (worst > budgetBytes) process.exit(1);
