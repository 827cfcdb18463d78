import type { APIRequestContext, APIResponse } from '@playwright/test';
import { apiSession, expect, test } from './support/fixtures.ts';
import {
  caseFor,
  idSpellings,
  mutatingRoutes,
  SCOPE_FREE,
  type ForeignIds,
  type Probe,
} from './support/payloads-scope.ts';

// Branch scope on writes, against the built server: officer@demo.test may work
// only in branch PAR-01. For EVERY mutating /v1 route and form post (listed from the route manifest
// and the page files, see support/payloads-scope.ts), the officer sends another branch's ids in the
// path, the query and the body (placement fields too); each request is refused (404 for an object
// outside the scope, 403 for a placement field) and an administrator's reads of the targets are
// identical before and after. Inside PAR-01 the officer still does everything.

type Node = { id: string; level: string; code: string; parent_id: string | null; children?: Node[] };

function flatten(nodes: Node[]): Node[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children ?? [])]);
}

async function ok(response: APIResponse, status = 200): Promise<any> {
  expect(response.status(), `${response.url()}: ${await response.text()}`).toBe(status);
  return response.json();
}

let admin: APIRequestContext;
let officer: APIRequestContext;
let ids: ForeignIds;
const fill = { productId: '', principal: '', repayments: 1 };
const stamp = `${Date.now() % 1_000_000}`;
const foreignName = `Foreign${stamp}`;

/** Puts the product, amount and term the server accepts into a case's body. */
function substitute(value: unknown, asText: boolean): unknown {
  if (value === '{{productId}}') return fill.productId;
  if (value === '{{principal}}') return fill.principal;
  if (value === '{{repayments}}') return asText ? String(fill.repayments) : fill.repayments;
  if (Array.isArray(value)) return value.map((v) => substitute(v, asText));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, asText)]));
  return value;
}

async function send(probe: Probe): Promise<APIResponse> {
  const options: Parameters<APIRequestContext['fetch']>[1] = {
    method: probe.method,
    headers: { ...probe.headers },
    maxRedirects: 0,
  };
  if (probe.json !== undefined) options.data = substitute(probe.json, false);
  if (probe.form) options.form = substitute(probe.form, true) as Record<string, string>;
  if (probe.raw) {
    options.data = probe.raw.body;
    options.headers = { ...options.headers, 'content-type': probe.raw.contentType };
  }
  return officer.fetch(probe.path, options);
}

/** What an administrator reads of every object the probes aim at (and the officer's downloads). */
async function snapshot(): Promise<string> {
  const reads = [
    `/v1/customers/${ids.customerId}`,
    `/v1/loans/${ids.loanId}`,
    `/v1/offers/${ids.offerId}`,
    `/v1/applications/${ids.applicationId}`,
    `/v1/loans/${ids.applicationLoanId}`,
    `/v1/customers/${ids.customerId}/files`,
    `/v1/loans?customerId=${ids.customerId}&limit=50`,
    `/v1/offers?customerId=${ids.customerId}&limit=50`,
    `/v1/lists/collaterals?q=${foreignName}`,
    `/v1/customers?search=Probe%20Scope&limit=50`,
  ];
  const parts: string[] = [];
  for (const read of reads) {
    const response = await admin.get(read);
    parts.push(`${read} ${response.status()} ${await response.text()}`);
  }
  const downloads = await officer.get('/v1/downloads');
  parts.push(`downloads ${((await downloads.json()).items as unknown[]).length}`);
  return parts.join('\n');
}

test.describe.serial('[SECURITY]: branch scope on every write (one-branch officer)', () => {
  test.beforeAll(async ({ browser, baseURL }) => {
    test.setTimeout(240_000);
    admin = await apiSession(browser, 'admin@demo.test', baseURL!);
    officer = await apiSession(browser, 'officer@demo.test', baseURL!);
    const nodes = flatten((await ok(await admin.get('/v1/hierarchies'))).items);
    const byCode = (code: string) => nodes.find((n) => n.code === code)!;
    const lyon = byCode('LYO-01');
    const product = ((await ok(await admin.get('/v1/products'))).items as any[]).find(
      (p) => p.currency === 'EUR' && p.isActive !== false,
    )!;
    Object.assign(fill, { productId: product.id, principal: product.minPrincipal, repayments: product.minRepayments });

    const customer = await ok(
      await admin.post('/v1/customers', {
        data: { firstName: 'Scope', lastName: foreignName, branchId: lyon.id, officerId: byCode('OFF-LYO-01').id },
      }),
      201,
    );
    const application = await ok(
      await admin.post('/v1/applications', {
        data: {
          customerId: customer.id,
          productId: product.id,
          principal: product.minPrincipal,
          numberOfRepayments: product.minRepayments,
        },
      }),
      201,
    );
    const collateral = await admin.post(`/loans/collaterals/new/${customer.id}`, {
      form: { type: 'vehicle', description: 'probe target', value: '1000.00', valuationDate: '2020-01-01' },
      maxRedirects: 0,
    });
    expect(collateral.status()).toBe(303);
    const upload = await admin.post(`/loans/customer/profile/${customer.id}/files`, {
      multipart: { file: { name: 'target.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') } },
      maxRedirects: 0,
    });
    expect(upload.status()).toBe(303);
    const file = ((await ok(await admin.get(`/v1/customers/${customer.id}/files`))).items as { id: string }[])[0]!;

    // Another branch's active loan and open offer from the demo history: the administrator sees them, the officer does not.
    const loans = (await ok(await admin.get('/v1/loans?status=ACTIVE&limit=200'))).items as { id: string }[];
    let loanId = '';
    for (const loan of loans)
      if ((await officer.get(`/v1/loans/${loan.id}`)).status() === 404) {
        loanId = loan.id;
        break;
      }
    const offers = (await ok(await admin.get('/v1/offers?status=pending&limit=200'))).items as { id: string }[];
    let offerId = '';
    for (const offer of offers)
      if ((await officer.get(`/v1/offers/${offer.id}`)).status() === 404) {
        offerId = offer.id;
        break;
      }
    expect(loanId && offerId, "the demo has another branch's active loan and pending offer").toBeTruthy();
    const loan = await ok(await admin.get(`/v1/loans/${loanId}`));

    const own = await ok(
      await officer.post('/v1/customers', { data: { firstName: 'Scope', lastName: `Own${stamp}` } }),
      201,
    );
    const ownCollateral = await officer.post(`/loans/collaterals/new/${own.id}`, {
      form: { type: 'vehicle', description: 'own', value: '10.00', valuationDate: '2020-01-01' },
      maxRedirects: 0,
    });
    expect(ownCollateral.status()).toBe(303);
    ids = {
      customerId: customer.id,
      loanId,
      transactionId: loan.transactions[0].id,
      offerId,
      applicationId: application.id,
      applicationLoanId: application.loanId,
      collateralId: /\/loans\/collaterals\/([0-9a-f-]{36})/.exec(collateral.headers().location!)![1]!,
      fileId: file.id,
      branchId: lyon.id,
      officerId: byCode('OFF-LYO-01').id,
      regionId: lyon.parent_id!,
      ownCustomerId: own.id,
      ownCollateralId: /\/loans\/collaterals\/([0-9a-f-]{36})/.exec(ownCollateral.headers().location!)![1]!,
    };
  });

  test('every mutating route and form post has a probe (or a reason to be scope-free)', () => {
    const routes = mutatingRoutes();
    expect(routes.problems).toEqual([]);
    const missing = [...routes.api, ...routes.pages].filter((route) => !caseFor(route) && !SCOPE_FREE[route]);
    expect(missing, 'mutating routes without a case in tests/e2e/support/payloads-scope.ts').toEqual([]);
  });

  test("another branch's ids are refused on every mutating route, and nothing changes", async () => {
    test.setTimeout(600_000);
    const variants = idSpellings(ids.customerId)
      .concat(...Object.values(ids).map(idSpellings))
      .filter((v) => !Object.values(ids).includes(v));
    const before = await snapshot();
    const failures: string[] = [];
    const { api, pages } = mutatingRoutes();
    for (const route of [...api, ...pages]) {
      for (const probe of caseFor(route)?.(ids) ?? []) {
        const response = await send(probe);
        const body = await response.text();
        // A hostile spelling of an id may stop earlier, at the canonical-path or id check (400).
        const isVariant = variants.some((v) => probe.path.includes(v) || probe.path.includes(encodeURI(v)));
        const accepted = isVariant ? [...probe.expect, 400] : probe.expect;
        if (!accepted.includes(response.status()))
          failures.push(
            `${route}: ${probe.method} ${probe.path} ${JSON.stringify(probe.json ?? probe.form ?? '')} → ${response.status()} (expected ${accepted.join('/')}) ${body.slice(0, 200)}`,
          );
        // Never another branch's personal data in a reply (the opt-out used to answer the whole customer).
        if (body.includes(foreignName))
          failures.push(`${route}: ${probe.path} answered another branch's customer data`);
      }
    }
    expect(failures).toEqual([]);
    expect(await snapshot()).toBe(before);
  });

  test('a placement field outside the scope is a 403 naming the field, in English and in French', async ({
    browser,
    baseURL,
  }) => {
    const en = await officer.post('/v1/customers', {
      data: { firstName: 'Probe', lastName: 'Scope', branchId: ids.branchId },
    });
    expect(en.status()).toBe(403);
    const error = (await en.json()).error;
    expect(error).toMatchObject({ code: 'FORBIDDEN', field: 'branchId' });
    expect(error.message).toContain('branchId');
    expect(error.message).toContain('data permissions');
    const officerField = (
      await (
        await officer.post('/v1/customers', {
          data: { firstName: 'Probe', lastName: 'Scope', officerId: ids.officerId },
        })
      ).json()
    ).error;
    expect(officerField).toMatchObject({ code: 'FORBIDDEN', field: 'officerId' });
    const agent = await apiSession(browser, 'agent.fr@demo.test', baseURL!);
    const fr = await agent.post('/v1/applications', {
      data: {
        customerId: ids.customerId,
        productId: fill.productId,
        principal: fill.principal,
        numberOfRepayments: fill.repayments,
      },
    });
    expect(fr.status()).toBe(403);
    const frError = (await fr.json()).error;
    expect(frError.field).toBe('customerId');
    expect(frError.message).toContain('permissions de données');
  });

  test("extra fields of the add-customer form are never applied: the customer lands in the officer's branch", async () => {
    const own = flatten((await ok(await officer.get('/v1/hierarchies'))).items).find((n) => n.code === 'PAR-01')!;
    const found = (await ok(await admin.get('/v1/customers?search=Extra&limit=200'))).items as {
      branchId: string;
      optInStatus: string;
    }[];
    expect(found.length).toBeGreaterThan(0);
    for (const c of found) {
      expect(c.branchId).toBe(own.id);
      expect(c.optInStatus).toBe('opted_in');
    }
  });

  test('inside the branch the officer still opts out, creates, applies and records collaterals', async () => {
    const optOut = await ok(
      await officer.post(`/v1/customers/${ids.ownCustomerId}/opt-out`, { data: { reason: 'asked by phone' } }),
    );
    expect(optOut.optInStatus).toBe('opted_out');
    await ok(await officer.post(`/v1/customers/${ids.ownCustomerId}/opt-in`, { data: { reason: 'asked again' } }));
    await ok(
      await officer.post('/v1/applications', {
        data: {
          customerId: ids.ownCustomerId,
          productId: fill.productId,
          principal: fill.principal,
          numberOfRepayments: fill.repayments,
        },
      }),
      201,
    );
    const edit = await officer.post(`/loans/collaterals/${ids.ownCollateralId}`, {
      form: { type: 'vehicle', description: 'own, edited', value: '12.00', valuationDate: '2020-01-01' },
      maxRedirects: 0,
    });
    expect(edit.status()).toBe(303);
    const profile = await officer.post(`/loans/customer/profile/${ids.ownCustomerId}/resume`, {
      form: { status: 'opted_out', reason: 'form' },
      maxRedirects: 0,
    });
    expect(profile.status()).toBe(303);
  });
});
