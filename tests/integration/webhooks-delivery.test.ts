import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import { repayLoan } from '#lib/lending/commands/repay-loan.ts';
import {
  createWebhookCommand,
  getWebhook,
  resendWebhookDeliveryCommand,
  rotateWebhookSecretCommand,
  setWebhookTargetOptionsForTests,
  testWebhookCommand,
  updateWebhookCommand,
} from '#lib/webhooks/endpoints.ts';
import { dispatchEvents } from '#lib/webhooks/dispatch.ts';
import { attemptDelivery } from '#lib/webhooks/send.ts';
import { listDeliveries } from '#lib/webhooks/log.ts';
import { MAX_ATTEMPTS } from '#lib/webhooks/schedule.ts';
import { webhookDeliveriesUsage, webhooksFlowLink } from '#lib/webhooks/flow.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { awaitOutbox } from '../support/outbox.ts';

process.env.SESSION_SECRET ??= 'a-test-session-secret-that-is-long-enough-0123456789';

// Security goals 15 and 16: a real receiver, a real repayment, deliveries verified with the
// reference `standardwebhooks` package; retries keep the webhook-id and follow the schedule (the
// schedule's clock is passed in, nothing sleeps for hours); 410 disables; redirects are not followed;
// a rotated secret signs alongside the new one for 24 hours.

const SEND = { allowPrivate: true, timeoutMs: 600, random: () => 0.5 };

describe.each(testDbKinds())('webhook delivery on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let receiver: Receiver;
  let canary: Receiver;
  let loanId: string;
  let webhookId: string;
  let secret: string;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-01-15' });
    receiver = await startReceiver();
    canary = await startReceiver('/metadata');
    setWebhookTargetOptionsForTests({ allowPrivate: true });
    ({ loanId } = await f.disbursedLoan({ principal: '1200.00', numberOfRepayments: 12 }));
    await setBusinessDate(db, f.tenantId, '2026-02-15');
  });
  afterAll(async () => {
    setWebhookTargetOptionsForTests({});
    await receiver?.close();
    await canary?.close();
    await drop();
  });
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);
  const lang = { language: 'en' as const };
  // A long transaction in another test file holds new events back (outbox.ts); wait it out.
  const dispatch = async () => {
    await awaitOutbox(db);
    return dispatchEvents(db, f.tenantId);
  };
  const repay = (amount: string) => t((tx) => repayLoan(tx, f.checker, { loanId, amount }));
  const verify = (key: string, r: { headers: Record<string, string>; body: string }) =>
    new Webhook(key).verify(r.body, r.headers) as { type: string; data: Record<string, unknown> };
  const pending = async () =>
    (await t((tx) => listDeliveries(tx, webhookId, 1, 100))).items.find((d) => d.eventType !== 'webhook.test')!;

  test('a repayment is delivered, signed per Standard Webhooks', async () => {
    const created = await t((tx) =>
      createWebhookCommand.run(
        tx,
        f.admin,
        { url: receiver.url, events: ['loan.repayment.created'], description: 'core banking' },
        lang,
      ),
    );
    webhookId = created.endpoint.id;
    secret = created.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await repay('20.00');
    // The change's own transaction queued the dispatcher (migration 1010's trigger).
    const jobs = await db.owner((tx) =>
      tx.query<{ name: string }>(`select name from jobs where tenant_id = $1 and name = 'webhooks.dispatch'`, [
        f.tenantId,
      ]),
    );
    expect(jobs.length).toBeGreaterThan(0);
    expect(await dispatch()).toEqual({ events: 1, deliveries: 1 });
    const delivery = await pending();
    const [send] = await db.owner((tx) =>
      tx.query<{ dedupe_key: string }>(`select dedupe_key from jobs where name = 'webhooks.send' and tenant_id = $1`, [
        f.tenantId,
      ]),
    );
    expect(send.dedupe_key).toBe(`webhooks.send:${f.tenantId}:${delivery.id}:1`);
    receiver.script(200);
    const outcome = await attemptDelivery(db, f.tenantId, delivery.id, SEND);
    expect(outcome?.status).toBe('delivered');
    const [got] = receiver.requests;
    const body = verify(secret, got);
    expect(body.type).toBe('loan.repayment.created');
    expect(body.data).toMatchObject({ object: 'loan', id: loanId, action: 'loan.repay' });
    expect(got.headers['webhook-id']).toBe(delivery.msgId);
    expect(delivery.msgId).toBe(`msg_${delivery.eventId}`);
    // Run again (a job run twice): a delivered delivery is not sent again.
    expect(await attemptDelivery(db, f.tenantId, delivery.id, SEND)).toBeNull();
    expect(receiver.requests).toHaveLength(1);
    // Dispatching again makes nothing new.
    expect(await dispatch()).toEqual({ events: 0, deliveries: 0 });
  });

  test('500, timeout, 429, a redirect to the metadata address, then 2xx: one webhook-id, every attempt verifies, the schedule holds', async () => {
    receiver.requests.length = 0;
    await repay('21.00');
    await dispatch();
    const { items } = await t((tx) => listDeliveries(tx, webhookId));
    const delivery = items[0];
    expect(delivery.status).toBe('pending');
    receiver.script(
      500,
      'hang',
      { status: 429, headers: { 'retry-after': '120' } },
      { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } },
      { status: 307, headers: { location: canary.url } },
      204,
    );
    let now = new Date('2026-03-01T00:00:00Z');
    const expected = [5_000, 300_000, 120_000, 7_200_000, 18_000_000];
    for (const delay of expected) {
      const outcome = await attemptDelivery(db, f.tenantId, delivery.id, { ...SEND, now });
      expect(outcome?.status).toBe('retry');
      expect(outcome!.nextAttemptAt!.getTime() - now.getTime()).toBe(delay);
      // The next attempt is a queued job due at that moment.
      const [job] = await db.owner((tx) =>
        tx.query<{ run_at: Date }>(`select run_at from jobs where dedupe_key = $1`, [
          `webhooks.send:${f.tenantId}:${delivery.id}:${expected.indexOf(delay) + 2}`,
        ]),
      );
      expect(job.run_at.toISOString()).toBe(outcome!.nextAttemptAt!.toISOString());
      now = outcome!.nextAttemptAt!;
    }
    expect((await attemptDelivery(db, f.tenantId, delivery.id, { ...SEND, now }))?.status).toBe('delivered');
    receiver.releaseHung();
    expect(receiver.requests).toHaveLength(6);
    for (const r of receiver.requests) {
      expect(r.headers['webhook-id']).toBe(delivery.msgId);
      expect(verify(secret, r).type).toBe('loan.repayment.created');
    }
    expect(canary.requests).toHaveLength(0); // the 307 to it was not followed
    const after = (await t((tx) => listDeliveries(tx, webhookId))).items[0];
    expect(after.status).toBe('delivered');
    expect(after.log.map((a) => a.responseStatus)).toEqual([500, null, 429, 302, 307, 204]);
    expect(after.log[1].error).toMatch(/no answer within/);
    expect(after.log[3].error).toContain('169.254.169.254');
    expect(after.log[3].requestHeaders['webhook-id']).toBe(delivery.msgId);
  });

  test('after the last attempt the delivery is failed; the attempts span more than 24 hours', async () => {
    await repay('22.00');
    await dispatch();
    const delivery = (await t((tx) => listDeliveries(tx, webhookId))).items[0];
    receiver.setDefault(503);
    const first = new Date('2026-03-02T00:00:00Z');
    let now = first;
    for (let i = 1; i < MAX_ATTEMPTS; i++) {
      const outcome = await attemptDelivery(db, f.tenantId, delivery.id, { ...SEND, random: () => 0, now });
      expect(outcome?.status).toBe('retry');
      now = outcome!.nextAttemptAt!;
    }
    expect(now.getTime() - first.getTime()).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect((await attemptDelivery(db, f.tenantId, delivery.id, { ...SEND, now }))?.status).toBe('failed');
    const failed = (await t((tx) => listDeliveries(tx, webhookId))).items[0];
    expect(failed).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, nextAttemptAt: null });
    // Resend: a new attempt of the same message (same webhook-id), recorded as manual.
    receiver.setDefault(200);
    receiver.requests.length = 0;
    await t((tx) => resendWebhookDeliveryCommand.run(tx, f.admin, { id: webhookId, deliveryId: delivery.id }, lang));
    expect((await attemptDelivery(db, f.tenantId, delivery.id, { ...SEND, manual: true }))?.status).toBe('delivered');
    expect(receiver.requests[0].headers['webhook-id']).toBe(delivery.msgId);
    const resent = (await t((tx) => listDeliveries(tx, webhookId))).items[0];
    expect(resent.status).toBe('delivered');
    expect(resent.log.at(-1)).toMatchObject({ isManual: true, responseStatus: 200, attempt: MAX_ATTEMPTS + 1 });
  });

  test('a test event has its own id and type webhook.test', async () => {
    receiver.requests.length = 0;
    const { deliveryId, msgId } = await t((tx) => testWebhookCommand.run(tx, f.admin, { id: webhookId }, lang));
    expect(await attemptDelivery(db, f.tenantId, deliveryId, { ...SEND, manual: true })).toMatchObject({
      status: 'delivered',
    });
    const [r] = receiver.requests;
    expect(r.headers['webhook-id']).toBe(msgId);
    expect(verify(secret, r).type).toBe('webhook.test');
  });

  test('rotation: both secrets verify during the overlap, then only the new one', async () => {
    receiver.requests.length = 0;
    const { secret: rotated } = await t((tx) => rotateWebhookSecretCommand.run(tx, f.admin, { id: webhookId }, lang));
    expect(rotated).not.toBe(secret);
    const { deliveryId } = await t((tx) => testWebhookCommand.run(tx, f.admin, { id: webhookId }, lang));
    await attemptDelivery(db, f.tenantId, deliveryId, { ...SEND, manual: true });
    const [during] = receiver.requests;
    expect(during.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verify(rotated, during).type).toBe('webhook.test');
    expect(verify(secret, during).type).toBe('webhook.test');
    // The overlap ends (24 h later): only the new secret signs.
    await db.owner((tx) =>
      tx.query(`update webhook_endpoints set previous_secret_until = now() - interval '1 second' where id = $1`, [
        webhookId,
      ]),
    );
    await t((tx) => resendWebhookDeliveryCommand.run(tx, f.admin, { id: webhookId, deliveryId }, lang));
    await attemptDelivery(db, f.tenantId, deliveryId, { ...SEND, manual: true });
    const after = receiver.requests[1];
    expect(after.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(verify(rotated, after).type).toBe('webhook.test');
    expect(() => verify(secret, after)).toThrow();
    secret = rotated;
  });

  test('410 Gone disables the endpoint with its reason and stops its deliveries', async () => {
    receiver.requests.length = 0;
    await repay('23.00');
    await repay('24.00');
    await dispatch();
    const [second, first] = (await t((tx) => listDeliveries(tx, webhookId))).items;
    receiver.script(410);
    expect((await attemptDelivery(db, f.tenantId, first.id, SEND))?.status).toBe('disabled');
    const endpoint = await t((tx) => getWebhook(tx, webhookId));
    expect(endpoint).toMatchObject({ isEnabled: false });
    expect(endpoint?.disabledReason).toMatch(/410 Gone/);
    const stopped = (await t((tx) => listDeliveries(tx, webhookId))).items;
    expect(stopped.find((d) => d.id === second.id)?.status).toBe('cancelled');
    expect(await attemptDelivery(db, f.tenantId, second.id, SEND)).toBeNull();
    // New events make no deliveries for a disabled endpoint.
    await repay('25.00');
    expect((await dispatch()).deliveries).toBe(0);
    expect(receiver.requests).toHaveLength(1);
    // Enabling it again clears the reason.
    const enabled = await t((tx) =>
      updateWebhookCommand.run(
        tx,
        f.admin,
        { id: webhookId, enabled: true, expectedRevision: endpoint!.revision },
        lang,
      ),
    );
    expect(enabled).toMatchObject({ isEnabled: true, disabledReason: null });
    await expect(
      t((tx) => updateWebhookCommand.run(tx, f.admin, { id: webhookId, enabled: false, expectedRevision: 1 }, lang)),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  test('data flow: the product → webhooks link and the deliveries per month', async () => {
    const link = await t((tx) => webhooksFlowLink.read(tx, new Date(Date.now() - 86_400_000)));
    // One delivery failed for good (the 410), the rest delivered or stopped: the link is red.
    expect(link.status).toBe('error');
    expect(link.volume).toBeGreaterThanOrEqual(6);
    const month = new Date().toISOString().slice(0, 7);
    const usage = await t((tx) => webhookDeliveriesUsage.read(tx, [month, '2020-01']));
    expect(usage[month]).toBe(link.volume);
    expect(usage['2020-01']).toBeUndefined();
  });

  test('unknown event types are refused naming events', async () => {
    await expect(
      t((tx) => createWebhookCommand.run(tx, f.admin, { url: receiver.url, events: ['loan.nothing.happened'] }, lang)),
    ).rejects.toMatchObject({ status: 400, field: 'events' });
    await expect(
      t((tx) => createWebhookCommand.run(tx, f.admin, { url: receiver.url, events: [] }, lang)),
    ).rejects.toMatchObject({ status: 400, field: 'events' });
    const ok = await t((tx) =>
      createWebhookCommand.run(tx, f.admin, { url: receiver.url, events: ['*', 'loan.*', 'loan.repayment.*'] }, lang),
    );
    expect(ok.endpoint.events).toEqual(['*', 'loan.*', 'loan.repayment.*']);
  });
});
