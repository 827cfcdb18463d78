/**
 * Human names of the permission table's areas, resources and actions, from the `roles` namespace
 * (`roles:areas.<area>`, `roles:resources.<area>.<resource>`, `roles:actions.<action>`), in the
 * translator's language. tests/unit/roles-labels.test.ts holds every key of the table to a label in
 * English and French.
 */
/** A translator of plain keys (i18next's `t` wrapped: `(key) => t(key)`). */
export type Translate = (key: string) => string;

export type GrantLabels = {
  area: (area: string) => string;
  resource: (area: string, resource: string) => string;
  action: (action: string) => string;
  /** A key, resource or area as a path people read: "Loans › Customers › View". */
  grant: (grant: string) => string;
};

export function grantLabels(t: Translate): GrantLabels {
  const area = (a: string) => t(`roles:areas.${a}`);
  const resource = (a: string, r: string) => t(`roles:resources.${a}.${r}`);
  const action = (x: string) => t(`roles:actions.${x}`);
  return {
    area,
    resource,
    action,
    grant(grant) {
      const [a, r, x] = grant.split('.');
      return [area(a), ...(r ? [resource(a, r)] : []), ...(x ? [action(x)] : [])].join(' › ');
    },
  };
}
