import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { previewSchedule } from '#lib/schedule/index.ts';

/**
 * Fineract interest-recalculation fixtures (tests/fixtures/fineract-*-cases.json): each case's terms,
 * the installments Fineract asserts (only the columns the fixture gives are compared), optionally
 * transactions' splits and the pre-closure quote.
 */
export type RecalculationCase = {
  id: string;
  source: { path: string; test: string; lines: string };
  terms: Record<string, unknown>;
  expected: {
    installments: Record<string, string | number>[];
    transactions?: { date: string; amount: string; principal: string; interest: string }[];
    preClosure?: Partial<Record<'principal' | 'interest' | 'total', string>>;
  };
};

type ScheduleJson = ReturnType<typeof previewSchedule>;

export function loadRecalculationCases(file: string): RecalculationCase[] {
  const url = new URL(`../fixtures/${file}`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { cases: RecalculationCase[] }).cases;
}

export function checkRecalculationCase(json: ScheduleJson, c: RecalculationCase): void {
  const keys = Object.keys(c.expected.installments[0] ?? {});
  const got = json.installments.map((i) =>
    Object.fromEntries(keys.map((k) => [k, (i as unknown as Record<string, unknown>)[k]])),
  );
  expect(got).toEqual(c.expected.installments);
  for (const tx of c.expected.transactions ?? []) {
    const found = json.transactions?.find((t) => t.date === tx.date);
    expect(found, `transaction on ${tx.date}`).toBeDefined();
    expect({
      date: found!.date,
      amount: found!.amount,
      principal: found!.principal,
      interest: found!.interest,
    }).toEqual(tx);
  }
  for (const [key, value] of Object.entries(c.expected.preClosure ?? {})) {
    expect(json.preClosure?.[key as 'total'], key).toBe(value);
  }
}

/** The case's terms through the `npm run -s schedule` CLI process. */
export function scheduleThroughCli(terms: Record<string, unknown>): ScheduleJson {
  const dir = mkdtempSync(join(tmpdir(), 'recalc-cli-'));
  const file = join(dir, 'terms.json');
  writeFileSync(file, JSON.stringify(terms));
  return JSON.parse(execFileSync('npx', ['node', 'scripts/schedule.ts', file], { encoding: 'utf8' })) as ScheduleJson;
}
