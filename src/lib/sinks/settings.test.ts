import crypto from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { AppError } from '../errors/app-error.ts';
import { parseSince } from './commands.ts';
import { testBigQueryTarget } from './bigquery-target.ts';
import { checkEventFilter, checkSettings, fineractRoot, settingsHint, visibleSettings } from './settings.ts';

const field = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? `${error.status} ${error.field}` : String(error);
  }
  return 'accepted';
};

describe('event sink settings', () => {
  test('event filter: *, areas, exact types; anything else is a 400 on events', () => {
    expect(checkEventFilter(undefined)).toEqual(['*']);
    expect(checkEventFilter('loan.*, customer.consent.*\nloan.repayment.created loan.*')).toEqual([
      'loan.*',
      'customer.consent.*',
      'loan.repayment.created',
    ]);
    expect(field(() => checkEventFilter('loan.repayment.createdd'))).toBe('400 events');
    expect(field(() => checkEventFilter(['role.*']))).toBe('400 events');
    expect(field(() => checkEventFilter([42]))).toBe('400 events');
  });

  test('replay moment: ISO or the form’s datetime-local (UTC); not in the future', () => {
    expect(parseSince('2026-03-01T10:30')).toBe('2026-03-01T10:30:00.000Z');
    expect(parseSince('2026-03-01')).toBe('2026-03-01T00:00:00.000Z');
    expect(parseSince('2026-03-01T10:30:00+02:00')).toBe('2026-03-01T08:30:00.000Z');
    for (const bad of [
      'yesterday',
      '2026-02-30T00:00',
      '2026-13-45T00:00',
      '2026-01-01T25:00',
      '3026-01-01',
      '1999-12-31',
      '',
    ])
      expect(field(() => parseSince(bad))).toBe('400 since');
  });

  test('the masked hint and the visible settings never carry a secret', async () => {
    const pg = await checkSettings(
      'postgres',
      { connectionString: 'postgres://warehouse:s3cr3t-pw@93.184.216.34:6543/lending?sslmode=require', schema: 'copy' },
      null,
      { allowPrivate: false },
    );
    expect(settingsHint(pg)).toBe('postgres://warehouse:••••@93.184.216.34:6543/lending · schema copy');
    expect(JSON.stringify(visibleSettings(pg))).not.toContain('s3cr3t');
    const key = JSON.stringify({
      type: 'service_account',
      client_email: 'a@p.iam.gserviceaccount.com',
      private_key: crypto
        .generateKeyPairSync('rsa', { modulusLength: 1024 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
      token_uri: 'https://93.184.216.36/token',
    });
    const bq = await checkSettings('bigquery', { projectId: 'demo-project', dataset: 'ds', credentials: key }, null, {
      allowPrivate: false,
    });
    expect(settingsHint(bq)).not.toContain('PRIVATE KEY');
    expect(JSON.stringify(visibleSettings(bq))).not.toContain('PRIVATE KEY');
    // An update that leaves a secret empty keeps the saved one.
    const kept = await checkSettings('postgres', { connectionString: '', schema: 'other' }, pg, {
      allowPrivate: false,
    });
    expect(kept).toMatchObject({
      connectionString: pg.type === 'postgres' ? pg.connectionString : '',
      schema: 'other',
    });
  });

  test('values are checked: schema identifier, sslmode, extra parameters, Fineract ids and address', async () => {
    const pg = (input: Record<string, unknown>) => checkSettings('postgres', input, null, { allowPrivate: false });
    await expect(pg({ connectionString: 'postgres://u@93.184.216.34/db', schema: 'Bad-Name' })).rejects.toMatchObject({
      field: 'schema',
    });
    await expect(pg({ connectionString: 'postgres://u@93.184.216.34/db?sslmode=maybe' })).rejects.toMatchObject({
      field: 'connectionString',
    });
    await expect(pg({ connectionString: 'postgres://u@93.184.216.34/db?host=/tmp' })).rejects.toMatchObject({
      field: 'connectionString',
    });
    await expect(pg({ connectionString: 'x'.repeat(2001) })).rejects.toMatchObject({ field: 'connectionString' });
    const fin = (input: Record<string, unknown>) =>
      checkSettings('fineract', { baseUrl: 'https://93.184.216.35', username: 'u', password: 'p', ...input }, null, {
        allowPrivate: false,
      });
    await expect(fin({ loanProductId: 'one' })).rejects.toMatchObject({ field: 'loanProductId' });
    await expect(fin({ loanProductId: 1, officeId: 0 })).rejects.toMatchObject({ field: 'officeId' });
    await expect(fin({ loanProductId: 1, baseUrl: 'https://93.184.216.35/?x=1' })).rejects.toMatchObject({
      field: 'baseUrl',
    });
    expect(fineractRoot('https://f.example.com/fineract-provider/api/v1/')).toBe('https://f.example.com');
  });

  test('a stored password is only sent again to the server it was typed for', async () => {
    const opts = { allowPrivate: false };
    const saved = await checkSettings(
      'fineract',
      { baseUrl: 'https://93.184.216.35', username: 'u', password: 'secret-pw', loanProductId: 1 },
      null,
      opts,
    );
    // Same server, password left empty: kept.
    const same = await checkSettings('fineract', { tenantIdentifier: 'other', password: '' }, saved, opts);
    expect(same).toMatchObject({ password: 'secret-pw', tenantIdentifier: 'other' });
    // Another server (or user name) without the password typed again: refused, naming password.
    await expect(
      checkSettings('fineract', { baseUrl: 'https://93.184.216.99', password: '' }, saved, opts),
    ).rejects.toMatchObject({ status: 400, field: 'password' });
    await expect(checkSettings('fineract', { username: 'attacker' }, saved, opts)).rejects.toMatchObject({
      field: 'password',
    });
    // Typed again: accepted.
    const moved = await checkSettings(
      'fineract',
      { baseUrl: 'https://93.184.216.99', password: 'new-pw' },
      saved,
      opts,
    );
    expect(moved).toMatchObject({ baseUrl: 'https://93.184.216.99', password: 'new-pw' });
  });

  test('BigQuery: a saved apiEndpoint is not used once private targets are no longer allowed', async () => {
    const credentials = JSON.stringify({
      type: 'service_account',
      client_email: 'sink@demo.iam.gserviceaccount.com',
      private_key: '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n',
      token_uri: 'https://93.184.216.34/token',
    });
    await expect(
      testBigQueryTarget(
        {
          projectId: 'demo-project',
          dataset: 'ds',
          credentials,
          apiEndpoint: 'http://bq.internal:9050',
        },
        { allowPrivate: false },
      ),
    ).rejects.toThrow(/ALLOW_PRIVATE_TARGETS/);
  });
});
