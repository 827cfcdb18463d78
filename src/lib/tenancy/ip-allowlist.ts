/**
 * Per-tenant IP allowlist (security goal 14; ASVS 8.2.4). Each rule is a network and applies either
 * to everyone or only to the users holding one of its roles (ip_restriction_roles):
 *  - a rule for everyone restricts everyone; a rule for roles restricts only users holding one of
 *    those roles (a rule whose roles were all deleted applies to nobody);
 *  - a user is allowed when no rule applies to them, or when their address is inside one of the
 *    rules that apply to them. So a tenant without rules is open, and a rule for tellers does not
 *    shut out the administrators.
 * Checked on every signed-in request by the ip-restriction middleware step, one query by user id. The client
 * address comes from the connection, or from X-Forwarded-For only as far as TRUST_PROXY says
 * (src/lib/auth/client-ip.ts), so a forged header changes nothing. IPv4-mapped IPv6 addresses
 * (`::ffff:10.0.0.1`, `::ffff:a00:1`) are the IPv4 address they carry, so an IPv4 rule matches them
 * and an attacker cannot slip past a rule by spelling the address differently.
 */
import net from 'node:net';
import type { Tx } from '../db/index.ts';
import { validationError } from '../errors/messages.ts';

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

/** A client address as people read it: the canonical form, IPv6 with its longest run of zero groups as '::'. */
export function displayIp(raw: string): string {
  const ip = canonicalClientIp(raw);
  if (!ip) return raw;
  if (!ip.includes(':')) return ip;
  const groups = ip.split(':');
  let best = { start: -1, length: 0 };
  for (let i = 0; i < groups.length;) {
    if (groups[i] !== '0') {
      i += 1;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === '0') j += 1;
    if (j - i > best.length && j - i > 1) best = { start: i, length: j - i };
    i = j;
  }
  if (best.start < 0) return ip;
  const left = groups.slice(0, best.start).join(':');
  const right = groups.slice(best.start + best.length).join(':');
  return `${left}::${right}`;
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
    throw validationError(field, 'security.network', { example: '203.0.113.0/24' });
  }
  return `${ip}/${prefix}`;
}

/** A rule as shown and answered: `roles` empty with appliesToAll false means its roles were deleted. */
export type IpRestriction = {
  id: string;
  network: string;
  label: string;
  appliesToAll: boolean;
  roles: { id: string; name: string }[];
  createdAt: Date;
};

type RestrictionRow = {
  id: string;
  network: string;
  description: string;
  applies_to_all: boolean;
  roles: { id: string; name: string }[];
  created_at: Date;
};

const SELECT_RESTRICTIONS = `
  select r.id::text as id, r.network::text as network, r.description, r.applies_to_all, r.created_at,
    coalesce((select json_agg(json_build_object('id', ro.id::text, 'name', ro.name) order by ro.name)
                from ip_restriction_roles rr join roles ro on ro.tenant_id = rr.tenant_id and ro.id = rr.role_id
               where rr.tenant_id = r.tenant_id and rr.restriction_id = r.id), '[]'::json) as roles
  from ip_restrictions r`;

function toRestriction(row: RestrictionRow): IpRestriction {
  return {
    id: row.id,
    network: row.network,
    label: row.description,
    appliesToAll: row.applies_to_all,
    roles: row.roles,
    createdAt: row.created_at,
  };
}

export async function listIpRestrictions(tx: Tx): Promise<IpRestriction[]> {
  const rows = await tx.query<RestrictionRow>(`${SELECT_RESTRICTIONS} order by r.network`);
  return rows.map(toRestriction);
}

export async function getIpRestriction(tx: Tx, id: string): Promise<IpRestriction | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const [row] = await tx.query<RestrictionRow>(`${SELECT_RESTRICTIONS} where r.id = $1::uuid`, [id]);
  return row ? toRestriction(row) : null;
}

/** Replaces the roles of a rule; `roleIds` empty with appliesToAll false is a rule for nobody. */
async function setRestrictionRoles(tx: Tx, tenantId: string, id: string, roleIds: readonly string[]): Promise<void> {
  await tx.query('delete from ip_restriction_roles where tenant_id = $1 and restriction_id = $2::uuid', [tenantId, id]);
  if (roleIds.length)
    await tx.query(
      `insert into ip_restriction_roles (tenant_id, restriction_id, role_id)
       select $1, $2::uuid, unnest($3::uuid[]) on conflict do nothing`,
      [tenantId, id, roleIds],
    );
}

export async function addIpRestriction(
  tx: Tx,
  input: {
    tenantId: string;
    network: string;
    description?: string;
    createdBy?: string | null;
    /** Empty or absent: the rule applies to everyone. */
    roleIds?: readonly string[];
  },
): Promise<IpRestriction> {
  const network = parseNetwork(input.network);
  const roleIds = input.roleIds ?? [];
  // network() stores the network address itself, so '10.1.2.3/8' is kept as '10.0.0.0/8'.
  const [row] = await tx.query<{ id: string }>(
    `insert into ip_restrictions (tenant_id, network, description, created_by, applies_to_all)
     values ($1, network($2::inet), $3, $4, $5) returning id::text as id`,
    [input.tenantId, network, input.description?.trim() ?? '', input.createdBy ?? null, roleIds.length === 0],
  );
  await setRestrictionRoles(tx, input.tenantId, row.id, roleIds);
  return (await getIpRestriction(tx, row.id))!;
}

export async function updateIpRestriction(
  tx: Tx,
  input: { tenantId: string; id: string; network?: string; description?: string; roleIds?: readonly string[] },
): Promise<IpRestriction | null> {
  const network = input.network === undefined ? null : parseNetwork(input.network);
  const rows = await tx.query<{ id: string }>(
    `update ip_restrictions set network = coalesce(network($2::inet), network), description = coalesce($3, description),
       applies_to_all = coalesce($4, applies_to_all)
     where id = $1::uuid returning id::text as id`,
    [
      input.id,
      network,
      input.description === undefined ? null : input.description.trim(),
      input.roleIds === undefined ? null : input.roleIds.length === 0,
    ],
  );
  if (!rows.length) return null;
  if (input.roleIds !== undefined) await setRestrictionRoles(tx, input.tenantId, input.id, input.roleIds);
  return getIpRestriction(tx, input.id);
}

export async function removeIpRestriction(tx: Tx, id: string): Promise<boolean> {
  const rows = await tx.query('delete from ip_restrictions where id = $1::uuid returning id', [id]);
  return rows.length > 0;
}

/**
 * Whether the bound tenant accepts a request from `clientIp` by the user `userId` (null: only the
 * rules for everyone apply): yes when no rule applies to them, else only when one of the rules that
 * apply contains the address. One query. An address that cannot be parsed is refused when a rule applies.
 */
export async function isIpAllowed(tx: Tx, clientIp: string | null, userId: string | null = null): Promise<boolean> {
  const ip = clientIp ? canonicalClientIp(clientIp) : null;
  const [row] = await tx.query<{ total: number; matching: number }>(
    `select count(*)::int as total, count(*) filter (where $1::inet is not null and $1::inet <<= r.network)::int as matching
       from ip_restrictions r
      where r.applies_to_all
         or ($2::uuid is not null and exists (
              select 1 from ip_restriction_roles rr join user_roles ur on ur.tenant_id = rr.tenant_id and ur.role_id = rr.role_id
               where rr.tenant_id = r.tenant_id and rr.restriction_id = r.id and ur.user_id = $2::uuid))`,
    [ip, userId],
  );
  return row.total === 0 || row.matching > 0;
}
