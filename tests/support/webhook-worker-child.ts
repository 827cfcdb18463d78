/**
 * A stand-in for an app server's job worker, run as a child process by
 * tests/integration/webhooks-kill.test.ts so the test can SIGKILL it mid-delivery: the real
 * webhook handlers and the real worker (short lease, so the restart does not wait a minute).
 */
import { openPostgres } from '#lib/db/index.ts';
import { startWorker } from '#lib/jobs/worker.ts';
import { registerWebhookJobs } from '#lib/webhooks/jobs.ts';

const url = process.env.WORKER_DATABASE_URL;
if (!url) throw new Error('WORKER_DATABASE_URL is not set');
const db = await openPostgres(url, { max: 4 });
registerWebhookJobs();
// Polls every second like an app server's worker; a 3 s lease instead of 60 s.
startWorker(db, { leaseMs: 3000, pollMs: 1000, concurrency: 4 });
process.stdout.write('ready\n');
