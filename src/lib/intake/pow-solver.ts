/**
 * The proof-of-work solver of the public application page (ALTCHA v2 challenges, algorithm SHA-256),
 * written on Web Crypto only so the page's small script can bundle it (no altcha-lib in the browser).
 * It derives the key exactly as altcha-lib's `solveChallenge` with its SHA deriveKey does:
 * key = SHA-256^cost(salt ‖ nonce ‖ uint32be(counter)), and looks for the counter whose key starts
 * with `keyPrefix`. ./abuse.ts creates and verifies the challenges with altcha-lib on the server
 * (tests/integration/intake-abuse.test.ts checks that the two agree).
 */

export type PowChallenge = {
  parameters: {
    algorithm: string;
    nonce: string;
    salt: string;
    cost: number;
    keyLength: number;
    keyPrefix: string;
    [key: string]: unknown;
  };
  signature?: string;
};
export type PowSolution = { counter: number; derivedKey: string };

function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/** The counter that solves the challenge, or null when none below `max` does (or the algorithm is not SHA-256). */
export async function solvePow(challenge: PowChallenge, max = 1_000_000): Promise<PowSolution | null> {
  const { algorithm, nonce, salt, cost, keyLength, keyPrefix } = challenge.parameters;
  if (algorithm !== 'SHA-256') return null;
  const saltBytes = fromHex(salt);
  const nonceBytes = fromHex(nonce);
  const input = new Uint8Array(saltBytes.length + nonceBytes.length + 4);
  input.set(saltBytes, 0);
  input.set(nonceBytes, saltBytes.length);
  const view = new DataView(input.buffer);
  const prefix = keyPrefix.toLowerCase();
  for (let counter = 0; counter <= max; counter++) {
    view.setUint32(saltBytes.length + nonceBytes.length, counter, false);
    let key = new Uint8Array(await crypto.subtle.digest('SHA-256', input));
    for (let i = 1; i < Math.max(1, cost); i++) key = new Uint8Array(await crypto.subtle.digest('SHA-256', key));
    const hex = toHex(key.subarray(0, keyLength));
    if (hex.startsWith(prefix)) return { counter, derivedKey: hex };
  }
  return null;
}

/** What the page posts in its `altcha` field: the challenge and its solution, as base64 JSON. */
export function encodePayload(challenge: PowChallenge, solution: PowSolution): string {
  return btoa(JSON.stringify({ challenge, solution }));
}
