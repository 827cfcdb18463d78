import type { AstroGlobal } from 'astro';
import { displayIp } from '#lib/tenancy/ip-allowlist.ts';
import { requestIp } from '../../server/session.ts';

/** The IP rule form's values as the command's input (the role boxes count only for "some roles"). */
export function ipRuleInput(form: FormData): {
  network: string;
  label: string;
  appliesTo: 'everyone' | 'roles';
  roleIds: string[];
} {
  return {
    network: String(form.get('network') ?? ''),
    label: String(form.get('label') ?? ''),
    appliesTo: form.get('appliesTo') === 'roles' ? 'roles' : 'everyone',
    roleIds: form.getAll('roleIds').map(String),
  };
}

/** The administrator's address as the IP rules see it (the middleware's client address, canonical). */
export function yourAddress(Astro: AstroGlobal): string {
  return displayIp(requestIp(Astro));
}
