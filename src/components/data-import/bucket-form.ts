/**
 * The import-bucket form's values (add and edit pages): the posted text fields, and the mapping typed
 * as one `field = column` per line, read into the object the command takes.
 */
export type BucketFormValues = {
  name: string;
  type: 's3' | 'sftp';
  kind: string;
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  accessKeyId: string;
  host: string;
  port: string;
  username: string;
  path: string;
  mappingText: string;
  isEnabled: boolean;
};

export const EMPTY_BUCKET: BucketFormValues = {
  name: '',
  type: 's3',
  kind: 'customers',
  endpoint: '',
  region: '',
  bucket: '',
  prefix: '',
  accessKeyId: '',
  host: '',
  port: '22',
  username: '',
  path: '',
  mappingText: '',
  isEnabled: true,
};

const str = (form: FormData, name: string) => String(form.get(name) ?? '');

export function bucketFormValues(form: FormData): BucketFormValues {
  return {
    name: str(form, 'name'),
    type: str(form, 'type') === 'sftp' ? 'sftp' : 's3',
    kind: str(form, 'kind'),
    endpoint: str(form, 'endpoint'),
    region: str(form, 'region'),
    bucket: str(form, 'bucket'),
    prefix: str(form, 'prefix'),
    accessKeyId: str(form, 'accessKeyId'),
    host: str(form, 'host'),
    port: str(form, 'port') || '22',
    username: str(form, 'username'),
    path: str(form, 'path'),
    mappingText: str(form, 'mapping'),
    isEnabled: form.get('isEnabled') === 'on',
  };
}

export function mappingText(mapping: Record<string, string>): string {
  return Object.entries(mapping)
    .map(([field, column]) => `${field} = ${column}`)
    .join('\n');
}

/** The command's input from the form: the mapping lines parsed, the secret as typed (never shown back). */
export function bucketInputOf(values: BucketFormValues, secret: string) {
  const mapping: Record<string, string> = {};
  for (const line of values.mappingText.split(/\r?\n/)) {
    const at = line.indexOf('=');
    if (at <= 0) continue;
    const field = line.slice(0, at).trim();
    const column = line.slice(at + 1).trim();
    if (field && column) mapping[field] = column;
  }
  return {
    name: values.name,
    type: values.type,
    kind: values.kind,
    endpoint: values.endpoint,
    region: values.region,
    bucket: values.bucket,
    prefix: values.prefix,
    accessKeyId: values.accessKeyId,
    host: values.host,
    port: values.port,
    username: values.username,
    path: values.path,
    secret,
    mapping,
    isEnabled: values.isEnabled,
  };
}
