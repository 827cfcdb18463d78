/**
 * The client's IP address for throttling and the session list.
 *
 * X-Forwarded-For is trusted only when TRUST_PROXY is set, because anyone can send that header:
 * without a proxy in front, trusting it would let an attacker pick a fresh "IP" for every guess.
 * TRUST_PROXY is the number of proxies in front of the app that append to X-Forwarded-For
 * ("true" means 1). The client is the entry that many hops from the right; entries further left
 * were written by the client itself and are ignored.
 */
export function trustedProxyHops(value: string | undefined = process.env.TRUST_PROXY): number {
  if (!value) return 0;
  if (['true', 'yes', 'on'].includes(value.toLowerCase())) return 1;
  const hops = Number(value);
  return Number.isInteger(hops) && hops > 0 ? hops : 0;
}

export function clientIp(
  remoteAddress: string | undefined,
  forwardedFor: string | null | undefined,
  hops = trustedProxyHops(),
): string {
  const direct = normaliseIp(remoteAddress ?? '') || 'unknown';
  if (hops === 0 || !forwardedFor) return direct;
  const chain = forwardedFor
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const candidate = chain[chain.length - hops];
  return candidate ? normaliseIp(candidate) || direct : direct;
}

/** '::ffff:10.0.0.1' and '10.0.0.1' are one client; so are IPv6 spellings differing in case. */
export function normaliseIp(ip: string): string {
  const lower = ip.trim().toLowerCase();
  return lower.startsWith('::ffff:') && lower.includes('.') ? lower.slice(7) : lower;
}
