import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/** A collection workflow's step as stored in `collection_workflows.steps` and accepted by the API. */
export const WORKFLOW_ACTIONS = ['create_task', 'send_template', 'escalate', 'assign'] as const;
export type WorkflowAction = (typeof WORKFLOW_ACTIONS)[number];

/** Any uuid spelling Postgres stores (zod's uuid() wants RFC versions; ids may be any). */
const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);

export const stepParamsSchema = z
  .object({
    title: z.string().trim().max(200).optional(),
    description: z.string().max(4000).optional(),
    priority: z.enum(['low', 'normal', 'high', 'urgent']).optional(),
    dueInDays: z.number().int().min(0).max(365).optional(),
    assignTo: z.union([z.enum(['collector', 'branch', 'officer']), uuid]).optional(),
    templateCode: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{1,62}$/)
      .optional(),
    userId: uuid.optional(),
  })
  .strict();

export const stepSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,40}$/)
      .optional(),
    offsetDays: z.number().int().min(0).max(3650),
    action: z.enum(WORKFLOW_ACTIONS),
    params: stepParamsSchema.default({}),
    when: z.enum(['promise_broken']).nullish(),
  })
  .superRefine((s, ctx) => {
    if (s.action === 'send_template' && !s.params.templateCode)
      ctx.addIssue({ code: 'custom', path: ['params', 'templateCode'], message: 'A template code is required.' });
    if (s.action === 'assign' && !s.params.userId)
      ctx.addIssue({ code: 'custom', path: ['params', 'userId'], message: 'A user is required.' });
    if (s.action === 'create_task' && !s.params.title)
      ctx.addIssue({ code: 'custom', path: ['params', 'title'], message: 'A title is required.' });
  });

export type WorkflowStep = {
  id: string;
  offsetDays: number;
  action: WorkflowAction;
  params: z.infer<typeof stepParamsSchema>;
  when?: 'promise_broken' | null;
};

export const stepsSchema = z.array(stepSchema).max(30);

/**
 * Steps as stored: each gets a stable id (kept when given, else a new random one) — the id is part of
 * the once-per-episode guard, so editing a step's params keeps its id and does not re-run it, and a new
 * step never takes the id of a deleted one (whose runs would make it skip every loan of the episode).
 */
export function normaliseSteps(input: z.infer<typeof stepsSchema>): WorkflowStep[] {
  const seen = new Set<string>();
  const fresh = () => `s-${randomUUID().slice(0, 8)}`;
  return input.map((s) => {
    let id = s.id ?? fresh();
    while (seen.has(id)) id = fresh();
    seen.add(id);
    return { id, offsetDays: s.offsetDays, action: s.action, params: s.params, when: s.when ?? null };
  });
}

/** Steps read back from the database (validated again: a bad row is skipped by the close, not run). */
export function parseSteps(value: unknown): WorkflowStep[] {
  return stepsSchema.parse(value).map((s) => ({
    id: s.id ?? '',
    offsetDays: s.offsetDays,
    action: s.action,
    params: s.params,
    when: s.when ?? null,
  }));
}
