import type { Tx } from '../db/index.ts';
import { neutralise, type ExportCell } from '../exports/cells.ts';
import { openCsvWriter } from '../exports/csv-writer.ts';
import type { ExportFormat } from '../exports/write-list-export.ts';
import { openXlsxWriter } from '../exports/xlsx-writer.ts';
import { answerText } from './answers.ts';
import type { FormDocument } from './document.ts';
import {
  answerColumns,
  formVersions,
  submissionBatches,
  type FormSummary,
  type SubmissionFilter,
} from './submissions.ts';

/**
 * "Export" on a form's submissions: every submission matching the filter (not only the page on
 * screen) to one CSV or XLSX file, with the project's writers (src/lib/exports: formula-looking text
 * neutralised, CSV with a BOM, XLSX streamed). The fixed columns first, then one column per answer,
 * labelled by the form version (./submissions.ts answerColumns); choices by their label, booleans as
 * yes/no, money as the exact amount (a number cell).
 */
export type SubmissionsExportInput = {
  run: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;
  form: FormSummary;
  filter: SubmissionFilter;
  format: ExportFormat;
  filePath: string;
  language: string;
  timeZone: string;
  t: (key: string) => string;
};

const text = (value: string): ExportCell => (value ? { kind: 'text', text: neutralise(value) } : { kind: 'empty' });

export async function writeSubmissionsExport(input: SubmissionsExportInput): Promise<{ rows: number }> {
  const { t } = input;
  const words = { yes: t('submissions:yes'), no: t('submissions:no') };
  // The versions first (their labels make the header), then the rows batch by batch.
  const versions = await input.run((tx) =>
    tx.query<{ version: number }>('select distinct form_version as version from form_submissions where form_id = $1', [
      input.form.id,
    ]),
  );
  const documents: Map<number, FormDocument> = await input.run((tx) =>
    formVersions(
      tx,
      input.form.id,
      versions.map((v) => v.version),
    ),
  );
  const columns = answerColumns(documents, input.language);
  const writer =
    input.format === 'csv' ? openCsvWriter(input.filePath) : openXlsxWriter(input.filePath, input.form.name);
  let rows = 0;
  try {
    await writer.writeHeader([
      t('submissions:columns.reference'),
      t('submissions:columns.date'),
      t('submissions:columns.applicant'),
      t('submissions:columns.status'),
      t('submissions:columns.match'),
      t('submissions:columns.outcome'),
      t('submissions:columns.version'),
      ...columns.map((c) => c.label),
    ]);
    for await (const batch of submissionBatches(input.run, input.form.id, input.filter, input.timeZone)) {
      for (const s of batch) {
        const doc = documents.get(s.formVersion);
        const answers: ExportCell[] = columns.map((column) => {
          const value = s.answers[column.name];
          if (!doc || value === undefined || value === null) return { kind: 'empty' };
          if (
            doc.ui.fields[column.name]?.widget === 'money' &&
            typeof value === 'string' &&
            /^\d+(\.\d+)?$/.test(value)
          )
            return { kind: 'number', text: value, digits: value.includes('.') ? value.split('.')[1].length : 0 };
          if (typeof value === 'number' && Number.isFinite(value))
            return { kind: 'number', text: String(value), digits: String(value).split('.')[1]?.length ?? 0 };
          return text(answerText(doc, column.name, value, input.language, words));
        });
        await writer.writeRow([
          text(s.reference),
          { kind: 'text', text: s.createdAt },
          text(s.applicant),
          text(t(`submissions:status.${s.status}`)),
          text(s.customerMatch ? t(`submissions:match.${s.customerMatch}`) : ''),
          text(s.outcome ? t(`submissions:outcome.${s.outcome}`) : ''),
          { kind: 'number', text: String(s.formVersion), digits: 0 },
          ...answers,
        ]);
        rows += 1;
      }
    }
    await writer.close();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  return { rows };
}
