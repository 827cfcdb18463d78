import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { updateProductVersioned } from '#lib/lending/product-admin.ts';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import type { Principal } from '#lib/auth/principal.ts';
import { createCustomer } from '#lib/lending/customers.ts';
import { runDailyClose } from '#lib/close/daily-close.ts';
import { getVersion } from '#lib/decisioning/models.ts';
import { originate } from '#lib/strategies/origination.ts';
import { originationEndpoint } from '#lib/strategies/origination-api.ts';
import { commandEndpoint } from '#lib/lending/api.ts';
import { forceEligibilityCommand } from '#lib/strategies/eligibility.ts';
import { demoTerms, seedDemoPolicyModel, seedLiveStrategyRows } from '#lib/seed/demo-strategies.ts';
import { createLendingFixture, setBusinessDate, type LendingFixture } from '../support/lending-fixtures.ts';

const DAY = '2026-03-15';

describe.each(testDbKinds())('origination from live strategies on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let strong: string; // approved by the model
  let poor: string; // refused: no regular income
  let optedOut: string;
  let strategyId: string;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: DAY });
    ({ strong, poor, optedOut, strategyId } = await db.tenant(f.tenantId, async (tx) => {
      const make = async (last: string, inflow: number | null) => {
        const c = await createCustomer(tx, f.maker, { firstName: 'Test', lastName: last, phone: '+33100000001' });
        if (inflow !== null)
          for (const month of ['2025-09-01', '2025-10-01', '2025-11-01', '2025-12-01', '2026-01-01', '2026-02-01'])
            await tx.query(
              `insert into customer_transaction_metrics (tenant_id, customer_id, month, currency, inflow, outflow, net_flow, closing_balance, min_balance, transaction_count)
               values ($1, $2, $3, 'USD', $4, $5, $6, 100000, 1000, 20)`,
              [f.tenantId, c.id, month, inflow * 100, inflow * 50, inflow * 50],
            );
        return c.id;
      };
      const strong = await make('Strong', 4000);
      const poor = await make('Poor', 300);
      const optedOut = await make('Out', 4000);
      await tx.query(`update customers set opt_in_status = 'opted_out' where id = $1`, [optedOut]);
      const { model, version } = await seedDemoPolicyModel(tx, f.admin);
      const strategyId = await seedLiveStrategyRows(tx, f.tenantId, {
        name: 'Live policy',
        terms: demoTerms(model.id, version.id, f.productId, '10000'),
        signers: { strategist: 'strategist-1', provider: 'provider-1' },
        businessDate: DAY,
      });
      // A seeded live strategy pins an immutable model version, as implementing one does.
      expect((await getVersion(tx, version.id)).used_at).not.toBeNull();
      return { strong, poor, optedOut, strategyId };
    }));
  });
  afterAll(async () => drop());
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);
  const offersOf = (customerId: string) =>
    t((tx) =>
      tx.query<{
        id: string;
        strategy_id: string;
        strategy_version: number;
        decision_id: string;
        principal: bigint;
        expires_on: string;
      }>(
        `select id, strategy_id, strategy_version, decision_id, principal, expires_on from offers where customer_id = $1 and strategy_id is not null`,
        [customerId],
      ),
    );
  const principal = (permissions: string[], userId = 'user-1'): Principal =>
    ({
      tenantId: f.tenantId,
      userId,
      displayName: 'User',
      email: 'user@test',
      isAdmin: false,
      authorities: permissions,
      dataPermissions: [],
      language: 'en',
      via: 'session',
      sessionId: null,
    }) as unknown as Principal;

  test('offers only to eligible customers, linked to the strategy version and a decision with the why; idempotent per day', async () => {
    const first = await originate(db, f.admin, { businessDate: DAY });
    // The fixture's customer has no bank history: refused like `poor`; the opted-out customer is skipped.
    expect(first).toMatchObject({ created: 1, refused: 2, skipped: 1 });
    const [offer] = await offersOf(strong);
    expect(offer).toMatchObject({ strategy_id: strategyId, strategy_version: 1, expires_on: '2026-04-14' });
    expect(offer.principal).toBe(1000000n); // the model's limit (3 × 4000 = 12000) capped by the class maximum 10000
    expect(await offersOf(poor)).toHaveLength(0);
    expect(await offersOf(optedOut)).toHaveLength(0);
    const [decision] = await t((tx) =>
      tx.query<Record<string, unknown>>(`select * from decisions where id = $1`, [offer.decision_id]),
    );
    expect(decision).toMatchObject({
      point: 'offer_generation',
      subject_type: 'offer',
      subject_id: offer.id,
      strategy_id: strategyId,
      strategy_version: 1,
      model_version: 1,
      outcome: 'approve',
      limit_amount: 1000000n,
    });
    expect((decision.inputs as { customer: { id: string } }).customer.id).toBe(strong);
    expect((decision.output as { decision: string }).decision).toBe('approve');
    expect((decision.trace as unknown[]).length).toBeGreaterThan(0);
    expect((decision.reasons as { text: string }[])[0].text).toBe('Strong income, low debt');
    // The refusal is recorded about the customer, with its reason.
    const refusals = await t((tx) =>
      tx.query<{ outcome: string; reasons: { text: string }[] }>(
        `select outcome, reasons from decisions where subject_type = 'customer' and customer_id = $1`,
        [poor],
      ),
    );
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ outcome: 'reject' });
    expect(refusals[0].reasons[0].text).toBe('No regular income seen');

    // Twice the same day: nothing new.
    const again = await originate(db, f.admin, { businessDate: DAY });
    expect(again).toMatchObject({ created: 0, refused: 0, skipped: 4 });
    expect(await offersOf(strong)).toHaveLength(1);

    // Next day: the open offer is skipped; the repeated refusal is not recorded again.
    const next = await originate(db, f.admin, { businessDate: '2026-03-16' });
    expect(next).toMatchObject({ created: 0, refused: 2, skipped: 2 });
    const refusalsAfter = await t((tx) =>
      tx.query(`select 1 from decisions where subject_type = 'customer' and customer_id = $1`, [poor]),
    );
    expect(refusalsAfter).toHaveLength(1);
  });

  test('force eligibility: its permission (403 audited), the customer scope, and one refusal turned into an offer with the reason', async () => {
    const call = (p: Principal, customerId: string, body: unknown) =>
      commandEndpoint(
        {
          request: new Request('http://x/v1', { method: 'POST', body: JSON.stringify(body) }),
          principal: p,
          requestId: 'r',
          ip: null,
          db,
        },
        forceEligibilityCommand,
        {
          objectId: customerId,
          input: (b) => ({ ...(b as object), customerId }),
          answer: (row) => ({ status: 201, body: row }),
        },
      );
    const denied = await call(principal(['customer.profile.view']), poor, { reason: 'Known customer' });
    expect(denied.status).toBe(403);
    const audit = await t((tx) =>
      tx.query<{ outcome: string }>(
        `select outcome from audit_log where action = 'customer.eligibility.force' and object_id = $1`,
        [poor],
      ),
    );
    expect(audit.map((a) => a.outcome)).toEqual(['denied']);
    const forcer = principal(['customer.eligibility.force'], 'forcer-1');
    expect((await call(forcer, poor, { reason: 'x' })).status).toBe(400);
    expect((await call(forcer, '00000000-0000-4000-8000-000000000000', { reason: 'Valid reason' })).status).toBe(404);
    expect((await call(forcer, 'not-an-id', { reason: 'Valid reason' })).status).toBe(404);
    const ok = await call(forcer, poor, { reason: 'Long-standing customer, salary just moved', strategyId });
    expect(ok.status).toBe(201);

    const result = await originate(db, f.admin, { businessDate: '2026-03-17' });
    expect(result).toMatchObject({ created: 1, forced: 1 });
    const [offer] = await offersOf(poor);
    expect(offer.principal).toBe(1000000n); // the class maximum (the model gave no limit)
    const [decision] = await t((tx) =>
      tx.query<{ forced_reason: string; forced_by: string; outcome: string }>(
        `select forced_reason, forced_by, outcome from decisions where id = $1`,
        [offer.decision_id],
      ),
    );
    expect(decision).toEqual({
      forced_reason: 'Long-standing customer, salary just moved',
      forced_by: 'forcer-1',
      outcome: 'approve',
    });
    const [override] = await t((tx) =>
      tx.query<{ used_offer_id: string }>(
        `select used_offer_id from customer_eligibility_overrides where customer_id = $1`,
        [poor],
      ),
    );
    expect(override.used_offer_id).toBe(offer.id);
    // Used once: the next day forces nothing more.
    expect((await originate(db, f.admin, { businessDate: '2026-03-18' })).forced).toBe(0);
    const audits = await t((tx) =>
      tx.query<{ outcome: string }>(
        `select outcome from audit_log where action = 'customer.eligibility.force' and object_id = $1 order by occurred_at`,
        [poor],
      ),
    );
    expect(audits.filter((a) => a.outcome === 'success')).toHaveLength(1);
  });

  test('the on-demand API: its permission, 409 for a strategy that is not live, counts for a live one', async () => {
    const post = (p: Principal, id: string) =>
      originationEndpoint(
        { request: new Request('http://x/v1', { method: 'POST' }), principal: p, requestId: 'r', ip: null, db },
        id,
      );
    const implementer = principal(['strategies.strategies.implement']);
    expect((await post(principal(['strategies.strategies.view']), strategyId)).status).toBe(403);
    expect((await post(implementer, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const ok = await post(implementer, strategyId);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ created: 0, businessDate: DAY });
    await t((tx) => tx.query(`update strategies set status = 'inactive' where id = $1`, [strategyId]));
    expect((await post(implementer, strategyId)).status).toBe(409);
    // Inactive: no offers, not even for a new customer.
    const fresh = await t(async (tx) => {
      const c = await createCustomer(tx, f.maker, { firstName: 'New', lastName: 'Comer', phone: '+33100000002' });
      await tx.query(
        `insert into customer_transaction_metrics (tenant_id, customer_id, month, currency, inflow, outflow, net_flow, closing_balance, min_balance, transaction_count)
         values ($1, $2, '2026-02-01', 'USD', 500000, 100000, 400000, 100000, 1000, 20)`,
        [f.tenantId, c.id],
      );
      return c.id;
    });
    expect((await originate(db, f.admin, { businessDate: '2026-03-19' })).created).toBe(0);
    await t((tx) => tx.query(`update strategies set status = 'live' where id = $1`, [strategyId]));
    // An inactive product offers nothing either.
    await t((tx) => updateProductVersioned(tx, f.admin, { productId: f.productId, active: false }));
    expect((await originate(db, f.admin, { businessDate: '2026-03-19' })).created).toBe(0);
    expect(await offersOf(fresh)).toHaveLength(0);
    await t((tx) => updateProductVersioned(tx, f.admin, { productId: f.productId, active: true }));
  });

  test('the daily close originates once at the new business date, audited as the system', async () => {
    await setBusinessDate(db, f.tenantId, '2026-03-20');
    const close = await runDailyClose(db, f.tenantId, { businessDate: '2026-03-20' });
    expect(close.origination).toMatchObject({ created: 1 }); // the new customer of the previous test
    const again = await runDailyClose(db, f.tenantId, { businessDate: '2026-03-20' });
    expect(again.wasAlreadyClosed).toBe(true);
    expect(again.origination).toBeUndefined();
    const runs = await t((tx) =>
      tx.query<{ actor_id: string; actor_kind: string }>(
        `select actor_id, actor_kind from audit_log where action = 'strategy.originate' and after->>'businessDate' = '2026-03-21'`,
      ),
    );
    expect(runs).toEqual([{ actor_id: 'system:close', actor_kind: 'system' }]);
    const rows = await t((tx) =>
      tx.query(`select 1 from strategy_originations where business_date = '2026-03-21' and outcome = 'offer'`),
    );
    expect(rows).toHaveLength(1);
  });

  test('one broken strategy fails on its own: audited with the reason, the other strategies still originate', async () => {
    const day = '2026-03-22';
    const customer = async (last: string) =>
      t(async (tx) => {
        const c = await createCustomer(tx, f.maker, { firstName: 'Fresh', lastName: last, phone: '+33100000003' });
        await tx.query(
          `insert into customer_transaction_metrics (tenant_id, customer_id, month, currency, inflow, outflow, net_flow, closing_balance, min_balance, transaction_count)
           values ($1, $2, '2026-02-01', 'USD', 500000, 100000, 400000, 100000, 1000, 20)`,
          [f.tenantId, c.id],
        );
        return c.id;
      });
    const broken = await t(async (tx) => {
      const [live] = await tx.query<{ terms: { modelId: string; modelVersionId: string } }>(
        `select terms from strategy_versions where strategy_id = $1`,
        [strategyId],
      );
      // Its product does not exist (as if removed): every page of it fails. Named to run first.
      return seedLiveStrategyRows(tx, f.tenantId, {
        name: 'A broken policy',
        terms: demoTerms(live.terms.modelId, live.terms.modelVersionId, '00000000-0000-4000-8000-0000000000ff'),
        signers: { strategist: 'strategist-1', provider: 'provider-1' },
        businessDate: day,
      });
    });
    const first = await customer('One');
    const result = await originate(db, f.admin, { businessDate: day, customerIds: [first] });
    const entry = (id: string) => result.strategies.find((x) => x.strategyId === id);
    expect(entry(broken)).toMatchObject({ outcome: 'failed', counts: { created: 0 } });
    expect(entry(broken)?.error).toMatch(/product/i);
    expect(entry(strategyId)).toMatchObject({ outcome: 'success', counts: { created: 1 } });
    expect(result.created).toBe(1);
    expect(await offersOf(first)).toHaveLength(1);
    const audit = await t((tx) =>
      tx.query<{ outcome: string; reason: string | null }>(
        `select outcome, reason from audit_log where action = 'strategy.originate' and object_id = $1`,
        [broken],
      ),
    );
    expect(audit).toEqual([{ outcome: 'failed', reason: expect.stringMatching(/product/i) }]);

    // In a caller's transaction too: the failed strategy is undone to its savepoint, the others go on.
    const second = await customer('Two');
    const inTx = await t((tx) => originate(tx, f.admin, { businessDate: day, customerIds: [second] }));
    expect(inTx.strategies.map((x) => x.outcome).sort()).toEqual(['failed', 'success']);
    expect(await offersOf(second)).toHaveLength(1);
    await t((tx) => tx.query(`update strategies set status = 'inactive' where id = $1`, [broken]));
  });
});
