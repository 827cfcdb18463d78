import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { env } from '../config/env.ts';
import { AppError } from '../errors/app-error.ts';

/**
 * Every connection the product opens to an address a user typed (webhook endpoints, event sinks,
 * export targets, import buckets) goes through this module (security goal 17, no SSRF):
 *  - `checkTargetUrl` when the address is saved: a URL of an allowed scheme whose host, if it is an IP
 *    literal in any spelling the URL parser accepts (decimal, hex, short, IPv6, IPv4-mapped), is public;
 *  - `resolvePublicHost` / `publicLookup` when connecting: every address the name resolves to must be
 *    public, and the connection goes to the address that was checked (no second lookup to rebind);
 *  - `sendHttp` for HTTP: never follows a redirect (a 3xx is an answer like any other).
 * Loopback, private, link-local, carrier-grade NAT, documentation, multicast and reserved ranges are
 * refused, and so are IPv6 forms that embed such an IPv4 address (mapped, NAT64, 6to4), unless the
 * operator sets ALLOW_PRIVATE_TARGETS=1 (local development and tests), or lists the private addresses
 * that may be reached (ALLOW_PRIVATE_TARGETS=127.0.0.1,::1: a local receiver, the rest still refused).
 */

export type TargetOptions = {
  /** Default: the operator's ALLOW_PRIVATE_TARGETS setting. */
  allowPrivate?: boolean;
};

function allowPrivate(options: TargetOptions | undefined): boolean {
  return options?.allowPrivate ?? env().allowPrivateTargets;
}

let allowListCache: { text: string; list: net.BlockList } | null = null;
/** The operator's list of private addresses that may be reached (ALLOW_PRIVATE_TARGETS=127.0.0.1,::1). */
function operatorAllowList(): net.BlockList | null {
  const items = env().privateTargetAllowList;
  if (items.length === 0) return null;
  const text = items.join(',');
  if (allowListCache?.text !== text) {
    const list = new net.BlockList();
    for (const item of items) {
      const [address, bits] = item.split('/');
      const type = net.isIPv6(address) ? 'ipv6' : 'ipv4';
      if (!net.isIP(address)) continue;
      if (bits === undefined) list.addAddress(address, type);
      else list.addSubnet(address, Number(bits), type);
    }
    allowListCache = { text, list };
  }
  return allowListCache.list;
}

/**
 * True when a connection to `ip` must be refused: a private address, unless the caller or the
 * operator allows private targets, or the operator's list names it (only when the caller did not
 * decide for itself, as tests of the refusals do).
 */
function isRefused(ip: string, options: TargetOptions | undefined): boolean {
  if (allowPrivate(options) || !isPrivateAddress(ip)) return false;
  if (options?.allowPrivate !== undefined) return true;
  const allowed = operatorAllowList();
  const bare = ip.replace(/^\[|\]$/g, '');
  return !(allowed && net.isIP(bare) && allowed.check(bare, net.isIPv6(bare) ? 'ipv6' : 'ipv4'));
}

function parseIpv4(text: string): number[] | null {
  if (!net.isIPv4(text)) return null;
  return text.split('.').map(Number);
}

/** 16 bytes of an IPv6 address (with an optional dotted IPv4 tail), or null. */
function parseIpv6(raw: string): number[] | null {
  const text = raw.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!net.isIPv6(text)) return null;
  let head = text;
  let tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseIpv4(dotted[1]);
    if (!v4) return null;
    tail = [(v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]];
    head = text.slice(0, -dotted[1].length).replace(/:$/, '') || ':';
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, null];
  const words = (s: string) =>
    s
      ? s
          .split(':')
          .filter((w) => w !== '')
          .map((w) => parseInt(w, 16))
      : [];
  const l = words(left);
  const r = right === null ? [] : words(right);
  const missing = 8 - tail.length - l.length - r.length;
  if (missing < 0 || (right === null && missing !== 0)) return null;
  const all = [...l, ...new Array<number>(missing).fill(0), ...r, ...tail];
  return all.flatMap((w) => [w >> 8, w & 0xff]);
}

function inV4(ip: number[], base: string, bits: number): boolean {
  const b = base.split('.').map(Number);
  const value = (a: number[]) => ((a[0] << 24) >>> 0) + (a[1] << 16) + (a[2] << 8) + a[3];
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (value(ip) & mask) >>> 0 === (value(b) & mask) >>> 0;
}

const PRIVATE_V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

function privateV4(ip: number[]): boolean {
  return PRIVATE_V4.some(([base, bits]) => inV4(ip, base, bits));
}

function privateV6(b: number[]): boolean {
  const word = (i: number) => (b[2 * i] << 8) | b[2 * i + 1];
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  // ::/96 (unspecified, loopback, IPv4-compatible) and ::ffff:0:0/96 (IPv4-mapped): judge the IPv4 inside.
  if (zeros(0, 10) && ((b[10] === 0 && b[11] === 0) || (b[10] === 0xff && b[11] === 0xff))) {
    const v4 = b.slice(12, 16);
    return b[10] === 0 ? true : privateV4(v4);
  }
  // The rest of ::/8 is reserved, never a public unicast address; it holds ::ffff:0:0:0/96 (SIIT's
  // IPv4-translated form, which a translator would send to the IPv4 inside).
  if (b[0] === 0) return true;
  // 64:ff9b::/96 (NAT64): the IPv4 inside.
  if (word(0) === 0x64 && word(1) === 0xff9b && zeros(4, 12)) return privateV4(b.slice(12, 16));
  if (word(0) === 0x64 && word(1) === 0xff9b) return true; // 64:ff9b:1::/48, local-use NAT64
  // 2002::/16 (6to4): the IPv4 in bytes 2–5.
  if (word(0) === 0x2002) return privateV4(b.slice(2, 6));
  if (word(0) === 0x100 && zeros(2, 8)) return true; // 100::/64 discard
  if (word(0) === 0x2001 && b[2] < 0x02) return true; // 2001::/23 protocol assignments (Teredo, ORCHID…)
  if (word(0) === 0x2001 && word(1) === 0xdb8) return true; // documentation
  if ((b[0] & 0xfe) === 0xfc) return true; // fc00::/7 unique local
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0x80) return true; // fe80::/10 link-local
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0xc0) return true; // fec0::/10 site-local
  if (b[0] === 0xff) return true; // multicast
  return false;
}

/** True when `ip` (an IPv4 or IPv6 literal, brackets allowed) is not a public unicast address. */
export function isPrivateAddress(ip: string): boolean {
  const v4 = parseIpv4(ip);
  if (v4) return privateV4(v4);
  const v6 = parseIpv6(ip);
  if (v6) return privateV6(v6);
  return true; // not an address at all: never treat it as public
}

/** Why a target is refused, in words for the person who typed it. */
export const PRIVATE_TARGET_MESSAGE =
  'must be a public address: loopback, private, link-local and metadata addresses are not allowed';

/**
 * Parses a target URL typed by a user: one of `schemes` (e.g. ['https:', 'http:']), a host, no
 * credentials for HTTP, and not an IP literal of a private range. Throws a 400 naming `field`.
 */
export function checkTargetUrl(
  raw: string,
  field: string,
  schemes: readonly string[] = ['https:', 'http:'],
  options?: TargetOptions,
): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new AppError('BAD_REQUEST', `${field} must be a full URL such as https://example.com/hook`, { field });
  }
  if (!schemes.includes(url.protocol))
    throw new AppError('BAD_REQUEST', `${field} must start with ${schemes.map((s) => `${s}//`).join(' or ')}`, {
      field,
    });
  if (!url.hostname) throw new AppError('BAD_REQUEST', `${field} must name a host`, { field });
  if ((url.protocol === 'https:' || url.protocol === 'http:') && (url.username || url.password))
    throw new AppError('BAD_REQUEST', `${field} must not carry a user name or password`, { field });
  // A trailing dot names the same host ("localhost." is localhost): judge the name without it.
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
  // localhost names are loopback whatever the resolver says.
  const address = net.isIP(host) ? host : host === 'localhost' || host.endsWith('.localhost') ? '127.0.0.1' : null;
  if (address && isRefused(address, options))
    throw new AppError('BAD_REQUEST', `${field} ${PRIVATE_TARGET_MESSAGE}`, { field });
  return url;
}

/** Thrown when a name resolves to a refused address (at connection time). */
export class PrivateTargetError extends Error {
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, which is not a public address`);
    this.name = 'PrivateTargetError';
  }
}

type LookupAddress = { address: string; family: number };

/**
 * Resolves `host` and returns its addresses, refusing the whole name when any of them is private
 * (a name with one public and one private address could be made to connect to the private one).
 */
export async function resolvePublicHost(host: string, options?: TargetOptions): Promise<LookupAddress[]> {
  // "name." is the fully qualified spelling of "name": resolve it without the dot, as the resolver
  // of the machine that connects may.
  const bare = host.replace(/^\[|\]$/g, '').replace(/\.+$/, '');
  const addresses: LookupAddress[] = net.isIP(bare)
    ? [{ address: bare, family: net.isIP(bare) }]
    : await dns.promises.lookup(bare, { all: true, verbatim: true });
  const bad = addresses.find((a) => isRefused(a.address, options));
  if (bad) throw new PrivateTargetError(bare, bad.address);
  return addresses;
}

/** A `lookup` for net/http/https/ssh2 sockets that only ever hands out checked public addresses. */
export function publicLookup(options?: TargetOptions): net.LookupFunction {
  return ((hostname: string, lookupOptions: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    resolvePublicHost(hostname, options).then(
      (addresses) => {
        if (lookupOptions?.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: unknown) => callback(error),
    );
  }) as unknown as net.LookupFunction;
}

export type HttpAnswer = {
  status: number;
  headers: Record<string, string>;
  /** The body as text, cut at `maxResponseBytes`. */
  body: string;
  durationMs: number;
};

export type HttpRequest = {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Whole request, connection included (default 15 s). */
  timeoutMs?: number;
  /** Kept of the answer's body (default 64 KiB); the rest is read and dropped. */
  maxResponseBytes?: number;
} & TargetOptions;

/** Thrown by `sendHttp` when the target does not answer in time. */
export class HttpTimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'HttpTimeoutError';
  }
}

/**
 * One HTTP request to a user-supplied URL through `publicLookup`. Redirects are returned, never
 * followed. Rejects on connection errors, refused addresses (`PrivateTargetError`) and timeouts.
 */
export async function sendHttp(target: string | URL, request: HttpRequest = {}): Promise<HttpAnswer> {
  const url = typeof target === 'string' ? new URL(target) : target;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`unsupported scheme ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && isRefused(host, request)) throw new PrivateTargetError(host, host);
  const timeoutMs = request.timeoutMs ?? 15_000;
  const max = request.maxResponseBytes ?? 64 * 1024;
  const started = performance.now();
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<HttpAnswer>((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: request.method ?? 'POST',
        headers: request.headers,
        lookup: publicLookup(request),
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < max) {
            chunks.push(chunk.subarray(0, max - kept));
            kept += Math.min(chunk.length, max - kept);
          }
        });
        res.on('end', () => {
          clearTimeout(timer);
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = String(v);
          resolve({
            status: res.statusCode ?? 0,
            headers,
            body: Buffer.concat(chunks).toString('utf8'),
            durationMs: Math.round(performance.now() - started),
          });
        });
        res.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new HttpTimeoutError(timeoutMs)), timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    if (request.body !== undefined) req.write(request.body);
    req.end();
  });
}

/**
 * `checkTargetUrl`, then the name resolved once so that a name pointing at a private address is
 * refused when it is saved, not only when it is used. A name that does not resolve (yet) is accepted:
 * every connection checks again.
 */
export async function checkTargetAddress(
  raw: string,
  field: string,
  schemes: readonly string[] = ['https:', 'http:'],
  options?: TargetOptions,
): Promise<URL> {
  const url = checkTargetUrl(raw, field, schemes, options);
  await checkResolvesPublic(url.hostname, field, options);
  return url;
}

/** How long a save waits for a name to resolve (default 3 s; tests shorten it). */
export const SAVE_LOOKUP_TIMEOUT_MS = { value: 3_000 };

/**
 * The save-time lookup of `host`: a 400 naming `field` when the name resolves to a refused address.
 * Saves run inside a database transaction (with PGlite, the server's only connection), so the lookup
 * is bounded: a name whose DNS answers slowly (a hostile name server can delay its answers for many
 * seconds) is accepted after SAVE_LOOKUP_TIMEOUT_MS, like a name that does not resolve — every
 * connection checks it again.
 */
export async function checkResolvesPublic(host: string, field: string, options?: TargetOptions): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), SAVE_LOOKUP_TIMEOUT_MS.value);
  });
  try {
    await Promise.race([resolvePublicHost(host, options), timeout]);
  } catch (error) {
    if (error instanceof PrivateTargetError)
      throw new AppError('BAD_REQUEST', `${field} ${PRIVATE_TARGET_MESSAGE}`, { field });
  } finally {
    clearTimeout(timer);
  }
}
