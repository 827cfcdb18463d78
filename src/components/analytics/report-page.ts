import type { AstroGlobal } from 'astro';
import { saveReportCommand, type Report } from '#lib/analytics/reports.ts';
import { formCommand } from '../pages/form-command.ts';
import { reportFormValues, reportInput, type ReportFormValues } from './analytics-forms.ts';

/**
 * The report form's post, shared by /analytics/reports/add and the report's edit view: "refresh"
 * re-renders the form (another dataset's columns), "save" runs the save command (400 naming the
 * field; a stale revision 409) keeping the input on refusal.
 */
export async function reportPost(
  Astro: AstroGlobal,
  id: string | null,
): Promise<
  | { kind: 'redirect'; location: string }
  | { kind: 'form'; values: ReportFormValues; error: { field?: string; message: string } | null }
> {
  const form = await Astro.request.formData();
  const values = reportFormValues(form);
  if (form.get('_action') === 'refresh') return { kind: 'form', values, error: null };
  const outcome = await formCommand(Astro, saveReportCommand, {
    form,
    objectId: id,
    input: () => ({ ...reportInput(values), id }),
    redirect: (report: Report) => `/analytics/reports/${report.id}?done=saved`,
  });
  if (outcome.kind === 'redirect') return outcome;
  return { kind: 'form', values, error: outcome.error };
}
