import type { Db } from '../db/index.ts';
import { normaliseSteps, stepsSchema } from '../collection/workflow-steps.ts';

/**
 * The demo tenants' collection workflows, one per default bucket (seeded before the demo history is
 * simulated, so the history's closes run them and the demo opens with workflow tasks and messages).
 * Templates are looked up by code when a step runs: a tenant without `payment_reminder_sms` gets the
 * step recorded as refused, never a failed close.
 */
export const DEMO_COLLECTION_WORKFLOWS: { bucket: string; name: string; steps: unknown[] }[] = [
  {
    bucket: '1–30',
    name: 'Early arrears (1–30)',
    steps: [
      { id: 'sms', offsetDays: 1, action: 'send_template', params: { templateCode: 'payment_reminder_sms' } },
      {
        id: 'call',
        offsetDays: 5,
        action: 'create_task',
        params: { title: 'Call the customer', priority: 'normal', dueInDays: 2, assignTo: 'officer' },
      },
    ],
  },
  {
    bucket: '31–60',
    name: 'Broken promises (31–60)',
    steps: [
      {
        id: 'escalate',
        offsetDays: 0,
        action: 'escalate',
        params: { title: 'Escalation: broken promise' },
        when: 'promise_broken',
      },
      {
        id: 'visit',
        offsetDays: 3,
        action: 'create_task',
        params: { title: 'Plan a visit or a call with the customer', dueInDays: 3, assignTo: 'officer' },
      },
    ],
  },
  {
    bucket: '61–90',
    name: 'Serious arrears (61–90)',
    steps: [{ id: 'escalate', offsetDays: 0, action: 'escalate', params: { title: 'Escalation: 61 days past due' } }],
  },
  {
    bucket: '90+',
    name: 'Recovery (90+)',
    steps: [
      {
        id: 'recovery',
        offsetDays: 0,
        action: 'create_task',
        params: { title: 'Prepare recovery file', priority: 'high', dueInDays: 5, assignTo: 'branch' },
      },
    ],
  },
];

export async function seedDemoCollectionWorkflows(db: Db, tenantIds: readonly string[]): Promise<number> {
  let created = 0;
  for (const tenantId of tenantIds) {
    await db.tenant(tenantId, async (tx) => {
      for (const wf of DEMO_COLLECTION_WORKFLOWS) {
        const rows = await tx.query(
          `insert into collection_workflows (tenant_id, name, bucket_id, enabled, steps, created_by)
           select $1, $2, b.id, true, $4::jsonb, 'system:seed' from collection_buckets b where b.tenant_id = $1 and b.name = $3
           on conflict do nothing returning id`,
          [tenantId, wf.name, wf.bucket, JSON.stringify(normaliseSteps(stepsSchema.parse(wf.steps)))],
        );
        created += rows.length;
      }
    });
  }
  return created;
}
