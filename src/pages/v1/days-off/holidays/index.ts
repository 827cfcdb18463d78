import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { holidayJson } from '#lib/days-off/calendar.ts';
import { addHolidayCommand } from '#lib/days-off/commands.ts';

/**
 * POST /v1/days-off/holidays { name, from, to, reschedulingType?, repaymentsRescheduledTo?, branchId? } → 201
 * the holiday (pending until applied to existing loans). `reschedulingType`: WORKING_DAY_RULE,
 * SPECIFIED_DATE (needs `repaymentsRescheduledTo`) or NEXT_REPAYMENT_DATE (must not have it); absent, a
 * date means SPECIFIED_DATE and none WORKING_DAY_RULE. 400 naming the field; 409 for the same holiday twice.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), addHolidayCommand, {
    answer: (holiday) => ({ status: 201, body: holidayJson(holiday) }),
  });
