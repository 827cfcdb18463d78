import type { ScheduledExport } from '#lib/scheduled-exports/model.ts';
import { sourceValue } from '#lib/scheduled-exports/choices.ts';

/**
 * The plain HTML form of a scheduled export (add and update pages) and the command input it posts:
 * one field per setting, secrets as password fields that are never filled back (left empty on an
 * update: the stored one is kept).
 */
export type ExportFormValues = {
  name: string;
  source: string;
  tab: string;
  filters: string;
  format: string;
  cron: string;
  isEnabled: boolean;
  toDownloads: boolean;
  emailRecipients: string;
  sftpEnabled: boolean;
  sftpHost: string;
  sftpPort: string;
  sftpUser: string;
  sftpDirectory: string;
  httpEnabled: boolean;
  httpUrl: string;
  httpMethod: string;
  httpHeaderName: string;
  alertUserIds: string[];
  alertEmails: string;
  revision: string;
};

export const EMPTY_VALUES: ExportFormValues = {
  name: '',
  source: 'list:loans',
  tab: '',
  filters: '',
  format: 'csv',
  cron: '0 6 * * *',
  isEnabled: true,
  toDownloads: true,
  emailRecipients: '',
  sftpEnabled: false,
  sftpHost: '',
  sftpPort: '22',
  sftpUser: '',
  sftpDirectory: '.',
  httpEnabled: false,
  httpUrl: '',
  httpMethod: 'PUT',
  httpHeaderName: '',
  alertUserIds: [],
  alertEmails: '',
  revision: '',
};

const text = (form: FormData, name: string) => String(form.get(name) ?? '');
const list = (raw: string) =>
  raw
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter(Boolean);

export function valuesFromForm(form: FormData): ExportFormValues {
  return {
    name: text(form, 'name'),
    source: text(form, 'source'),
    tab: text(form, 'tab'),
    filters: text(form, 'filters'),
    format: text(form, 'format'),
    cron: text(form, 'cron'),
    isEnabled: form.get('isEnabled') === 'on',
    toDownloads: form.get('toDownloads') === 'on',
    emailRecipients: text(form, 'emailRecipients'),
    sftpEnabled: form.get('sftpEnabled') === 'on',
    sftpHost: text(form, 'sftpHost'),
    sftpPort: text(form, 'sftpPort'),
    sftpUser: text(form, 'sftpUser'),
    sftpDirectory: text(form, 'sftpDirectory'),
    httpEnabled: form.get('httpEnabled') === 'on',
    httpUrl: text(form, 'httpUrl'),
    httpMethod: text(form, 'httpMethod'),
    httpHeaderName: text(form, 'httpHeaderName'),
    alertUserIds: form.getAll('alertUserIds').map(String),
    alertEmails: text(form, 'alertEmails'),
    revision: text(form, 'revision'),
  };
}

export function valuesOf(e: ScheduledExport): ExportFormValues {
  const s = e.source;
  return {
    name: e.name,
    source: sourceValue(s),
    tab: s.kind === 'list' ? (s.tab ?? '') : '',
    filters: s.kind === 'list' ? new URLSearchParams(s.filters).toString() : '',
    format: e.format,
    cron: e.cron,
    isEnabled: e.isEnabled,
    toDownloads: e.targets.downloads,
    emailRecipients: e.targets.email?.recipients.join(', ') ?? '',
    sftpEnabled: Boolean(e.targets.sftp),
    sftpHost: e.targets.sftp?.host ?? '',
    sftpPort: String(e.targets.sftp?.port ?? 22),
    sftpUser: e.targets.sftp?.username ?? '',
    sftpDirectory: e.targets.sftp?.directory ?? '.',
    httpEnabled: Boolean(e.targets.http),
    httpUrl: e.targets.http?.url ?? '',
    httpMethod: e.targets.http?.method ?? 'PUT',
    httpHeaderName: e.targets.http?.headerName ?? '',
    alertUserIds: e.alertUserIds,
    alertEmails: e.alertEmails.join(', '),
    revision: String(e.revision),
  };
}

/** The command input of a posted form (the same JSON shape as POST /v1/scheduled-exports). */
export function inputFromForm(form: FormData): Record<string, unknown> {
  const v = valuesFromForm(form);
  const [kind, a, b] = v.source.split(':');
  const filters = Object.fromEntries(new URLSearchParams(v.filters.trim().replace(/^\?/, '')));
  const source =
    kind === 'query'
      ? { kind: 'query', queryId: a ?? '' }
      : {
          kind: 'list',
          list: a ?? '',
          viewId: kind === 'view' ? (b ?? null) : null,
          tab: v.tab.trim() || null,
          filters,
        };
  const recipients = list(v.emailRecipients);
  const sftpPassword = text(form, 'sftpPassword');
  const sftpKey = text(form, 'sftpKey');
  const headerValue = text(form, 'httpHeaderValue');
  return {
    name: v.name,
    source,
    format: v.format,
    cron: v.cron,
    isEnabled: v.isEnabled,
    targets: {
      downloads: v.toDownloads,
      email: recipients.length ? { recipients } : null,
      sftp: v.sftpEnabled
        ? {
            host: v.sftpHost,
            port: v.sftpPort || '22',
            username: v.sftpUser,
            password: sftpPassword || null,
            privateKey: sftpKey.trim() || null,
            directory: v.sftpDirectory,
          }
        : null,
      http: v.httpEnabled
        ? {
            url: v.httpUrl,
            method: v.httpMethod === 'POST' ? 'POST' : 'PUT',
            headerName: v.httpHeaderName.trim() || null,
            headerValue: headerValue || null,
          }
        : null,
    },
    alertUserIds: v.alertUserIds,
    alertEmails: list(v.alertEmails),
  };
}
