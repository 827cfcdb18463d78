/**
 * Per-tenant IP allowlist (security goal 14; ASVS 8.2.4). A tenant without entries is open; a tenant
 * with entries accepts signed-in requests only from addresses inside one of its networks. The client
 * address comes from the connection, or from X-Forwarded-For only as far as TRUST_PROXY says
 * (src/lib/auth/client-ip.ts), so a forged header changes nothing. IPv4-mapped IPv6 addresses
 * (`::ffff:10.0.0.1`, `::ffff:a00:1`) are the IPv4 address they carry, so an IPv4 rule matches them
 * and an attacker cannot slip past a rule by spelling the address differently.
 */
import net from 'node:net';
import type { Tx } from '../db/index.ts';
import { AppError } from '../errors/app-error.ts';
import type { IpRestrictionsRow } from '../db/schema.generated.ts';

/** Expands a valid IPv6 address to its eight 16-bit groups (an embedded dotted IPv4 tail included). */
function ipv6Groups(ip: string): number[] | null {
  let text = ip;
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    if (!net.isIPv4(dotted[2])) return null;
    const [a, b, c, d] = dotted[2].split('.').map(Number);
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parts = text.split('::');
  if (parts.length > 2) return null;
  const left = parts[0] ? parts[0].split(':') : [];
  const right = parts.length === 2 && parts[1] ? parts[1].split(':') : [];
  const fill = parts.length === 2 ? 8 - left.length - right.length : 0;
  if (fill < 0 || (parts.length === 1 && left.length !== 8)) return null;
  return [...left, ...Array<string>(fill).fill('0'), ...right].map((h) => parseInt(h, 16));
}

/**
 * The canonical spelling of a client address: IPv4 dotted quad for IPv4 and IPv4-mapped IPv6,
 * lower-case IPv6 otherwise (zone index dropped); null when it is not an IP address.
 */
export function canonicalClientIp(raw: string): string | null {
  const ip = raw
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  if (net.isIPv4(ip)) return ip;
  if (!net.isIPv6(ip)) return null;
  const groups = ipv6Groups(ip.toLowerCase());
  if (!groups || groups.length !== 8) return ip.toLowerCase();
  const isMapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (isMapped) return `${groups[6] >> 8}.${groups[6] & 255}.${groups[7] >> 8}.${groups[7] & 255}`;
  return groups.map((g) => g.toString(16)).join(':');
}

/** Validates a network ('10.0.0.0/8', '2001:db8::/32', or a bare address = one host). Throws naming the field. */
export function parseNetwork(value: string, field = 'network'): string {
  const text = value.trim();
  const [address, prefixText, extra] = text.split('/');
  const ip = address ? canonicalClientIp(address) : null;
  const max = ip && net.isIPv4(ip) ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (
    !ip ||
    extra !== undefined ||
    !Number.isInteger(prefix) ||
    prefix < 0 ||
    prefix > max ||
    (prefixText !== undefined && !/^\d+$/.test(prefixText))
  ) {
    throw new AppError('BAD_REQUEST', `${field}: enter an IP address or a network such as 203.0.113.0/24.`, { field });
  }
  return `${ip}/${prefix}`;
}

export type IpRestriction = Pick<IpRestrictionsRow, 'id' | 'network' | 'description' | 'created_at'>;

export async function listIpRestrictions(tx: Tx): Promise<IpRestriction[]> {
  return tx.query<IpRestriction>(
    'select id::text as id, network::text as network, description, created_at from ip_restrictions order by network',
  );
}

export async function addIpRestriction(
  tx: Tx,
  input: { tenantId: string; network: string; description?: string; createdBy?: string | null },
): Promise<IpRestriction> {
  const network = parseNetwork(input.network);
  // set_masklen/network() store the network address itself, so '10.1.2.3/8' is kept as '10.0.0.0/8'.
  const [row] = await tx.query<IpRestriction>(
    `insert into ip_restrictions (tenant_id, network, description, created_by) values ($1, network($2::inet), $3, $4)
     returning id::text as id, network::text as network, description, created_at`,
    [input.tenantId, network, input.description?.trim() ?? '', input.createdBy ?? null],
  );
  return row;
}

export async function removeIpRestriction(tx: Tx, id: string): Promise<boolean> {
  const rows = await tx.query('delete from ip_restrictions where id = $1::uuid returning id', [id]);
  return rows.length > 0;
}

/**
 * Whether the bound tenant accepts a request from `clientIp`: yes when it lists no network, else
 * only when one of its networks contains the address. One query. An address that cannot be parsed
 * is refused when the tenant restricts.
 */
export async function isIpAllowed(tx: Tx, clientIp: string): Promise<boolean> {
  const ip = canonicalClientIp(clientIp);
  const [row] = await tx.query<{ total: number; matching: number }>(
    `select count(*)::int as total, count(*) filter (where $1::inet is not null and $1::inet <<= network)::int as matching from ip_restrictions`,
    [ip],
  );
  return row.total === 0 || row.matching > 0;
}
