import { env } from '../config/env.ts';
import { jobHandlerNames } from '../jobs/worker.ts';
import { resolveListDef } from '../lists/registry.ts';
import { LIST_EXPORT_JOB, registerListExportJob } from './export-job.ts';

/**
 * Registers the list-export job handler with the process-wide worker, once. Called before the first
 * export is queued; the job runtime (src/lib/jobs/runtime.ts) may also call it at boot so exports
 * queued before a restart resume without waiting for a new request.
 */
export function ensureListExportJob(): void {
  if (jobHandlerNames().includes(LIST_EXPORT_JOB)) return;
  registerListExportJob({ dataDir: env().dataDir, resolveList: resolveListDef });
}
