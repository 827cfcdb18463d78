import { env } from '../config/env.ts';
import { jobHandlerNames } from '../jobs/worker.ts';
import { resolveDatasetDef } from '../analytics/datasets.ts';
import { LIST_EXPORT_JOB, registerListExportJob } from './export-job.ts';

/**
 * Registers the list-export job handler with the process-wide worker, once. It resolves lists
 * through the analytics datasets (every list, with its `all` tab, and loan transactions), so the
 * analytics queries export through the same job. Called before the first
 * export is queued; the job runtime (src/lib/jobs/runtime.ts) may also call it at boot so exports
 * queued before a restart resume without waiting for a new request.
 */
export function ensureListExportJob(): void {
  if (jobHandlerNames().includes(LIST_EXPORT_JOB)) return;
  registerListExportJob({ dataDir: env().dataDir, resolveList: resolveDatasetDef });
}
