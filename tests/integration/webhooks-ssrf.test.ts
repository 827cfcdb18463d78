import dns from 'node:dns';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb } from '#lib/db/testing.ts';
import { setDb, type Db } from '#lib/db/index.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { env } from '#lib/config/env.ts';
import { isPrivateAddress } from '#lib/net/outbound.ts';
import { createWebhookCommand } from '#lib/webhooks/endpoints.ts';
import { dispatchEvents } from '#lib/webhooks/dispatch.ts';
import { awaitOutbox } from '../support/outbox.ts';
import { attemptDelivery } from '#lib/webhooks/send.ts';
import { listDeliveries } from '#lib/webhooks/log.ts';
import * as webhooksApi from '../../src/pages/v1/webhooks/index.ts';
import * as webhookApi from '../../src/pages/v1/webhooks/[id].ts';
import * as deliveriesApi from '../../src/pages/v1/webhooks/[id]/deliveries.ts';
import * as rotateApi from '../../src/pages/v1/webhooks/[id]/rotate-secret.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

process.env.SESSION_SECRET ??= 'a-test-session-secret-that-is-long-enough-0123456789';

// Security goal 17 for webhooks, WITHOUT ALLOW_PRIVATE_TARGETS: every spelling of a loopback,
// private, link-local, metadata or IPv6/IPv4-mapped address is refused by POST and PATCH
// /v1/webhooks with a 400 naming `url`; a name resolving to loopback too; and a delivery whose
// answer redirects to a private address does not follow it (nor any redirect).

const REFUSED = [
  'http://127.0.0.1/hook',
  'http://127.1/hook',
  'http://2130706433/hook',
  'http://0x7f000001/hook',
  'http://0177.0.0.1/hook',
  'http://0.0.0.0/hook',
  'http://10.0.0.1/hook',
  'http://10.255.255.254/hook',
  'http://172.16.0.1/hook',
  'http://172.31.255.1/hook',
  'http://192.168.1.10/hook',
  'http://169.254.169.254/latest/meta-data/',
  'http://100.64.0.1/hook',
  'http://[::1]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://[::ffff:7f00:1]/hook',
  'http://[::ffff:169.254.169.254]/hook',
  'http://[fe80::1]/hook',
  'http://[fd00::1]/hook',
  'http://[::]/hook',
  'http://[64:ff9b::a9fe:a9fe]/hook',
  'http://localhost/hook',
  'http://localhost./hook',
  'http://api.localhost/hook',
  'https://LOCALHOST:8443/hook',
];

describe('webhook targets: no SSRF (pglite)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let admin: Principal;
  let receiver: Receiver;
  let canary: Receiver;
  beforeAll(async () => {
    delete process.env.ALLOW_PRIVATE_TARGETS;
    ({ db, drop } = await createTestDb('pglite'));
    setDb(db);
    f = await createLendingFixture(db);
    admin = {
      tenantId: f.tenantId,
      userId: f.admin.userId,
      displayName: 'Admin',
      email: 'admin@example.com',
      isAdmin: true,
      authorities: [],
      dataPermissions: [],
      language: 'en-US',
      via: 'session',
      sessionId: null,
      passwordChangeRequired: false,
      sessionTimeout: 60,
      idleTimeout: 60,
    } satisfies Principal;
    receiver = await startReceiver();
    canary = await startReceiver('/internal');
  });
  afterAll(async () => {
    await receiver?.close();
    await canary?.close();
    await drop();
  });

  const call = async (
    handler: unknown,
    method: string,
    path: string,
    body?: unknown,
    params: Record<string, string> = {},
  ) => {
    const response = await (handler as (context: never) => Promise<Response>)({
      request: new Request(`http://localhost${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
      params,
      clientAddress: '127.0.0.1',
      locals: { principal: admin, requestId: 'r', language: 'en' },
    } as never);
    return { status: response.status, body: await response.json() };
  };

  test('the operator has not opted in', () => expect(env().allowPrivateTargets).toBe(false));

  test.each(REFUSED)('POST /v1/webhooks refuses %s with a 400 naming url', async (url) => {
    const answer = await call(webhooksApi.POST, 'POST', '/v1/webhooks', { url, events: ['loan.repayment.created'] });
    expect(answer.status).toBe(400);
    expect(answer.body.error.field).toBe('url');
  });

  test('a name that resolves to a private address (the machine’s own name, from /etc/hosts) is refused', async () => {
    const name = os.hostname();
    const addresses = await dns.promises.lookup(name, { all: true });
    expect(addresses.some((a) => isPrivateAddress(a.address))).toBe(true);
    const answer = await call(webhooksApi.POST, 'POST', '/v1/webhooks', {
      url: `https://${name}/hook`,
      events: ['loan.*'],
    });
    expect(answer).toMatchObject({ status: 400, body: { error: { field: 'url' } } });
  });

  test('PATCH refuses them too; a public address is accepted; unknown events name events', async () => {
    const created = await call(webhooksApi.POST, 'POST', '/v1/webhooks', {
      url: 'https://93.184.215.14/hook',
      events: ['loan.repayment.created'],
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    const id = created.body.id as string;
    for (const url of REFUSED) {
      const answer = await call(webhookApi.PATCH, 'PATCH', `/v1/webhooks/${id}`, { url }, { id });
      expect(answer.status, url).toBe(400);
      expect(answer.body.error.field).toBe('url');
    }
    const events = await call(webhookApi.PATCH, 'PATCH', `/v1/webhooks/${id}`, { events: ['loan.exploded'] }, { id });
    expect(events).toMatchObject({ status: 400, body: { error: { field: 'events' } } });
    const got = await call(webhookApi.GET, 'GET', `/v1/webhooks/${id}`, undefined, { id });
    expect(got.body.url).toBe('https://93.184.215.14/hook');
    expect(got.body).not.toHaveProperty('secret');
    const page = await call(deliveriesApi.GET, 'GET', `/v1/webhooks/${id}/deliveries?page=1`, undefined, { id });
    expect(page).toMatchObject({ status: 200, body: { items: [], page: 1, hasMore: false } });
    const typo = await call(deliveriesApi.GET, 'GET', `/v1/webhooks/${id}/deliveries?pg=1`, undefined, { id });
    expect(typo.status).toBe(400);
    const unknown = await call(webhookApi.GET, 'GET', `/v1/webhooks/not-an-id`, undefined, { id: 'not-an-id' });
    expect(unknown.status).toBe(404);
    const rotated = await call(rotateApi.POST, 'POST', `/v1/webhooks/${id}/rotate-secret`, undefined, { id });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
  });

  test('a delivery answered by a redirect to a private address does not follow it', async () => {
    // The receiver itself is local, so this one endpoint is saved and sent with allowPrivate; the
    // redirect targets (the metadata address, and a second local server that counts hits) are not followed.
    const { endpoint } = await db.tenant(f.tenantId, async (tx) => {
      const { setWebhookTargetOptionsForTests } = await import('#lib/webhooks/endpoints.ts');
      setWebhookTargetOptionsForTests({ allowPrivate: true });
      try {
        return await createWebhookCommand.run(tx, f.admin, { url: receiver.url, events: ['*'] }, { language: 'en' });
      } finally {
        setWebhookTargetOptionsForTests({});
      }
    });
    const { disbursedLoan } = f;
    await disbursedLoan({ principal: '1000.00' });
    await awaitOutbox(db); // a long transaction elsewhere on the server holds events back
    await dispatchEvents(db, f.tenantId);
    const [delivery] = (await db.tenant(f.tenantId, (tx) => listDeliveries(tx, endpoint.id))).items;
    receiver.script(
      { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/iam/' } },
      { status: 301, headers: { location: canary.url } },
      { status: 308, headers: { location: `http://[::ffff:127.0.0.1]:${canary.port}/internal` } },
    );
    for (let i = 0; i < 3; i++) {
      const outcome = await attemptDelivery(db, f.tenantId, delivery.id, { allowPrivate: true, random: () => 0.5 });
      expect(outcome?.status).toBe('retry');
    }
    expect(receiver.requests).toHaveLength(3);
    expect(canary.requests).toHaveLength(0);
    const log = (await db.tenant(f.tenantId, (tx) => listDeliveries(tx, endpoint.id))).items[0].log;
    expect(log.map((a) => a.responseStatus)).toEqual([302, 301, 308]);
    expect(log[0].error).toMatch(/169\.254\.169\.254.*not followed/);
    // And without the opt-in, the sender refuses the local receiver itself at connection time.
    const refused = await attemptDelivery(db, f.tenantId, delivery.id, { random: () => 0.5 });
    expect(refused?.error).toMatch(/not a public address/);
    expect(receiver.requests).toHaveLength(3);
  });
});
