import type { Db } from '../db/index.ts';
import { logger } from '../observability/log.ts';
import { simulatePortfolio } from './simulate.ts';

/**
 * Gives the demo tenants a small simulated history on first start (called once by seedDemo), so
 * every screen has loans, repayments, delinquency and snapshots to show. Kept small because it runs
 * before the server listens: DEMO_HISTORY_CUSTOMERS (default 16) and DEMO_HISTORY_MONTHS (default 5)
 * size it; DEMO_HISTORY=0 skips it.
 */
export async function seedDemoHistory(db: Db, tenantIds: readonly string[]): Promise<void> {
  if (['0', 'false', 'no', 'off'].includes((process.env.DEMO_HISTORY ?? '').toLowerCase())) return;
  const customers = Number(process.env.DEMO_HISTORY_CUSTOMERS ?? 16);
  // Five months: long enough for a loan more than 90 days past due (the last default bucket).
  const months = Number(process.env.DEMO_HISTORY_MONTHS ?? 5);
  for (const tenantId of tenantIds) {
    // Seven months of bank transactions (six whole ones before the current month), so the customer
    // profile's credit analysis, which averages six whole months, has enough to judge on.
    const result = await simulatePortfolio(db, {
      tenantId,
      customers,
      months,
      seed: `demo-${tenantId}`,
      bankMonths: 7,
      // In every branch, loans in each default collection bucket (1–30, 31–60, 61–90, 90+ days past due).
      overdueSamples: [12, 45, 75, 105],
    });
    logger.info('demo history simulated', { tenant: tenantId, loans: result.loans, ms: result.ms.total });
  }
}
