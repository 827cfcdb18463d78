import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { createCustomer } from '#lib/lending/customers.ts';
import { createOffer, getOffer, requestOfferLoan } from '#lib/lending/offers.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import { GET as getOfferRoute } from '../../src/pages/v1/offers/[id]/index.ts';
import { GET as listOffersRoute } from '../../src/pages/v1/offers/index.ts';
import { POST as notifyRoute } from '../../src/pages/v1/offers/[id]/notify.ts';
import { POST as rejectRoute } from '../../src/pages/v1/offers/[id]/reject.ts';
import { POST as requestRoute } from '../../src/pages/v1/offers/[id]/request.ts';
import { GET as letterRoute } from '../../src/pages/v1/offers/[id]/letter.ts';
import { GET as listApplicationsRoute } from '../../src/pages/v1/applications/index.ts';
import { GET as getApplicationRoute } from '../../src/pages/v1/applications/[id]/index.ts';
import { POST as approveRoute } from '../../src/pages/v1/applications/[id]/approve.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';

// The offer and application endpoints apply the caller's data permissions like the loan and
// customer ones (another branch's record answers 404, lists hold only the caller's rows); requesting
// a loan honours the tenant's offer.requestLoan; notifying validates against the TENANT's form.

const ALL = [
  'loans.offers.view',
  'loans.offers.notify',
  'loans.offers.reject',
  'loans.offers.request_loan',
  'loans.offers.print',
  'loans.offers.approve_loan',
  'loans.loan_applications.view',
];

const principalOf = (f: LendingFixture, over: Partial<Principal>): Principal => ({
  tenantId: f.tenantId,
  userId: f.maker.userId,
  displayName: 'Officer A',
  email: 'a@test',
  isAdmin: false,
  authorities: ALL,
  dataPermissions: [{ field: 'branch', value: 'GAP-A' }],
  language: 'en',
  via: 'session',
  sessionId: null,
  passwordChangeRequired: false,
  sessionTimeout: 3600,
  idleTimeout: 900,
  ...over,
});

type Call = { status: number; body: Record<string, unknown> };

async function call(
  handler: (context: never) => Response | Promise<Response>,
  url: string,
  init: { principal: Principal; params?: Record<string, string>; body?: unknown; key?: string; method?: string },
): Promise<Call> {
  const headers = new Headers({ 'content-type': 'application/json' });
  if (init.key) headers.set('Idempotency-Key', init.key);
  const request = new Request(`http://localhost${url}`, {
    method: init.method ?? 'POST',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const response = await handler({
    request,
    url: new URL(request.url),
    params: init.params ?? {},
    locals: { principal: init.principal, requestId: 'test', language: 'en' },
    clientAddress: '127.0.0.1',
  } as never);
  const text = response.headers.get('content-type')?.includes('json') ? await response.text() : '';
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

describe.each(testDbKinds())('offer and application endpoints: scope, tenant switches, tenant form on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  const ids = { customerA: '', customerB: '' };
  const offer = (customerId: string) =>
    db.tenant(f.tenantId, (tx) =>
      createOffer(tx, f.admin, {
        customerId,
        productId: f.productId,
        principal: '900.00',
        numberOfRepayments: 6,
        expiresOn: '2026-02-15',
      }),
    );
  const setConfig = (config: unknown) =>
    db.owner((tx) =>
      tx.query(`update tenants set config = $2::jsonb where id = $1`, [f.tenantId, JSON.stringify(config)]),
    );

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    setDb(db);
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    await db.tenant(f.tenantId, async (tx) => {
      const [a] = await tx.query<{ id: string }>(
        `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', 'GAP-A', 'A') returning id`,
        [f.tenantId],
      );
      const [b] = await tx.query<{ id: string }>(
        `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', 'GAP-B', 'B') returning id`,
        [f.tenantId],
      );
      ids.customerA = (await createCustomer(tx, f.admin, { firstName: 'Anna', lastName: 'Alpha', branchId: a.id })).id;
      ids.customerB = (await createCustomer(tx, f.admin, { firstName: 'Bruno', lastName: 'Beta', branchId: b.id })).id;
    });
  });
  afterAll(async () => drop());

  test("another branch's offer is a 404 on GET, notify, reject, request and letter; the list holds only the officer's", async () => {
    const officer = principalOf(f, {});
    const a = await offer(ids.customerA);
    const b = await offer(ids.customerB);
    expect(
      (await call(getOfferRoute, `/v1/offers/${a.id}`, { principal: officer, params: { id: a.id }, method: 'GET' }))
        .body,
    ).toMatchObject({ id: a.id, status: 'to_propose' });
    expect(
      (await call(getOfferRoute, `/v1/offers/${b.id}`, { principal: officer, params: { id: b.id }, method: 'GET' }))
        .status,
    ).toBe(404);
    expect(
      (
        await call(notifyRoute, `/v1/offers/${b.id}/notify`, {
          principal: officer,
          params: { id: b.id },
          body: { Channel: 'Message' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(rejectRoute, `/v1/offers/${b.id}/reject`, {
          principal: officer,
          params: { id: b.id },
          body: { reason: 'no' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(requestRoute, `/v1/offers/${b.id}/request`, {
          principal: officer,
          params: { id: b.id },
          body: {},
          key: 'req-b',
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(letterRoute, `/v1/offers/${b.id}/letter`, {
          principal: officer,
          params: { id: b.id },
          method: 'GET',
        })
      ).status,
    ).toBe(404);
    // Nothing happened to B's offer.
    expect(await db.tenant(f.tenantId, (tx) => getOffer(tx, b.id))).toMatchObject({
      status: 'to_propose',
      notified_at: null,
    });

    const listed = (await call(listOffersRoute, '/v1/offers?limit=500', { principal: officer, method: 'GET' })).body
      .items as { customerId: string; id: string }[];
    expect(listed.map((o) => o.id)).toContain(a.id);
    expect(listed.every((o) => o.customerId === ids.customerA)).toBe(true);
    const admin = principalOf(f, { isAdmin: true, dataPermissions: [], userId: f.admin.userId });
    const all = (await call(listOffersRoute, '/v1/offers?limit=500', { principal: admin, method: 'GET' })).body
      .items as { id: string }[];
    expect(all.map((o) => o.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(
      (await call(getOfferRoute, `/v1/offers/${b.id}`, { principal: admin, params: { id: b.id }, method: 'GET' }))
        .status,
    ).toBe(200);

    // Own branch: notify and reject work through the same endpoints.
    expect(
      (
        await call(notifyRoute, `/v1/offers/${a.id}/notify`, {
          principal: officer,
          params: { id: a.id },
          body: { Channel: 'Message' },
        })
      ).body,
    ).toMatchObject({ status: 'pending', channel: 'Message' });
    expect(
      (
        await call(rejectRoute, `/v1/offers/${a.id}/reject`, {
          principal: officer,
          params: { id: a.id },
          body: { reason: 'no' },
        })
      ).body,
    ).toMatchObject({ status: 'rejected' });
  });

  test("applications: the list and GET apply data permissions; approving another branch's application is a 404", async () => {
    const officer = principalOf(f, {});
    const [offerA, offerB] = [await offer(ids.customerA), await offer(ids.customerB)];
    const { application: appA } = await db.tenant(f.tenantId, (tx) => requestOfferLoan(tx, f.admin, offerA.id));
    const { application: appB } = await db.tenant(f.tenantId, (tx) => requestOfferLoan(tx, f.admin, offerB.id));
    const items = (
      await call(listApplicationsRoute, '/v1/applications?status=submitted&limit=500', {
        principal: officer,
        method: 'GET',
      })
    ).body.items as { id: string; customerId: string }[];
    expect(items.map((x) => x.id)).toContain(appA.id);
    expect(items.map((x) => x.id)).not.toContain(appB.id);
    expect(items.every((x) => x.customerId === ids.customerA)).toBe(true);
    expect(
      (
        await call(getApplicationRoute, `/v1/applications/${appA.id}`, {
          principal: officer,
          params: { id: appA.id },
          method: 'GET',
        })
      ).body,
    ).toMatchObject({ id: appA.id, status: 'submitted' });
    expect(
      (
        await call(getApplicationRoute, `/v1/applications/${appB.id}`, {
          principal: officer,
          params: { id: appB.id },
          method: 'GET',
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(getApplicationRoute, `/v1/applications/not-a-uuid`, {
          principal: officer,
          params: { id: 'not-a-uuid' },
          method: 'GET',
        })
      ).status,
    ).toBe(404);
    const checker = principalOf(f, { userId: f.checker.userId });
    expect(
      (
        await call(approveRoute, `/v1/applications/${appB.id}/approve`, {
          principal: checker,
          params: { id: appB.id },
          body: {},
          key: 'approve-b',
        })
      ).status,
    ).toBe(404);
  });

  test('request loan is refused while the tenant turns offer.requestLoan off, and works once it is on', async () => {
    const officer = principalOf(f, {});
    const o = await offer(ids.customerA);
    await setConfig({ offer: { requestLoan: false } });
    try {
      const refused = await call(requestRoute, `/v1/offers/${o.id}/request`, {
        principal: officer,
        params: { id: o.id },
        body: {},
        key: 'off-1',
      });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: { code: 'FORBIDDEN', field: 'offer.requestLoan' } });
      expect(await db.tenant(f.tenantId, (tx) => getOffer(tx, o.id))).toMatchObject({
        status: 'to_propose',
        application_id: null,
      });
    } finally {
      await setConfig({});
    }
    const accepted = await call(requestRoute, `/v1/offers/${o.id}/request`, {
      principal: officer,
      params: { id: o.id },
      body: {},
      key: 'on-1',
    });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({
      offer: { status: 'requested' },
      application: { status: 'submitted', principal: '900.00' },
    });
  });

  test("notify validates against the tenant's configured form: its required fields, options and visibility rules", async () => {
    const officer = principalOf(f, {});
    await setConfig({
      notify_customer_modal_config: {
        form: {
          fields: [
            {
              name: 'Channel',
              type: 'radio',
              label: 'Channel',
              required: true,
              options: [
                { value: 'PhoneCall', label: 'Phone' },
                { value: 'Message', label: 'Message' },
              ],
            },
            {
              name: 'Callback_Date',
              type: 'text',
              label: 'Call back on',
              required: true,
              visibleWhen: { field: 'Channel', in: ['PhoneCall'] },
            },
            { name: 'Note', type: 'textarea', label: 'Note', required: false },
          ],
        },
      },
    });
    try {
      const o = await offer(ids.customerA);
      const post = (body: unknown) =>
        call(notifyRoute, `/v1/offers/${o.id}/notify`, { principal: officer, params: { id: o.id }, body });
      // InPerson is valid for the default form but not for this tenant's.
      expect((await post({ Channel: 'InPerson', Client_Feedback: 'Interested' })).body).toMatchObject({
        error: { code: 'BAD_REQUEST', field: 'Channel' },
      });
      expect((await post({})).body).toMatchObject({ error: { field: 'Channel' } });
      // The tenant's own required field, shown for PhoneCall, is required; Client_Feedback (not in this form) is not.
      expect((await post({ Channel: 'PhoneCall' })).body).toMatchObject({ error: { field: 'Callback_Date' } });
      expect(await db.tenant(f.tenantId, (tx) => getOffer(tx, o.id))).toMatchObject({ status: 'to_propose' });
      const done = await post({
        Channel: 'PhoneCall',
        Callback_Date: ' 2026-01-20 ',
        Note: 'prefers mornings',
        Stray: 'dropped',
      });
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ status: 'pending', channel: 'PhoneCall', feedback: null, comment: null });
      expect(done.body.notifyForm).toEqual({
        Channel: 'PhoneCall',
        Callback_Date: '2026-01-20',
        Note: 'prefers mornings',
      });

      // Hidden by its rule, Callback_Date is neither required nor kept.
      const m = await offer(ids.customerA);
      const msg = await call(notifyRoute, `/v1/offers/${m.id}/notify`, {
        principal: officer,
        params: { id: m.id },
        body: { Channel: 'Message', Callback_Date: 'x' },
      });
      expect(msg.body).toMatchObject({ status: 'pending', channel: 'Message', notifyForm: { Channel: 'Message' } });
      const audit = await db.tenant(f.tenantId, (tx) => listAudit(tx, 'offer', o.id));
      expect(audit.find((e) => e.action === 'offer.notify' && e.outcome === 'success')).toMatchObject({
        outcome: 'success',
      });
    } finally {
      await setConfig({});
    }
  });

  test('with the default form, Client_Feedback is required and kept only for PhoneCall, InPerson or Other', async () => {
    const officer = principalOf(f, {});
    const o = await offer(ids.customerA);
    const post = (body: unknown) =>
      call(notifyRoute, `/v1/offers/${o.id}/notify`, { principal: officer, params: { id: o.id }, body });
    expect((await post({ Channel: 'Other' })).body).toMatchObject({ error: { field: 'Client_Feedback' } });
    expect((await post({ Channel: 'Other', Client_Feedback: 'Maybe' })).body).toMatchObject({
      error: { field: 'Client_Feedback' },
    });
    expect(
      (await post({ Channel: 'InPerson', Client_Feedback: 'Neutral', Comment: 'met at market' })).body,
    ).toMatchObject({
      status: 'pending',
      channel: 'InPerson',
      feedback: 'Neutral',
      comment: 'met at market',
    });
  });
});
