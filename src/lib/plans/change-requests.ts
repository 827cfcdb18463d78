import { z } from 'zod';
import { auditActor, recordAudit } from '../audit/record-audit.ts';
import { ADMIN } from '../auth/permissions.ts';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import { defineCommand } from '../http/command.ts';
import { getT } from '../i18n/index.ts';
import type { PlanChangeRequestsRow, PricingFeaturesRow, UsersRow } from '../db/schema.generated.ts';

/**
 * "Request a change" of the plan page (admin > plan and contracts > plan): the administrator names
 * the features they want changed and why; the request is recorded for the provider (status
 * requested → acknowledged → done, moved by the provider's tooling) and listed on the page.
 */
export type PlanChangeStatus = 'requested' | 'acknowledged' | 'done';

export type PlanChangeRequest = {
  id: string;
  features: string[];
  message: string;
  status: PlanChangeStatus;
  requestedBy: string;
  requestedByName: string | null;
  createdAt: Date;
  updatedAt: Date;
};

type Row = Omit<PlanChangeRequestsRow, 'tenant_id' | 'status'> & {
  status: PlanChangeStatus;
  requested_by_name: UsersRow['display_name'] | null;
};

const toRequest = (r: Row): PlanChangeRequest => ({
  id: r.id,
  features: r.features,
  message: r.message,
  status: r.status,
  requestedBy: r.requested_by,
  requestedByName: r.requested_by_name,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const SELECT = `select p.id, p.features, p.message, p.status, p.requested_by, p.created_at, p.updated_at,
    u.display_name as requested_by_name
  from plan_change_requests p left join users u on u.tenant_id = p.tenant_id and u.id = p.requested_by`;

export async function listPlanChangeRequests(tx: Tx, limit = 50): Promise<PlanChangeRequest[]> {
  const rows = await tx.query<Row>(`${SELECT} order by p.created_at desc, p.id limit $1`, [limit]);
  return rows.map(toRequest);
}

export function planChangeRequestJson(r: PlanChangeRequest) {
  return {
    id: r.id,
    features: r.features,
    message: r.message,
    status: r.status,
    requested_by: r.requestedBy,
    requested_by_name: r.requestedByName,
    created_at: r.createdAt.toISOString(),
  };
}

/** The form sends `features` once per ticked box; the API an array. */
const featuresSchema = z.preprocess(
  (v) => (typeof v === 'string' ? [v] : v),
  z.array(z.string().min(1).max(100)).max(50),
);

export const requestPlanChangeCommand = defineCommand({
  action: 'plan_change.request',
  objectType: 'plan_change_request',
  permission: ADMIN,
  input: z.object({ features: featuresSchema, message: z.string().max(2000).default('') }),
  async run(tx, actor, input, { language }) {
    const t = await getT(language);
    const features = [...new Set(input.features)];
    if (features.length === 0)
      throw new AppError('BAD_REQUEST', t('platform:plan.errors.noFeature'), { field: 'features' });
    const known = new Set(
      (await tx.query<Pick<PricingFeaturesRow, 'name'>>('select name from pricing_features')).map((f) => f.name),
    );
    const unknown = features.find((f) => !known.has(f));
    if (unknown)
      throw new AppError('BAD_REQUEST', t('platform:plan.errors.unknownFeature', { feature: unknown }), {
        field: 'features',
      });
    const message = input.message.trim();
    const [created] = await tx.query<Pick<PlanChangeRequestsRow, 'id'>>(
      `insert into plan_change_requests (tenant_id, features, message, requested_by) values ($1, $2, $3, $4) returning id`,
      [actor.tenantId, features, message, actor.userId],
    );
    await recordAudit(tx, {
      ...auditActor(actor),
      action: 'plan_change.request',
      objectType: 'plan_change_request',
      objectId: created.id,
      before: null,
      after: { features, message, status: 'requested' },
      outcome: 'success',
    });
    const [row] = await tx.query<Row>(`${SELECT} where p.id = $1`, [created.id]);
    return toRequest(row);
  },
});
