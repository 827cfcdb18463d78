import type { Tx } from '../db/index.ts';
import type { JdmContent } from '../decisioning/zen.ts';

/** The name of the browser tests' decision model (only with E2E=1). */
export const E2E_DECISION_MODEL = 'E2E amount rules';

/**
 * A decision table on the application's request: above 50,000 is a "reject", anything else an
 * "approve" with a limit of 2,500. The decision-engine browser test binds it (the model editor and
 * its API belong to other pages; this gives the test a model without them).
 */
export function e2eAmountRules(): JdmContent {
  return {
    nodes: [
      { id: 'in', type: 'inputNode', name: 'Request', position: { x: 0, y: 0 } },
      {
        id: 'rules',
        type: 'decisionTableNode',
        name: 'Amount rules',
        position: { x: 240, y: 0 },
        content: {
          hitPolicy: 'first',
          inputs: [{ id: 'amount', name: 'Amount', field: 'application.amount' }],
          outputs: [
            { id: 'decision', name: 'Decision', field: 'decision' },
            { id: 'limit', name: 'Limit', field: 'limit' },
          ],
          rules: [
            { _id: 'big', _description: 'Asks more than 50,000', amount: '> 50000', decision: '"reject"', limit: '0' },
            { _id: 'ok', _description: 'Reasonable request', amount: '', decision: '"approve"', limit: '2500' },
          ],
        },
      },
      { id: 'out', type: 'outputNode', name: 'Decision', position: { x: 480, y: 0 } },
    ],
    edges: [
      { id: 'e1', sourceId: 'in', targetId: 'rules' },
      { id: 'e2', sourceId: 'rules', targetId: 'out' },
    ],
  } as JdmContent;
}

/** Seeds the model (one version, unused) in a tenant, as the owner. */
export async function seedE2eAmountRulesModel(tx: Tx, tenantId: string): Promise<void> {
  const [model] = await tx.query<{ id: string }>(
    `insert into decision_models (tenant_id, name, kind, description, created_by)
     values ($1, $2, 'table', 'Browser tests: decides on the requested amount', 'system:seed') returning id`,
    [tenantId, E2E_DECISION_MODEL],
  );
  await tx.query(
    `insert into decision_model_versions (tenant_id, model_id, version, content, created_by)
     values ($1, $2, 1, $3::jsonb, 'system:seed')`,
    [tenantId, model.id, JSON.stringify(e2eAmountRules())],
  );
}
