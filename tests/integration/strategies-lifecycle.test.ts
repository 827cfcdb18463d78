import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestDb, testDbKinds } from '#lib/db/testing.ts';
import type { Db, Tx } from '#lib/db/index.ts';
import { listAudit } from '#lib/audit/record-audit.ts';
import type { Principal } from '#lib/auth/principal.ts';
import type { PermissionKey } from '#lib/auth/permissions.ts';
import { createModel, getVersion, saveModel, updateVersion } from '#lib/decisioning/models.ts';
import type { JdmContent } from '#lib/decisioning/zen.ts';
import { runCommand, type Command } from '#lib/http/command.ts';
import { actorFromPrincipal } from '#lib/lending/actor.ts';
import { updateProductVersioned } from '#lib/lending/product-admin.ts';
import { createProduct } from '#lib/lending/products.ts';
import {
  deactivateStrategyCommand,
  encodeDraftCommand,
  generateSimulationCommand,
  implementStrategyCommand,
  reactivateStrategyCommand,
  requestStrategyCommand,
  validateDraftClientCommand,
  validateDraftProviderCommand,
  validateLiveCommand,
} from '#lib/strategies/commands.ts';
import { runSimulation } from '#lib/strategies/simulation.ts';
import {
  simulationChanges,
  simulationChangesOutsideScope,
  strategyDetail,
  type StrategyDetail,
} from '#lib/strategies/strategies.ts';
import type { StrategyTerms } from '#lib/strategies/terms.ts';
import { createLendingFixture, type LendingFixture } from '../support/lending-fixtures.ts';
import { refused } from '../support/refused.ts';

/** A model that reads only the risk class: A → approve up to 5000, B → approve up to 2000, else reject. */
function classModel(): JdmContent {
  const rule = (id: string, cls: string, decision: string, limit: string) => ({
    _id: id,
    cls,
    decision,
    limit,
  });
  return {
    nodes: [
      { id: 'in', type: 'inputNode', name: 'Request' },
      {
        id: 'table',
        type: 'decisionTableNode',
        name: 'By class',
        content: {
          hitPolicy: 'first',
          inputs: [{ id: 'cls', name: 'Risk class', field: 'customer.riskClass' }],
          outputs: [
            { id: 'decision', name: 'Decision', field: 'decision' },
            { id: 'limit', name: 'Limit', field: 'limit' },
          ],
          rules: [
            rule('a', '"A"', '"approve"', '5000'),
            rule('b', '"B"', '"approve"', '2000'),
            rule('other', '', '"reject"', '0'),
          ],
        },
      },
      { id: 'out', type: 'outputNode', name: 'Response' },
    ],
    edges: [
      { id: 'e1', sourceId: 'in', targetId: 'table' },
      { id: 'e2', sourceId: 'table', targetId: 'out' },
    ],
  };
}

const CLIENT: PermissionKey[] = [
  'strategies.strategies.view',
  'strategies.strategies.request',
  'strategies.strategies.validate_draft_client',
  'strategies.strategies.implement',
  'strategies.strategies.deactivate_live',
  'strategies.strategies.reactivate_inactive',
];
const PROVIDER: PermissionKey[] = [
  'strategies.strategies.view',
  'strategies.strategies.encode_draft',
  'strategies.strategies.generate_simulation',
  'strategies.strategies.validate_draft_provider',
  'strategies.strategies.validate_live',
];

describe.each(testDbKinds())('lending strategies on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let f: LendingFixture;
  let modelId: string;
  let versionId: string;
  let otherVersionId: string;
  let inactiveProductId: string;
  const c: Record<string, string> = {};
  const t = <T>(fn: (tx: Tx) => Promise<T>) => db.tenant(f.tenantId, fn);

  const principal = (userId: string, authorities: readonly string[]): Principal => ({
    tenantId: f.tenantId,
    userId,
    displayName: userId,
    email: `${userId}@test`,
    isAdmin: false,
    authorities,
    dataPermissions: [],
    language: 'en-US',
    via: 'session',
    sessionId: null,
    passwordChangeRequired: false,
    sessionTimeout: 3600,
    idleTimeout: 3600,
  });
  let client: Principal;
  let provider: Principal;
  let both: Principal;
  let nobody: Principal;
  const run = <I, O>(who: Principal, command: Command<I, O>, input: unknown) =>
    runCommand(
      {
        db,
        actor: actorFromPrincipal(who, { ip: '198.51.100.7', requestId: 'r' }),
        permissionSubject: who,
        objectId: (input as { strategyId?: string }).strategyId ?? null,
      },
      command,
      () => input,
    );
  const terms = (classes: StrategyTerms['classes'], over: Partial<StrategyTerms> = {}) => ({
    modelId,
    modelVersionId: versionId,
    productId: f.productId,
    offerValidityDays: 30,
    segments: [],
    classes,
    ...over,
  });

  beforeAll(async () => {
    ({ db, drop } = await createTestDb(kind));
    f = await createLendingFixture(db, { businessDate: '2026-03-15' });
    client = principal('00000000-0000-4000-8000-0000000000c1', CLIENT);
    provider = principal('00000000-0000-4000-8000-0000000000b1', PROVIDER);
    both = principal('00000000-0000-4000-8000-0000000000d1', [...CLIENT, ...PROVIDER]);
    nobody = principal('00000000-0000-4000-8000-0000000000e1', ['strategies.strategies.view']);
    await t(async (tx) => {
      const created = await createModel(tx, f.admin, { name: 'By class', kind: 'table', content: classModel() });
      modelId = created.model.id;
      versionId = created.version.id;
      const other = await createModel(tx, f.admin, { name: 'Other', kind: 'table', content: classModel() });
      otherVersionId = other.version.id;
      const inactive = await createProduct(tx, f.tenantId, {
        code: 'OLD',
        name: 'Old product',
        currency: 'USD',
        digitsAfterDecimal: 2,
        minPrincipal: 1_000n,
        maxPrincipal: 100_000_000n,
        minRepayments: 1,
        maxRepayments: 36,
        annualInterestRate: '12',
        repaymentFrequency: 'MONTHS',
        interestCalculationPeriod: 'SAME_AS_REPAYMENT_PERIOD',
      });
      inactiveProductId = inactive.id;
      await updateProductVersioned(tx, f.admin, { productId: inactive.id, active: false });
      for (const [key, cls] of [
        ['a1', 'A'],
        ['a2', 'A'],
        ['b1', 'B'],
        ['c1', 'C'],
      ] as const) {
        const [row] = await tx.query<{ id: string }>(
          `insert into customers (tenant_id, first_name, last_name, risk_class) values ($1, $2, 'Test', $3) returning id`,
          [f.tenantId, key.toUpperCase(), cls],
        );
        c[key] = row.id;
      }
    });
    // History: class A has 2 disbursed loans, one 120 days past due (1/2); the portfolio has a third,
    // current loan of Ada (no class), so the portfolio rate is 1/3.
    const l1 = await f.disbursedLoan({ customerId: c.a1 });
    await f.disbursedLoan({ customerId: c.a2 });
    await f.disbursedLoan();
    await t((tx) =>
      tx.query(
        `insert into loan_delinquency (tenant_id, loan_id, as_of, past_due_days) values ($1, $2, '2026-03-15', 120)
         on conflict (tenant_id, loan_id) do update set past_due_days = 120`,
        [f.tenantId, l1.loanId],
      ),
    );
  });
  afterAll(async () => drop());

  const simulate = async (who: Principal, id: string) => {
    const detail = await run(who, generateSimulationCommand, { strategyId: id });
    const [job] = await db.system((tx) =>
      tx.query<{ name: string }>(`select name from jobs where payload->>'simulationId' = $1`, [detail.simulationId]),
    );
    expect(job.name).toBe('strategies.simulate');
    const results = await runSimulation(db, f.tenantId, detail.simulationId, { pageSize: 2 });
    return { results, simulationId: detail.simulationId };
  };
  const detail = (id: string, who: Principal = both): Promise<StrategyDetail> =>
    t((tx) => strategyDetail(tx, id, who.userId));

  test('the whole lifecycle, each step with its own permission, refusals and audit', async () => {
    // request
    expect((await refused(run(nobody, requestStrategyCommand, { name: 'Payday' }))).status).toBe(403);
    const requested = await run(client, requestStrategyCommand, { name: 'Payday', note: 'Small loans for A and B' });
    const id = requested.strategy.id;
    expect(requested.strategy.status).toBe('draft');
    expect(requested.open).toMatchObject({ version: 1, stage: 'requested' });
    expect((await refused(run(client, requestStrategyCommand, { name: 'payday' }))).status).toBe(409);
    expect((await refused(run(client, requestStrategyCommand, { strategyId: id }))).details?.reason).toBe(
      'wrong_state',
    );

    // encode: its own permission; references checked
    const v1 = terms([
      { riskClass: 'A', maxPrincipal: '3000', numberOfRepayments: 12, annualInterestRate: null, excluded: false },
      { riskClass: 'B', maxPrincipal: '10000', numberOfRepayments: 6, annualInterestRate: '15', excluded: false },
    ]);
    expect((await refused(run(client, encodeDraftCommand, { strategyId: id, terms: v1 }))).status).toBe(403);
    expect(
      (
        await refused(
          run(provider, encodeDraftCommand, { strategyId: id, terms: { ...v1, modelVersionId: otherVersionId } }),
        )
      ).status,
    ).toBe(422);
    expect(
      (
        await refused(
          run(provider, encodeDraftCommand, { strategyId: id, terms: { ...v1, productId: inactiveProductId } }),
        )
      ).field,
    ).toBe('productId');
    await expect(run(provider, encodeDraftCommand, { strategyId: id, terms: { ...v1, classes: [] } })).rejects.toThrow(
      /too_small/,
    );
    expect((await refused(run(provider, encodeDraftCommand, { strategyId: 'nope', terms: v1 }))).status).toBe(404);
    await run(provider, encodeDraftCommand, { strategyId: id, terms: v1 });
    expect((await detail(id)).open?.stage).toBe('encoded');
    // encoding marks the pinned version used: what is simulated and signed cannot change under the
    // strategy; editing the model makes a new version, which is not the pinned one
    expect((await t((tx) => getVersion(tx, versionId))).used_at).not.toBeNull();
    expect((await refused(t((tx) => updateVersion(tx, f.admin, versionId, { content: classModel() })))).status).toBe(
      409,
    );
    const edited = await t((tx) => saveModel(tx, f.admin, modelId, { content: classModel() }));
    expect(edited.id).not.toBe(versionId);
    expect((await detail(id)).open?.terms?.modelVersionId).toBe(versionId);

    // nothing to validate or implement before a simulation
    expect((await refused(run(provider, validateDraftProviderCommand, { strategyId: id }))).details?.reason).toBe(
      'not_simulated',
    );
    expect((await refused(run(client, implementStrategyCommand, { strategyId: id }))).details?.reason).toBe(
      'not_simulated',
    );

    // simulate: its own permission
    expect((await refused(run(client, generateSimulationCommand, { strategyId: id }))).status).toBe(403);
    const first = await simulate(provider, id);
    expect(first.results.customers).toBe(5);
    expect(first.results.draft).toEqual({
      offers: 3,
      amount: '8000.00',
      // A: 6000 × 1/2; B has no history: 2000 × the portfolio's 1/3, rounded down to the cent.
      expectedLoss: '3666.66',
      byClass: [
        { riskClass: 'A', offers: 2, amount: '6000.00', expectedLoss: '3000.00' },
        { riskClass: 'B', offers: 1, amount: '2000.00', expectedLoss: '666.66' },
      ],
    });
    expect(first.results.live).toMatchObject({ offers: 0, amount: '0.00' });
    expect(first.results.withDraft.offers).toBe(3);
    expect(first.results.changed).toBe(3);
    expect(first.results.portfolioRate).toEqual({ disbursed: 3, defaulted: 1 });
    const changes = await t((tx) => simulationChanges(tx, first.simulationId, both, { limit: 10 }));
    expect(changes.map((x) => [x.customer_id, x.live_outcome, x.draft_outcome, String(x.draft_amount)]).sort()).toEqual(
      [
        [c.a1, 'none', 'offer', '300000'],
        [c.a2, 'none', 'offer', '300000'],
        [c.b1, 'none', 'offer', '200000'],
      ].sort(),
    );
    expect((await detail(id)).open?.stage).toBe('simulated');

    // validations: own permissions, two different people
    expect((await refused(run(client, validateDraftProviderCommand, { strategyId: id }))).status).toBe(403);
    expect((await refused(run(provider, validateDraftClientCommand, { strategyId: id }))).status).toBe(403);
    await run(both, validateDraftProviderCommand, { strategyId: id });
    const same = await refused(run(both, validateDraftClientCommand, { strategyId: id }));
    expect(same.status).toBe(409);
    expect(same.details?.reason).toBe('same_person');
    expect(same.message).toMatch(/two different people/);
    expect((await refused(run(provider, validateDraftProviderCommand, { strategyId: id }))).details?.reason).toBe(
      'already_validated',
    );
    expect((await refused(run(client, implementStrategyCommand, { strategyId: id }))).details?.reason).toBe(
      'not_validated',
    );
    await run(client, validateDraftClientCommand, { strategyId: id });
    expect((await detail(id)).open?.stage).toBe('validated');

    // re-encoding resets the simulation and both signatures
    await run(provider, encodeDraftCommand, { strategyId: id, terms: v1 });
    const reset = (await detail(id)).open!;
    expect(reset).toMatchObject({
      stage: 'encoded',
      simulation_id: null,
      provider_validated_by: null,
      client_validated_by: null,
    });
    expect((await refused(run(client, implementStrategyCommand, { strategyId: id }))).details?.reason).toBe(
      'not_simulated',
    );
    await simulate(provider, id);
    await run(provider, validateDraftProviderCommand, { strategyId: id });
    await run(client, validateDraftClientCommand, { strategyId: id });
    expect((await refused(run(provider, implementStrategyCommand, { strategyId: id }))).status).toBe(403);
    const live = await run(client, implementStrategyCommand, { strategyId: id });
    expect(live.strategy).toMatchObject({ status: 'live', live_version: 1 });
    expect(live.open).toBeNull();
    expect(live.live?.stage).toBe('implemented');
    expect((await t((tx) => getVersion(tx, versionId))).used_at).not.toBeNull();

    // a new draft of a live strategy: one open version at a time
    const v2 = await run(client, requestStrategyCommand, { strategyId: id, note: 'Tighter' });
    expect(v2.open).toMatchObject({ version: 2, stage: 'requested' });
    expect((await refused(run(client, requestStrategyCommand, { strategyId: id }))).details?.reason).toBe(
      'open_version',
    );
    await run(provider, encodeDraftCommand, {
      strategyId: id,
      terms: terms([
        { riskClass: 'A', maxPrincipal: '1000', numberOfRepayments: 12, annualInterestRate: null, excluded: false },
        { riskClass: 'B', maxPrincipal: '1000', numberOfRepayments: 12, annualInterestRate: null, excluded: true },
      ]),
    });
    // the draft replaces its own live version on the "with draft" side
    const second = await simulate(provider, id);
    expect(second.results.live).toMatchObject({ offers: 3, amount: '8000.00', expectedLoss: '3666.66' });
    expect(second.results.withDraft).toMatchObject({ offers: 2, amount: '2000.00', expectedLoss: '1000.00' });
    expect(second.results.liveStrategies).toEqual([{ id, name: 'Payday', version: 1 }]);
    const changed = await t((tx) => simulationChanges(tx, second.simulationId, both, { limit: 10 }));
    const byCustomer = Object.fromEntries(changed.map((x) => [x.customer_id, x]));
    expect(Object.keys(byCustomer).sort()).toEqual([c.a1, c.a2, c.b1].sort());
    expect(byCustomer[c.b1]).toMatchObject({ live_outcome: 'offer', draft_outcome: 'none', reason: 'risk_class' });
    expect(String(byCustomer[c.a1].live_amount)).toBe('300000');
    expect(String(byCustomer[c.a1].draft_amount)).toBe('100000');
    // a strategist limited to one branch sees only that branch's customers, and how many are not listed
    await t(async (tx) => {
      const [branch] = await tx.query<{ id: string }>(
        `insert into hierarchy_nodes (tenant_id, level, code, name) values ($1, 'branch', 'SIM-A', 'Sim A') returning id`,
        [f.tenantId],
      );
      await tx.query(`update customers set branch_id = $2 where id = $1`, [c.a1, branch.id]);
    });
    const branchOnly = { ...both, dataPermissions: [{ field: 'branch', value: 'SIM-A' }] };
    const scoped = await t((tx) => simulationChanges(tx, second.simulationId, branchOnly, { limit: 10 }));
    expect(scoped.map((x) => x.customer_id)).toEqual([c.a1]);
    expect(await t((tx) => simulationChangesOutsideScope(tx, second.simulationId, branchOnly))).toBe(2);
    expect(await t((tx) => simulationChangesOutsideScope(tx, second.simulationId, both))).toBe(0);

    // post-go-live check, deactivation, reactivation
    expect((await refused(run(client, validateLiveCommand, { strategyId: id }))).status).toBe(403);
    await run(provider, validateLiveCommand, { strategyId: id });
    expect((await refused(run(provider, validateLiveCommand, { strategyId: id }))).details?.reason).toBe(
      'already_validated',
    );
    expect((await refused(run(provider, deactivateStrategyCommand, { strategyId: id }))).status).toBe(403);
    expect((await run(client, deactivateStrategyCommand, { strategyId: id })).strategy.status).toBe('inactive');
    expect((await refused(run(client, deactivateStrategyCommand, { strategyId: id }))).details?.reason).toBe(
      'wrong_state',
    );
    // an inactive strategy is not made live by implementing a draft: reactivate comes first
    const inactiveActions = Object.fromEntries((await detail(id, client)).actions.map((a) => [a.action, a]));
    expect(inactiveActions.implement.reason?.code).toBe('inactive');
    expect((await refused(run(client, implementStrategyCommand, { strategyId: id }))).details?.reason).toBe('inactive');
    const back = await run(client, reactivateStrategyCommand, { strategyId: id });
    expect(back.strategy).toMatchObject({ status: 'live', live_version: 1 });

    // the dry run the page shows
    const actions = Object.fromEntries((await detail(id, client)).actions.map((a) => [a.action, a]));
    expect(actions.deactivate.allowed).toBe(true);
    expect(actions.reactivate.allowed).toBe(false);
    expect(actions.implement.reason?.code).toBe('not_validated');

    // every step audited with before and after; refusals too
    const audit = await t((tx) => listAudit(tx, 'strategy', id));
    const done = audit.filter((a) => a.outcome === 'success').map((a) => a.action);
    for (const action of [
      'strategy.request',
      'strategy.request_version',
      'strategy.encode',
      'strategy.simulate',
      'strategy.validate_provider',
      'strategy.validate_client',
      'strategy.implement',
      'strategy.validate_live',
      'strategy.deactivate',
      'strategy.reactivate',
    ])
      expect(done, action).toContain(action);
    const implemented = audit.find((a) => a.action === 'strategy.implement' && a.outcome === 'success')!;
    expect(implemented.before).toMatchObject({ status: 'draft', liveVersion: null });
    expect(implemented.after).toMatchObject({ status: 'live', liveVersion: 1 });
    expect(audit.some((a) => a.outcome === 'failed' && a.action === 'strategy.validate_client')).toBe(true);
    expect(audit.some((a) => a.outcome === 'denied')).toBe(true);
  });

  test('a simulation whose terms changed since it was queued fails and marks nothing', async () => {
    const s = await run(client, requestStrategyCommand, { name: 'Stale' });
    const id = s.strategy.id;
    const t1 = terms([
      { riskClass: '*', maxPrincipal: '500', numberOfRepayments: 3, annualInterestRate: null, excluded: false },
    ]);
    await run(provider, encodeDraftCommand, { strategyId: id, terms: t1 });
    const queued = await run(provider, generateSimulationCommand, { strategyId: id });
    await run(provider, encodeDraftCommand, { strategyId: id, terms: t1 });
    await expect(runSimulation(db, f.tenantId, queued.simulationId)).rejects.toThrow(/changed/);
    expect((await detail(id)).open?.stage).toBe('encoded');
  });
});
