/**
 * The flows islands take their texts from the page (the server's translator, with the tenant's
 * overrides, renders the `flows` namespace subtree they need), so they ship no extra bundle.
 */
export type Labels = { [key: string]: string | Labels };

export function label(labels: Labels, path: string, vars: Record<string, string | number> = {}): string {
  let node: string | Labels | undefined = labels;
  for (const part of path.split('.')) node = typeof node === 'object' && node !== null ? node[part] : undefined;
  const text = typeof node === 'string' ? node : path;
  return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(vars[name] ?? ''));
}
