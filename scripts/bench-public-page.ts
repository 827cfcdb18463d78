// `npm run bench:public-page`: how long the public application page (issue 13) takes to load on a
// slow phone connection — 150 ms round trip, 1.6 Mbps down / 750 Kbps up, CPU slowed 4× (Chromium's
// DevTools emulation) — and whether anything shifts while it loads (cumulative layout shift).
// Against a RUNNING server (default http://localhost:4321, or --url / BASE_URL) with the demo form;
// a fresh browser context per run (nothing cached), median and worst of --runs loads.
// Prints a table and writes bench/results/public-page.json; exits 1 when the median is over --budget-ms
// (1000) or the layout shifts.
//
//   npm run bench:public-page -- --url http://localhost:4321 --page /application/demo-personal-loan
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.BASE_URL ?? 'http://localhost:4321' },
    page: { type: 'string', default: '/application/demo-personal-loan' },
    runs: { type: 'string', default: '5' },
    'budget-ms': { type: 'string', default: '1000' },
    out: { type: 'string', default: 'bench/results/public-page.json' },
  },
});
const base = values.url!.replace(/\/$/, '');
const runs = Math.max(1, Number(values.runs));
const budget = Number(values['budget-ms']);

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
type Run = { loadMs: number; firstContentfulPaintMs: number; layoutShift: number; transferBytes: number };
const results: Run[] = [];
try {
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 360, height: 640 }, isMobile: true });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 150,
      downloadThroughput: (1.6 * 1024 * 1024) / 8,
      uploadThroughput: (750 * 1024) / 8,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.addInitScript(() => {
      (window as unknown as { __cls: number }).__cls = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
          if (!entry.hadRecentInput) (window as unknown as { __cls: number }).__cls += entry.value;
      }).observe({ type: 'layout-shift', buffered: true });
    });
    const response = await page.goto(`${base}${values.page}`, { waitUntil: 'load' });
    if (response?.status() !== 200) throw new Error(`${values.page}: HTTP ${response?.status()}`);
    await page.waitForTimeout(300);
    const measured = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      const transfer = performance
        .getEntriesByType('resource')
        .reduce((n, r) => n + (r as PerformanceResourceTiming).transferSize, nav.transferSize);
      return {
        loadMs: nav.loadEventEnd - nav.startTime,
        firstContentfulPaintMs: fcp ? fcp.startTime : -1,
        layoutShift: (window as unknown as { __cls: number }).__cls,
        transferBytes: transfer,
      };
    });
    results.push(measured);
    await context.close();
  }
} finally {
  await browser.close();
}
const sorted = [...results].sort((a, b) => a.loadMs - b.loadMs);
const median = sorted[Math.floor(sorted.length / 2)]!.loadMs;
const worst = sorted[sorted.length - 1]!.loadMs;
const shift = Math.max(...results.map((r) => r.layoutShift));
for (const r of results)
  console.log(
    `load ${r.loadMs.toFixed(0).padStart(5)} ms  FCP ${r.firstContentfulPaintMs.toFixed(0).padStart(5)} ms  CLS ${r.layoutShift.toFixed(3)}  ${(r.transferBytes / 1000).toFixed(1)} KB`,
  );
const isWithin = median <= budget && shift === 0;
console.log(
  `\n${values.page}: median load ${median.toFixed(0)} ms, worst ${worst.toFixed(0)} ms, layout shift ${shift.toFixed(3)} — ${isWithin ? 'within' : 'OVER'} the ${budget} ms budget (150 ms RTT, 1.6 Mbps, 4× CPU)`,
);
fs.mkdirSync(path.dirname(values.out!), { recursive: true });
fs.writeFileSync(
  values.out!,
  `${JSON.stringify({ measuredAt: new Date().toISOString(), baseUrl: base, page: values.page, budgetMs: budget, medianMs: median, worstMs: worst, layoutShift: shift, runs: results }, null, 2)}\n`,
);
if (!isWithin) process.exit(1);
