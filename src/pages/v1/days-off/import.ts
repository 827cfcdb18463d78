import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint } from '#lib/lending/api.ts';
import { importHolidaysCommand, importJson } from '#lib/days-off/import.ts';

/**
 * POST /v1/days-off/import { format: "csv" | "ics", content: "<the file's text>", dryRun?, branchId? }
 * → { dryRun, toAdd, alreadyPresent, added, rows: [{ line, name, from, to, reschedulingType, repaymentsRescheduledTo, branchCode, status }] }.
 * All or nothing: one bad line → 400 naming it, with every bad line in `details.rows`.
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), importHolidaysCommand, {
    answer: (out) => ({ status: out.dryRun ? 200 : 201, body: importJson(out) }),
  });
