import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { setWeekdaysCommand } from '#lib/days-off/commands.ts';

/**
 * PUT /v1/days-off/weekdays { weekdays: [6, 7], branchId? } → { weekdays, branchId }: replaces the
 * non-working ISO weekdays (1 = Monday … 7 = Sunday) of the whole lender, or a branch's own ones.
 */
export const PUT: APIRoute = (context) =>
  commandEndpoint(apiContext(context), setWeekdaysCommand, {
    answer: (out) => ({ status: 200, body: out }),
  });
