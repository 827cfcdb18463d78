import type { Principal } from '../auth/principal.ts';

/** Who runs a lending command, and from where (for maker-checker and the audit trail). */
export type Actor = {
  tenantId: string;
  userId: string;
  isAdmin: boolean;
  kind?: 'user' | 'token' | 'system';
  ip?: string | null;
  requestId?: string | null;
};

export function actorFromPrincipal(principal: Principal, request: { ip?: string | null; requestId?: string | null } = {}): Actor {
  return {
    tenantId: principal.tenantId,
    userId: principal.userId,
    isAdmin: principal.isAdmin,
    kind: principal.via === 'token' ? 'token' : 'user',
    ip: request.ip ?? null,
    requestId: request.requestId ?? null,
  };
}
