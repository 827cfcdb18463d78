/**
 * Schedule CLI (the outside contract): `npm run -s schedule -- TERMS.json` prints the schedule JSON
 * on stdout and exits 0. Bad terms: the message naming the field on stderr, exit 2. Unreadable or
 * non-JSON file: exit 2 as well.
 */
import { readFileSync } from 'node:fs';
import { AppError } from '#lib/errors/app-error.ts';
import { previewSchedule } from '#lib/schedule/index.ts';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const file = process.argv[2];
if (!file) fail('usage: npm run -s schedule -- TERMS.json');

let text: string;
try {
  text = readFileSync(file, 'utf8');
} catch (error) {
  fail(`cannot read ${file}: ${(error as Error).message}`);
}

let input: unknown;
try {
  input = JSON.parse(text);
} catch (error) {
  fail(`${file} is not valid JSON: ${(error as Error).message}`);
}

try {
  process.stdout.write(`${JSON.stringify(previewSchedule(input), null, 2)}\n`);
} catch (error) {
  if (error instanceof AppError && error.code === 'BAD_REQUEST') fail(error.message);
  process.stderr.write(`schedule failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}
