import type { FormValues } from '../pages/form-command.ts';

/** The role fields of a posted role form, as the role commands take them (src/lib/roles/commands.ts). */
export function roleFormInput(values: FormValues, form: FormData) {
  return {
    name: values.name ?? '',
    description: values.description ?? '',
    permissions: form.getAll('permissions').map(String),
  };
}
