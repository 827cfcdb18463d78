/**
 * Page glue of the user forms (/admin/user/users/add and /edit/:id): what the posted form means as the
 * input of the invite and update commands (src/lib/users/commands.ts), and the values to show again
 * after a refusal. Data permissions are posted as checkboxes named `scope` valued `level:code`.
 */
import type { AdminUser, UserStatus } from '#lib/users/directory.ts';

/** The badge class of each status (list and edit page). */
export const STATUS_BADGE: Record<UserStatus, string> = {
  active: 'badge badge--done',
  invited: 'badge badge--queued',
  disabled: 'badge badge--failed',
};

export type UserFormValues = {
  email: string;
  displayName: string;
  language: string;
  roleIds: string[];
  scopes: string[];
  ssoOnly: boolean;
};

const text = (form: FormData, name: string) => String(form.get(name) ?? '').trim();
const strings = (form: FormData, name: string) => form.getAll(name).filter((v): v is string => typeof v === 'string');

export function userFormValues(form: FormData): UserFormValues {
  return {
    email: text(form, 'email'),
    displayName: text(form, 'displayName'),
    language: text(form, 'language'),
    roleIds: strings(form, 'roleIds'),
    scopes: strings(form, 'scope'),
    ssoOnly: form.get('ssoOnly') === 'on',
  };
}

export function valuesOfUser(user: AdminUser): UserFormValues {
  return {
    email: user.email,
    displayName: user.display_name,
    language: user.language,
    roleIds: user.roles.map((r) => r.id),
    scopes: user.data_permissions.map((p) => `${p.field}:${p.value}`),
    ssoOnly: user.sso_only,
  };
}

/** `branch:PAR-01` → { field: 'branch', value: 'PAR-01' } (the command checks the level and the code). */
export function dataPermissionsOf(scopes: readonly string[]): { field: string; value: string }[] {
  return scopes.map((scope) => {
    const colon = scope.indexOf(':');
    return colon > 0 ? { field: scope.slice(0, colon), value: scope.slice(colon + 1) } : { field: scope, value: '' };
  });
}
