import type { APIRoute } from 'astro';
import { apiContext, commandEndpoint, query } from '#lib/lending/api.ts';
import { createTaskCommand } from '#lib/tasks/commands.ts';
import { listTasks, readTaskQuery, taskTabCounts } from '#lib/tasks/tasks.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';

/**
 * GET /v1/tasks?tab=mine|team|overdue|done&priority=&status=&dueFrom=&dueTo=&q=&page= → { tab, counts,
 * items, page, businessDate }: one page (25) of a tab in the caller's scope, with every tab's count
 * (capped at 1,000).
 */
export const GET: APIRoute = (context) =>
  query(apiContext(context), async (tx, actor, url) => {
    const { tab, filters, page } = readTaskQuery(url.searchParams);
    const today = await businessDate(tx, actor.tenantId);
    const counts = await taskTabCounts(tx, actor, today, filters);
    const items = await listTasks(tx, actor, today, tab, filters, page);
    return { tab, businessDate: today, counts, items, page };
  });

/**
 * POST /v1/tasks { title, description?, assigneeUserId? | assigneeNodeId?, dueDate?, priority?,
 * customerId?, loanId?, applicationId?, offerId? } → 201 the task (assigned to the caller by default).
 */
export const POST: APIRoute = (context) =>
  commandEndpoint(apiContext(context), createTaskCommand, { answer: (task) => ({ status: 201, body: task }) });
