import { z } from 'zod';
import type { Db } from '../db/index.ts';
import type { ErrorReportsRow } from '../db/schema.generated.ts';

/**
 * Error reports: sent by islands (automatically for failed calls and uncaught errors,
 * or by the "Report error" button) and listed for administrators. Sizes are capped so a hostile or
 * looping client cannot fill the database.
 */
export const MAX_MESSAGE = 2000;
export const MAX_STACK = 20000;
const MAX_CONTEXT_STRING = 2000;

const contextString = z.string().max(MAX_CONTEXT_STRING);

export const errorReportContextSchema = z
  .object({
    url: contextString.optional(),
    method: z.string().max(16).optional(),
    page_url: contextString.optional(),
    user_agent: z.string().max(1000).optional(),
    screen: z
      .object({ width: z.number().int().min(0).max(100000), height: z.number().int().min(0).max(100000) })
      .optional(),
    timestamp: z.string().max(64).optional(),
    module: z.string().max(300).optional(),
  })
  .strict();

export const errorReportInputSchema = z.object({
  message: z.string().trim().min(1).max(MAX_MESSAGE),
  // Response bodies can be long; keep the start, which is where the useful part is.
  stack: z
    .string()
    .optional()
    .default('')
    .transform((s) => s.slice(0, MAX_STACK)),
  context: errorReportContextSchema.optional().default({}),
  report_type: z.enum(['auto', 'manual']),
});

export type ErrorReportInput = z.input<typeof errorReportInputSchema>;
export type ErrorReportContext = z.infer<typeof errorReportContextSchema>;

export type ErrorReport = {
  id: string;
  userId: string | null;
  userName: string | null;
  message: string;
  stack: string;
  context: ErrorReportContext;
  reportType: 'auto' | 'manual';
  isResolved: boolean;
  createdAt: Date;
};

export async function createErrorReport(
  db: Db,
  args: { tenantId: string; userId: string | null; report: ErrorReportInput },
): Promise<{ id: string }> {
  const report = errorReportInputSchema.parse(args.report);
  const [row] = await db.tenant(args.tenantId, (tx) =>
    tx.query<Pick<ErrorReportsRow, 'id'>>(
      `insert into error_reports (tenant_id, user_id, message, stack, context, report_type)
       values ($1, $2, $3, $4, $5, $6) returning id`,
      [args.tenantId, args.userId, report.message, report.stack, JSON.stringify(report.context), report.report_type],
    ),
  );
  return { id: row.id };
}

/** An `error_reports` row with its reporter's name (left join, so nullable). */
type ReportRow = Pick<ErrorReportsRow, 'id' | 'user_id' | 'message' | 'stack' | 'is_resolved' | 'created_at'> & {
  user_name: string | null;
  context: ErrorReportContext;
  report_type: 'auto' | 'manual';
};

/** The tenant's most recent reports first, for the administrators' list. */
export async function listErrorReports(
  db: Db,
  args: { tenantId: string; limit?: number; offset?: number; onlyOpen?: boolean },
): Promise<{ items: ErrorReport[]; total: number }> {
  const limit = Math.min(Math.max(args.limit ?? 50, 1), 200);
  const offset = Math.max(args.offset ?? 0, 0);
  return db.tenant(args.tenantId, async (tx) => {
    const where = args.onlyOpen ? 'where not r.is_resolved' : '';
    const rows = await tx.query<ReportRow>(
      `select r.id, r.user_id, u.display_name as user_name, r.message, r.stack, r.context, r.report_type,
              r.is_resolved, r.created_at
         from error_reports r left join users u on u.tenant_id = r.tenant_id and u.id = r.user_id
         ${where}
        order by r.created_at desc, r.id
        limit $1 offset $2`,
      [limit, offset],
    );
    const [{ total }] = await tx.query<{ total: number }>(
      `select count(*)::int as total from error_reports r ${where}`,
    );
    return {
      total,
      items: rows.map((r) => ({
        id: r.id,
        userId: r.user_id,
        userName: r.user_name,
        message: r.message,
        stack: r.stack,
        context: r.context,
        reportType: r.report_type,
        isResolved: r.is_resolved,
        createdAt: r.created_at,
      })),
    };
  });
}

export async function countOpenErrorReports(db: Db, tenantId: string): Promise<number> {
  const [row] = await db.tenant(tenantId, (tx) =>
    tx.query<{ n: number }>('select count(*)::int as n from error_reports where not is_resolved'),
  );
  return row.n;
}
