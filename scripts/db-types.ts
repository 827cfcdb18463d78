// `npm run db:types`: migrates a fresh in-memory database with migrations/ and writes one row type per
// table to src/lib/db/schema.generated.ts. Run it after adding a migration and commit the result;
// tests/unit/db-types.test.ts fails while the committed file is stale. `--check` only compares.
import fs from 'node:fs';
import path from 'node:path';
import { GENERATED_FILE, generateSchemaTypes } from '#lib/db/schema-types.ts';

const target = path.resolve(process.cwd(), GENERATED_FILE);
const text = await generateSchemaTypes();
const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
if (process.argv.includes('--check')) {
  if (current !== text) {
    process.stderr.write(`${GENERATED_FILE} is stale: run npm run db:types\n`);
    process.exitCode = 1;
  }
} else if (current === text) {
  process.stdout.write(`${GENERATED_FILE} is up to date\n`);
} else {
  fs.writeFileSync(target, text);
  process.stdout.write(`wrote ${GENERATED_FILE}\n`);
}
