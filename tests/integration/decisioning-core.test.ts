import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import {
  addVersion,
  createModel,
  evaluateVersion,
  getModel,
  listModels,
  saveModel,
  updateVersion,
} from '#lib/decisioning/models.ts';
import { listDecisions, mapOutcome, recordDecision } from '#lib/decisioning/decisions.ts';
import { decisionInput } from '#lib/decisioning/inputs.ts';
import { demoPolicyModel, demoPolicyTestCases } from '#lib/decisioning/samples.ts';
import { assertJdm } from '#lib/decisioning/zen.ts';
import { getProduct } from '#lib/lending/products.ts';
import { offerFor, strategyTermsSchema } from '#lib/strategies/terms.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';
import { refused } from '../support/refused.ts';

describe.each(testDbKinds())('decisioning core on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-03-15' });
  });
  afterAll(async () => drop());
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);

  test('a model is saved only when its test cases pass; a used version is immutable and superseded', async () => {
    const { model, version } = await t((tx) =>
      createModel(tx, f.admin, {
        name: 'Policy',
        kind: 'table',
        content: demoPolicyModel(),
        testCases: demoPolicyTestCases(),
      }),
    );
    expect(version.version).toBe(1);
    expect(version.test_report?.passed).toBe(4);

    // A failing expectation blocks the save, with the report.
    const failing = [
      ...demoPolicyTestCases(),
      { name: 'wrong', input: { bankStatement: { averageInflow: 4000 } }, expected: { decision: 'reject' } },
    ];
    const error = await refused(
      t((tx) => updateVersion(tx, f.admin, version.id, { content: demoPolicyModel(), testCases: failing })),
    );
    expect(error.status).toBe(422);
    expect((error.details?.report as { failed: number }).failed).toBe(1);

    // Unused: edited in place.
    const edited = await t((tx) =>
      saveModel(tx, f.admin, model.id, { content: demoPolicyModel(), testCases: demoPolicyTestCases().slice(0, 2) }),
    );
    expect(edited.id).toBe(version.id);

    const input = await t((tx) => decisionInput(tx, f.customerId, '2026-03-15'));
    expect(input?.customer.id).toBe(f.customerId);
    const evaluation = await t((tx) => evaluateVersion(tx, version.id, input));
    expect(evaluation.trace.some((s) => s.rules.length > 0)).toBe(true);
    const mapped = mapOutcome(evaluation.result);
    const decision = await t((tx) =>
      recordDecision(tx, f.admin, {
        point: 'offer_generation',
        subjectType: 'customer',
        subjectId: f.customerId,
        customerId: f.customerId,
        evaluation,
        inputs: input,
        outcome: mapped.outcome,
        businessDate: '2026-03-15',
      }),
    );
    expect(decision.reasons.length).toBeGreaterThan(0);
    expect((await t((tx) => listDecisions(tx, { customerId: f.customerId })))[0].id).toBe(decision.id);

    // Used now: editing is a 409, the database refuses it too, and saving makes version 2.
    expect(
      (await refused(t((tx) => updateVersion(tx, f.admin, version.id, { content: demoPolicyModel() })))).status,
    ).toBe(409);
    await expect(
      t((tx) => tx.query(`update decision_model_versions set content = '{}'::jsonb where id = $1`, [version.id])),
    ).rejects.toThrow();
    await expect(
      t((tx) => tx.query(`update decisions set outcome = 'approve' where id = $1`, [decision.id])),
    ).rejects.toThrow();
    const v2 = await t((tx) => saveModel(tx, f.admin, model.id, { content: demoPolicyModel() }));
    expect(v2.version).toBe(2);
    const again = await t((tx) => addVersion(tx, f.admin, model.id, { content: demoPolicyModel() }));
    expect(again.version).toBe(3);
    expect((await t((tx) => getModel(tx, model.id))).versions.map((v) => v.version)).toEqual([3, 2, 1]);
    expect((await t((tx) => listModels(tx)))[0]).toMatchObject({ latest_version: 3, in_use: true });
  });

  test('unsafe or malformed documents are refused', () => {
    const withFunction = demoPolicyModel();
    withFunction.nodes.push({
      id: 'fn',
      type: 'functionNode' as never,
      name: 'Code',
      content: { source: 'export const handler = () => ({})' },
    });
    expect(() => assertJdm(withFunction)).toThrow(/not allowed/);
    expect(() => assertJdm({ nodes: [] })).toThrow();
    expect(() => assertJdm({ nodes: [{ id: 'a', type: 'inputNode', name: 'a' }], edges: [] })).toThrow(/output/);
    expect(() => assertJdm(null)).toThrow();
  });

  test('the outcome mapping reads verdicts, limits and rates; anything unknown is a refer', () => {
    expect(mapOutcome({ decision: 'approve', limit: 5000, rate: 9.5 })).toEqual({
      outcome: 'approve',
      limit: 5000,
      rate: 9.5,
    });
    expect(mapOutcome({ decision: 'whatever' }).outcome).toBe('refer');
    expect(mapOutcome({ decision: false }).outcome).toBe('reject');
    expect(mapOutcome({ decision: 'approve', limit: -3 }).limit).toBeNull();
  });

  test('a model limit or rate no offer can hold is no limit or no rate; offers stay convertible', async () => {
    expect(mapOutcome({ decision: 'approve', limit: 1e21 }).limit).toBeNull();
    expect(mapOutcome({ decision: 'approve', limit: 1e300 }).limit).toBeNull();
    expect(mapOutcome({ decision: 'approve', limit: 5000 }).limit).toBe(5000);
    expect(mapOutcome({ decision: 'approve', rate: 1000 }).rate).toBeNull();
    expect(mapOutcome({ decision: 'approve', rate: 12.12345678 }).rate).toBe(12.123457);

    const product = await t((tx) => getProduct(tx, f.productId));
    const terms = strategyTermsSchema.parse({
      modelId: randomUUID(),
      modelVersionId: randomUUID(),
      productId: f.productId,
      offerValidityDays: 30,
      classes: [{ riskClass: '*', maxPrincipal: '1000', numberOfRepayments: 12, annualInterestRate: null }],
    });
    const customer = { riskClass: null, segment: null, optedIn: true };
    const huge = offerFor(terms, product, customer, mapOutcome({ decision: 'approve', limit: 1e21, rate: 1e6 }));
    expect(huge).toMatchObject({ offer: true, principal: 100000n, annualInterestRate: product.annual_interest_rate });
    // Even unmapped, a limit of 10^21 does not reach decodeMinor as "1e+21".
    const raw = offerFor(terms, product, customer, { outcome: 'approve', limit: 1e21, rate: 12.5 });
    expect(raw).toMatchObject({ offer: true, principal: 100000n, annualInterestRate: '12.500000' });

    // A class rate is a rate offers can store.
    const bad = strategyTermsSchema.safeParse({
      ...terms,
      classes: [{ riskClass: '*', maxPrincipal: '1000', numberOfRepayments: 12, annualInterestRate: '1234567890123' }],
    });
    expect(bad.success).toBe(false);
  });
});
