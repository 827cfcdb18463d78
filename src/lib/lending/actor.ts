import type { DataPermission, Principal } from '../auth/principal.ts';

/** Who runs a lending command, and from where (for maker-checker, data permissions and the audit trail). */
export type Actor = {
  tenantId: string;
  userId: string;
  isAdmin: boolean;
  kind?: 'user' | 'token' | 'system';
  ip?: string | null;
  requestId?: string | null;
  /**
   * The caller's data permissions: commands load their objects and check placement fields
   * through them (src/lib/auth/data-permissions.ts). Absent for system actors (jobs, simulator, seeds).
   */
  dataPermissions?: readonly DataPermission[];
  /** Locale such as 'fr-FR', for messages a command words for the caller. */
  language?: string | null;
};

export function actorFromPrincipal(
  principal: Principal,
  request: { ip?: string | null; requestId?: string | null } = {},
): Actor {
  return {
    tenantId: principal.tenantId,
    userId: principal.userId,
    isAdmin: principal.isAdmin,
    kind: principal.via === 'token' ? 'token' : 'user',
    ip: request.ip ?? null,
    requestId: request.requestId ?? null,
    dataPermissions: principal.dataPermissions,
    language: principal.language,
  };
}
