import { describe, expect, it } from 'vitest';
import { normaliseSteps, parseSteps, stepsSchema } from './workflow-steps.ts';
import { checkBuckets } from './admin.ts';
import { DEMO_COLLECTION_WORKFLOWS } from '../seed/demo-collection-workflows.ts';
import { AppError } from '../errors/app-error.ts';

const bucket = (name: string, minDays: number, maxDays: number | null) => ({ name, minDays, maxDays });

function refusal(fn: () => void): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('collection workflow steps', () => {
  it('accepts the demo workflows and gives every step a stable id', () => {
    for (const wf of DEMO_COLLECTION_WORKFLOWS) {
      const steps = normaliseSteps(stepsSchema.parse(wf.steps));
      expect(steps.every((s) => s.id.length > 0)).toBe(true);
      expect(parseSteps(steps)).toEqual(steps);
    }
  });

  it('keeps given ids, gives the others new ids, and renames a repeated id', () => {
    const steps = normaliseSteps(
      stepsSchema.parse([
        { id: 's1', offsetDays: 0, action: 'create_task', params: { title: 'A' } },
        { offsetDays: 1, action: 'create_task', params: { title: 'B' } },
        { id: 's1', offsetDays: 2, action: 'escalate', params: {} },
      ]),
    );
    const ids = steps.map((s) => s.id);
    expect(ids[0]).toBe('s1');
    expect(ids[1]).toMatch(/^s-[0-9a-f]{8}$/);
    expect(ids[2]).toMatch(/^s-[0-9a-f]{8}$/);
    expect(new Set(ids).size).toBe(3);
  });

  it('refuses a step without what its action needs', () => {
    expect(stepsSchema.safeParse([{ offsetDays: 0, action: 'send_template', params: {} }]).success).toBe(false);
    expect(stepsSchema.safeParse([{ offsetDays: 0, action: 'assign', params: {} }]).success).toBe(false);
    expect(stepsSchema.safeParse([{ offsetDays: -1, action: 'escalate', params: {} }]).success).toBe(false);
    expect(stepsSchema.safeParse([{ offsetDays: 0, action: 'explode', params: {} }]).success).toBe(false);
    expect(
      stepsSchema.safeParse([{ offsetDays: 0, action: 'escalate', params: {}, when: 'promise_broken' }]).success,
    ).toBe(true);
  });
});

describe('bucket rules', () => {
  it('accepts contiguous ranges from day 1 with an open-ended last bucket', () => {
    expect(() => checkBuckets([bucket('1–30', 1, 30), bucket('31–60', 31, 60), bucket('61+', 61, null)])).not.toThrow();
  });

  it('names the row and field of each broken rule', () => {
    expect(refusal(() => checkBuckets([bucket('A', 2, 30)])).field).toBe('buckets[0].minDays');
    expect(refusal(() => checkBuckets([bucket('A', 1, 30), bucket('B', 32, null)])).field).toBe('buckets[1].minDays');
    expect(refusal(() => checkBuckets([bucket('A', 1, 30), bucket('B', 25, null)])).key).toBe('buckets.contiguous');
    expect(refusal(() => checkBuckets([bucket('A', 1, null), bucket('B', 31, null)])).field).toBe('buckets[0].maxDays');
    expect(refusal(() => checkBuckets([bucket('A', 1, 30), bucket('a', 31, null)])).field).toBe('buckets[1].name');
    expect(refusal(() => checkBuckets([bucket('A', 1, 0)])).field).toBe('buckets[0].maxDays');
  });
});
