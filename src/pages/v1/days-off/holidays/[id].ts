import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { holidayJson } from '#lib/days-off/calendar.ts';
import { deleteHolidayCommand, updateHolidayCommand } from '#lib/days-off/commands.ts';

/**
 * PATCH /v1/days-off/holidays/{id} { name?, from?, to?, reschedulingType?, repaymentsRescheduledTo?, branchId?,
 * expectedRevision? } → the holiday (a type other than SPECIFIED_DATE given alone drops the old date). 409 when the revision is not the current one, or when the dates or
 * place of a holiday already applied to loans would change (only its name can).
 */
export const PATCH: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), updateHolidayCommand, {
    objectId: id,
    input: (body) => ({ ...(body && typeof body === 'object' ? body : {}), id }),
    answer: (holiday) => ({ status: 200, body: holidayJson(holiday) }),
  });
};

/**
 * DELETE /v1/days-off/holidays/{id} → { …holiday, deleted: true, wasApplied }. Loans keep their due dates
 * until POST /v1/days-off/apply runs again (which moves them to the dates the remaining calendar gives).
 */
export const DELETE: APIRoute = (context) => {
  const id = context.params.id ?? '';
  return commandEndpoint(apiContext(context), deleteHolidayCommand, {
    objectId: id,
    input: () => ({ id }),
    answer: (out) => ({
      status: 200,
      body: { ...holidayJson(out.holiday), deleted: true, wasApplied: out.wasApplied },
    }),
  });
};
