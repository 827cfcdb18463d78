import type { Tx } from '../db/index.ts';
import { tableFromJdm, tableToJdm } from '../decisioning/editor-model.ts';
import { demoPolicyModel, demoPolicyTestCases } from '../decisioning/samples.ts';

/** The model of tests/e2e/admin-decision-models.spec.ts whose version 1 is in use (only with E2E=1). */
export const E2E_MODEL_IN_USE = 'E2E policy in use';

/**
 * A decision table whose only version has already decided something (used_at set), so the browser
 * test sees that saving it makes version 2. Written directly: it is a fixture, not a user's action.
 */
export async function seedE2eDecisionModel(tx: Tx, tenantId: string): Promise<void> {
  const [model] = await tx.query<{ id: string }>(
    `insert into decision_models (tenant_id, name, kind, description, created_by)
     values ($1, $2, 'table', 'A policy already used by a decision', 'seed') returning id`,
    [tenantId, E2E_MODEL_IN_USE],
  );
  await tx.query(
    `insert into decision_model_versions (tenant_id, model_id, version, content, test_cases, created_by, used_at)
     values ($1, $2, 1, $3::jsonb, $4::jsonb, 'seed', now())`,
    [
      tenantId,
      model.id,
      JSON.stringify(tableToJdm(tableFromJdm(demoPolicyModel())!)),
      JSON.stringify(demoPolicyTestCases()),
    ],
  );
}
