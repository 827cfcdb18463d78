import type { APIRequestContext, Browser, BrowserContext, Page } from '@playwright/test';
import { appOrigin, expect, signIn, test } from './support/fixtures.ts';
import { LONG_PAYLOAD, TRAP, XSS_PAYLOADS, payloadsUpTo, type XssPayload } from './support/payloads-xss.ts';

/**
 * Script injection. Hostile text is planted everywhere a user types
 * something the product echoes back (list searches, customer fields, collateral descriptions, file
 * names, custom view names, application notes, the sign-in page's parameters and error, 404 paths),
 * then every page kind that shows it is rendered in Chromium as an administrator. A trap defined
 * before any page script records every call a payload makes; the test also fails on any dialog, any
 * CSP violation, and any element or attribute a payload would have added to the DOM.
 */

const LISTS = [
  '/loans/customers',
  '/loans/loans',
  '/loans/offers',
  '/loans/loan-applications',
  '/loans/payments',
  '/loans/collaterals',
] as const;

type Watch = { dialogs: string[] };

/** The trap and the CSP listener, on every page and frame of the context, before any page script. */
async function armTrap(context: BrowserContext): Promise<Watch> {
  await context.addInitScript((trap: string) => {
    const w = window as unknown as Record<string, unknown>;
    const hits: string[] = [];
    const violations: string[] = [];
    w.__xssHits = hits;
    w.__cspViolations = violations;
    w[trap] = (n: unknown) => {
      hits.push(String(n));
    };
    document.addEventListener('securitypolicyviolation', (e) => {
      violations.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sample}`);
    });
  }, TRAP);
  const watch: Watch = { dialogs: [] };
  context.on('page', (page) => watchDialogs(page, watch));
  for (const page of context.pages()) watchDialogs(page, watch);
  return watch;
}

/** A fresh browser context (no cookies) with the trap armed, and its first page. */
async function armedPage(browser: Browser): Promise<{ context: BrowserContext; watch: Watch; page: Page }> {
  const context = await browser.newContext({ baseURL: appOrigin() });
  const watch = await armTrap(context);
  return { context, watch, page: await context.newPage() };
}

function watchDialogs(page: Page, watch: Watch): void {
  page.on('dialog', (dialog) => {
    watch.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
}

/** Fails when a payload ran, raised a dialog, tripped the CSP, or left markup of its own in the DOM. */
async function expectNothingRan(page: Page, watch: Watch, where: string): Promise<void> {
  const found = await page.evaluate((trap: string) => {
    const w = window as unknown as { __xssHits?: string[]; __cspViolations?: string[] };
    const injected: string[] = [];
    const urlAttributes = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'poster']);
    // A same-origin link carrying the payload percent-encoded in its query is data; a script URL is not.
    const isScriptUrl = (value: string) => {
      try {
        return !['http:', 'https:', 'mailto:', 'tel:'].includes(new URL(value, location.href).protocol);
      } catch {
        return false;
      }
    };
    for (const el of document.querySelectorAll('*')) {
      if (el.hasAttribute('data-xss')) injected.push(`<${el.localName} data-xss>`);
      for (const attr of el.attributes) {
        if (/^on/i.test(attr.name)) injected.push(`<${el.localName} ${attr.name}>`);
        const name = attr.name.toLowerCase();
        if (
          (urlAttributes.has(name) && attr.value.includes(trap) && isScriptUrl(attr.value)) ||
          (name === 'srcdoc' && attr.value.includes(trap))
        )
          injected.push(`<${el.localName} ${attr.name}="${attr.value.slice(0, 60)}">`);
      }
      if (
        el.localName === 'script' &&
        el.getAttribute('type') !== 'application/json' &&
        (el.textContent ?? '').includes(trap)
      )
        injected.push('<script> with the payload');
    }
    return { hits: w.__xssHits ?? ['trap missing'], violations: w.__cspViolations ?? [], injected };
  }, TRAP);
  expect({ where, ...found, dialogs: watch.dialogs }).toEqual({
    where,
    hits: [],
    violations: [],
    injected: [],
    dialogs: [],
  });
}

async function visit(page: Page, watch: Watch, url: string): Promise<void> {
  const response = await page.goto(url);
  expect(response, url).not.toBeNull();
  await page.waitForLoadState('load');
  await expectNothingRan(page, watch, url);
}

const json = { origin: appOrigin() };

async function created(
  response: Awaited<ReturnType<APIRequestContext['post']>>,
): Promise<{ id: string } & Record<string, unknown>> {
  expect(response.status(), await response.text()).toBeLessThan(300);
  return (await response.json()) as { id: string } & Record<string, unknown>;
}

test.describe('[SECURITY]: script injection', () => {
  test('hostile text in searches, records, file names, views and notes runs nothing on any page', async ({
    browser,
  }) => {
    test.setTimeout(600_000);
    const { context, watch, page } = await armedPage(browser);
    await signIn(page, 'admin@demo.test');
    const api = page.request;
    const stamp = `X${Date.now() % 1_000_000}`;

    // Lists: the search box echoes ?q= (and ?search= is passed along). All lists share one view
    // component, so each payload goes to two of the six lists (every list gets a third of them).
    const searchable = payloadsUpTo(100);
    for (const [i, list] of LISTS.entries()) {
      for (const { value } of searchable.filter((_, j) => j % 3 === i % 3))
        await visit(page, watch, `${list}?${new URLSearchParams({ q: value, search: value })}`);
      await visit(page, watch, `${list}?${new URLSearchParams({ q: LONG_PAYLOAD, search: LONG_PAYLOAD })}`);
    }

    // Customers whose every text field is hostile (one customer per payload, fields rotated).
    // (The e-mail must be a valid address, so it carries no payload.)
    const fields = ['firstName', 'lastName', 'externalId', 'nationalId', 'phone', 'segment', 'riskClass'] as const;
    const limits: Record<(typeof fields)[number], number> = {
      firstName: 200,
      lastName: 200,
      externalId: 100,
      nationalId: 100,
      phone: 50,
      segment: 100,
      riskClass: 50,
    };
    const customers: string[] = [];
    for (const [i, payload] of XSS_PAYLOADS.entries()) {
      const data: Record<string, string> = {
        firstName: payload.value,
        lastName: `${stamp} ${payload.value}`.slice(0, 200),
      };
      for (const [k, field] of fields.entries()) {
        if (k < 2) continue;
        const value = XSS_PAYLOADS[(i + k) % XSS_PAYLOADS.length].value;
        if (value.length <= limits[field]) data[field] = value;
      }
      customers.push((await created(await api.post('/v1/customers', { data, headers: json }))).id);
    }
    const target = customers[1];

    // Collaterals with hostile descriptions, on one customer.
    const collaterals: string[] = [];
    const form = await (await api.get(`/loans/collaterals/new/${target}`)).text();
    const valuationDate = /id="c-date"[^>]*value="(\d{4}-\d{2}-\d{2})"/.exec(form)![1];
    for (const { value } of [...payloadsUpTo(1000), { name: 'long', value: LONG_PAYLOAD.slice(-900) }]) {
      const response = await api.post(`/loans/collaterals/new/${target}`, {
        form: { type: 'vehicle', description: value, value: '1000.00', valuationDate },
        headers: json,
        maxRedirects: 0,
      });
      expect(response.status(), await response.text()).toBe(303);
      collaterals.push(/\/loans\/collaterals\/([0-9a-f-]{36})/.exec(response.headers().location ?? '')![1]);
    }

    // Files with hostile names, uploaded through the profile's form as a browser sends it (the name
    // keeps what follows its last slash).
    for (const { value } of XSS_PAYLOADS) {
      const response = await api.post(`/loans/customer/profile/${target}/files`, {
        multipart: { file: { name: `${value}.txt`, mimeType: 'text/plain', buffer: Buffer.from('hello') } },
        headers: json,
        maxRedirects: 0,
      });
      expect(response.status(), `upload ${value}: ${await response.text()}`).toBe(303);
    }

    // Custom views named with payloads.
    const views: string[] = [];
    for (const { value } of payloadsUpTo(80)) {
      const view = await created(
        await api.post('/v1/custom-views/customers', {
          data: { name: value.trim() || 'x', isShared: false },
          headers: json,
        }),
      );
      views.push(view.id);
    }

    // Applications whose notes (form data) and rejection note are hostile.
    type Product = {
      id: string;
      currency: string;
      minPrincipal: string;
      defaultPrincipal: string | null;
      minRepayments: number;
      defaultRepayments: number | null;
    };
    const products = (await (await api.get('/v1/products')).json()) as { items: Product[] };
    const product = products.items.find((p) => p.currency === 'EUR') ?? products.items[0];
    const applications: string[] = [];
    for (const [i, { value }] of payloadsUpTo(1000).slice(0, 6).entries()) {
      const body = {
        customerId: target,
        productId: product.id,
        principal: product.defaultPrincipal ?? product.minPrincipal,
        numberOfRepayments: product.defaultRepayments ?? product.minRepayments,
        formData: { purpose: value, notes: value },
      };
      const app = await created(await api.post('/v1/applications', { data: body, headers: json }));
      applications.push(String(app.loanId));
      if (i % 2 === 1)
        await api.post(`/v1/applications/${app.id}/reject`, {
          data: { note: value },
          headers: { ...json, 'Idempotency-Key': `${stamp}-reject-${i}` },
        });
    }

    // Every page kind that shows them.
    const sections = [
      'resume',
      'transaction-metrics',
      'files',
      'collaterals',
      'offers',
      'repayment-behavior',
      'class',
      'loans',
      'transactions',
      'upload-bureau-pdf',
      'bank-statements',
      'credit-analysis',
    ];
    for (const sub of sections) await visit(page, watch, `/loans/customer/profile/${target}/${sub}`);
    for (const id of customers.filter((_, i) => i % 3 === 0))
      await visit(page, watch, `/loans/customer/profile/${id}/resume`);
    for (const section of ['admin', 'analytics', 'strategies'])
      await visit(page, watch, `/${section}/customer/profile/${target}/resume`);
    await visit(page, watch, `/loans/customers?${new URLSearchParams({ q: stamp })}`);
    await visit(page, watch, `/loans/collaterals?${new URLSearchParams({ q: stamp })}`);
    await visit(page, watch, `/loans/loan-applications?${new URLSearchParams({ q: stamp })}`);
    for (const id of collaterals.filter((_, i) => i % 2 === 0)) await visit(page, watch, `/loans/collaterals/${id}`);
    await visit(page, watch, `/loans/collaterals/new/${target}`);
    await visit(page, watch, '/loans/customers');
    for (const [i, id] of views.entries())
      await visit(page, watch, i % 2 ? `/loans/customers?view=${id}` : `/loans/customers/update-custom-view/${id}`);
    for (const loanId of applications) {
      await visit(page, watch, `/loans/customer/profile/${target}/processing-loans/${loanId}`);
      await visit(page, watch, `/loans/loan-applications/edit/${target}/${loanId}`);
    }
    await visit(page, watch, `/loans/loan-applications/new/${target}`);

    // Query strings and paths the pages may echo: result messages, 404 paths, the error reports page.
    for (const [i, { value }] of XSS_PAYLOADS.entries()) {
      const echoes = [
        `/loans/collaterals/${collaterals[0]}?${new URLSearchParams({ done: value, error: value })}`,
        `/loans/${encodeURIComponent(value)}`,
        `/${encodeURIComponent(value)}?${new URLSearchParams({ q: value })}`,
      ];
      await visit(page, watch, echoes[i % echoes.length]);
      await api.post('/v1/error-reports', {
        data: {
          message: value,
          stack: value,
          context: { url: value, page_url: value, method: 'GET' },
          report_type: 'manual',
        },
        headers: json,
      });
    }
    await visit(page, watch, '/admin/platform/error-reports');
    await context.close();
  });

  test('the sign-in page echoes a hostile redirect, message and e-mail without running them', async ({ browser }) => {
    test.setTimeout(300_000);
    const { context, watch, page } = await armedPage(browser);
    const payloads: XssPayload[] = [...XSS_PAYLOADS, { name: 'long', value: LONG_PAYLOAD }];
    for (const [i, { value }] of payloads.entries()) {
      await visit(
        page,
        watch,
        i % 3 === 2
          ? `/user/reset-password?${new URLSearchParams({ token: value, lang: value })}`
          : `/user/login?${new URLSearchParams({ redirect: value, message: value, tenant: value, lang: value })}`,
      );
    }
    // A failed sign-in echoes the e-mail and the redirect into the form and shows its error text.
    for (const [i, { value }] of payloads.filter((_, j) => j % 4 === 1).entries()) {
      await page.setExtraHTTPHeaders({ 'x-forwarded-for': `203.0.113.${100 + i}` });
      await visit(page, watch, `/user/login?${new URLSearchParams({ redirect: value })}`);
      await page.evaluate((email) => {
        const input = document.querySelector<HTMLInputElement>('#email')!;
        input.type = 'text';
        input.value = email;
        document.querySelector<HTMLInputElement>('#password')!.value = 'not-the-password';
      }, value);
      await Promise.all([
        page.waitForLoadState('load'),
        page.getByRole('button', { name: 'Sign in', exact: true }).click(),
      ]);
      await page.waitForLoadState('load');
      await expectNothingRan(page, watch, `sign-in error for ${value.slice(0, 40)}`);
    }
    await context.close();
  });

  test('every page kind hydrates its islands and runs the shell script with no CSP violation', async ({ browser }) => {
    test.setTimeout(300_000);
    const { context, watch, page } = await armedPage(browser);

    const loginResponse = await page.goto('/user/login');
    const csp = loginResponse!.headers()['content-security-policy'];
    expect(csp).toMatch(/script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+/);
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(csp).not.toContain('nonce-');
    await expectNothingRan(page, watch, '/user/login');

    await signIn(page, 'admin@demo.test');
    const api = page.request;
    const loans = (await (await api.get('/v1/loans?status=ACTIVE&limit=1')).json()).items as {
      id: string;
      customerId: string;
    }[];
    const offers = (await (await api.get('/v1/offers?limit=1')).json()).items as { id: string; customerId: string }[];
    const loan = loans[0];
    const offer = offers[0];
    const customer = loan.customerId;
    await page.goto('/loans/collaterals');
    const collateralHref = await page
      .locator('a[href^="/loans/collaterals/"]')
      .evaluateAll((links) =>
        links.map((a) => a.getAttribute('href')!).find((h) => /\/loans\/collaterals\/[0-9a-f-]{36}$/.test(h)),
      );

    const pages = [
      '/',
      ...LISTS,
      '/loans/customers/add',
      '/loans/customers/add-custom-view',
      ...[
        'resume',
        'transaction-metrics',
        'files',
        'collaterals',
        'offers',
        'repayment-behavior',
        'class',
        'loans',
        'transactions',
        'bank-statements',
        'credit-analysis',
      ].map((s) => `/loans/customer/profile/${customer}/${s}`),
      `/loans/customer/profile/${customer}/loans/${loan.id}`,
      `/loans/customer/profile/${customer}/loans/${loan.id}/repay`,
      `/loans/customer/profile/${offer.customerId}/offers/${offer.id}`,
      ...(collateralHref ? [collateralHref] : []),
      `/loans/collaterals/new/${customer}`,
      `/admin/customer/profile/${customer}/resume`,
      '/admin/platform/error-reports',
      '/admin/user/profile',
      '/admin/user/downloads-list',
      `/analytics/customer/profile/${customer}/class`,
      '/analytics/user/profile',
      '/403',
      '/loans/403',
      '/loans/no-such-page',
      '/no-such-page',
    ];
    for (const url of pages) {
      await visit(page, watch, url);
      // The shell keeper (a bundled module script) marks the document once it has run.
      await expect(page.locator('html'), url).toHaveAttribute('data-shell', 'ready');
      // Islands loaded on page load have hydrated (Astro drops `ssr` once the component is mounted).
      await expect(page.locator('astro-island[client="load"][ssr]'), url).toHaveCount(0);
      await expectNothingRan(page, watch, url);
    }
    await context.close();
  });
});
