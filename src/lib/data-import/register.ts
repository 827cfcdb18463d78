import { registerDataImportJob } from './imports.ts';
import { registerBucketJobs } from './buckets.ts';

/** Registers the data upload's job handlers (runtime boot): import runs, the bucket watcher, bucket checks. */
export function registerDataImportJobs(): void {
  registerDataImportJob();
  registerBucketJobs();
}
