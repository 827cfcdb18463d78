import type { MonthEndWriter } from '../month-end.ts';
import { PORTFOLIO_WRITER } from './portfolio.ts';
import { REVENUE_WRITER } from './revenue.ts';

/** The performance boards' month-end rollups (revenue, then portfolio composition), one registry entry. */
export const PERFORMANCE_WRITER: MonthEndWriter = {
  name: 'performance_months',
  async write(tx, tenantId, monthEnd) {
    return (
      (await REVENUE_WRITER.write(tx, tenantId, monthEnd)) + (await PORTFOLIO_WRITER.write(tx, tenantId, monthEnd))
    );
  },
};
