import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { setRuleCommand } from '#lib/days-off/commands.ts';
import { FINERACT_RULE_NAME } from '#lib/days-off/calendar.ts';

/**
 * PUT /v1/days-off/rule { rule: SAME_DAY | NEXT_WORKING_DAY | NEXT_REPAYMENT_DAY | PREVIOUS_WORKING_DAY }
 * → { rule, fineractRule } (Fineract's RepaymentRescheduleType name).
 */
export const PUT: APIRoute = (context) =>
  commandEndpoint(apiContext(context), setRuleCommand, {
    answer: (out) => ({ status: 200, body: { rule: out.rule, fineractRule: FINERACT_RULE_NAME[out.rule] } }),
  });
