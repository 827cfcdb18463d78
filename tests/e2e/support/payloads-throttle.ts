import fs from 'node:fs';
import path from 'node:path';

/**
 * Throttling probes for tests/e2e/security-throttle.spec.ts. The server runs with
 * TRUST_PROXY=1, so X-Forwarded-For stands for the client: every probe uses addresses of its own
 * (198.18.0.0/15, the benchmarking range) and accounts no other test signs in with.
 */
export const PARALLEL_ATTEMPTS = 50;
export const MAX_EVALUATIONS = 10;

/** A fresh tag per run, so a re-run against the same server starts from clean counters. */
export const RUN = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
const runOctet = Date.now() % 200;

/** Distinct client addresses: IPv4, IPv6 and IPv4-mapped spellings. */
export function rotatingIps(count: number, block: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    i % 3 === 0
      ? `198.18.${block}.${(runOctet + i) % 250}`
      : i % 3 === 1
        ? `2001:db8:${block.toString(16)}:${runOctet.toString(16)}::${(i + 1).toString(16)}`
        : `::ffff:198.19.${block}.${(runOctet + i) % 250}`,
  );
}

/** Wrong passwords of many shapes (short, long, unicode, look-alikes of the right one). */
export const WRONG_PASSWORDS = [
  'wrong',
  'Demo-Lender-2026',
  'demo-lender-2026!',
  'Demo-Lender-2026!!',
  ' Demo-Lender-2026!',
  'x'.repeat(256),
  'mot de passe ’é',
  '\u0000nul',
  '0',
  '🔑🔑🔑🔑',
];

/** Accounts that do not exist (an unknown e-mail still costs one evaluation) and odd spellings of one. */
export const accountFor = (label: string) => `throttle.${label}.${RUN}@nowhere.test`;
export const SPELLINGS = (email: string) => [
  email,
  email.toUpperCase(),
  ` ${email}`,
  `${email} `,
  email.replace('throttle', 'THROTTLE'),
];

/** Spoofed chains: entries left of the last hop were written by the client and must change nothing. */
export const spoofedChains = (real: string) => [
  `1.2.3.4, ${real}`,
  `${real}, ${real}`,
  `127.0.0.1, ::1, ${real}`,
  `unknown, ${real}`,
];

/** How many evaluations the server made for a throttle key (E2E=1 log, DATA_DIR/e2e-evaluations.log). */
export function evaluationsOf(key: string): number {
  const file = path.join(process.env.E2E_DATA_DIR ?? '', 'e2e-evaluations.log');
  if (!fs.existsSync(file)) return 0;
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line === key).length;
}
