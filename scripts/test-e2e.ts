// `npm run test:e2e` after the build: the browser tests against a server on a throwaway data
// directory, then `ledger:check` on that directory once the server has stopped, so every loan the
// browser disbursed, repaid or reversed must leave debits equal to credits and balances equal to
// the ledger. Arguments go to `playwright test` (a file, `-g`, …). The directory is removed when
// everything passed and kept (its path printed) when something failed.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const dataDir = process.env.E2E_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lending-e2e-'));
const run = (command: string, args: string[], env: NodeJS.ProcessEnv) =>
  spawnSync(command, args, { stdio: 'inherit', env }).status ?? 1;

// The test SMTP server: the server under test sends its mail there (playwright.config.ts passes
// E2E_SMTP_URL on as SMTP_URL), each message lands in <data dir>/smtp-received/*.eml for the specs.
const { startSmtpSink } = await import('../tests/support/smtp-sink.ts');
const smtp = await startSmtpSink(path.join(dataDir, 'smtp-received'));
// Asynchronous, so this process keeps serving SMTP while Playwright runs.
const browser = await new Promise<number>((resolve) => {
  const child = spawn('playwright', ['test', ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, E2E_DATA_DIR: dataDir, E2E_SMTP_URL: smtp.url },
  });
  child.on('exit', (code) => resolve(code ?? 1));
  child.on('error', () => resolve(1));
});
await smtp.stop();
if (browser !== 0) {
  process.stderr.write(`browser tests failed; the server's data is kept in ${dataDir}\n`);
  process.exit(browser);
}

// Playwright signals the server to stop but does not wait for it: wait until it has closed the
// embedded database (its lock file is gone or names a dead process), for up to a minute.
const lockFile = path.join(dataDir, 'lending.lock');
const holderAlive = () => {
  try {
    process.kill(Number(fs.readFileSync(lockFile, 'utf8').trim()), 0);
    return true;
  } catch {
    return false;
  }
};
for (let waited = 0; holderAlive() && waited < 60_000; waited += 200)
  await new Promise((resolve) => setTimeout(resolve, 200));

process.stdout.write("\nledger:check on the browser tests' database\n");
const { DATABASE_URL: _ignored, ...withoutPostgres } = process.env;
const ledger = run(process.execPath, ['scripts/ledger-check.ts'], {
  ...withoutPostgres,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
});
if (ledger !== 0) {
  process.stderr.write(`ledger:check failed after the browser tests; the server's data is kept in ${dataDir}\n`);
  process.exit(ledger);
}
if (!process.env.E2E_DATA_DIR) fs.rmSync(dataDir, { recursive: true, force: true });
