import { Box, Button, Field, Input, Stack, Table, Text } from '@chakra-ui/react';
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { Language } from '#lib/i18n/index.ts';
import { formatDateTime } from '#lib/i18n/format.ts';
import { changePassword, listSessions, signOutEverywhere, type SessionSummary } from './lib/account.ts';
import { errorMessageOf } from './lib/api.ts';
import { ErrorAlert } from './ui/error-alert.tsx';
import { IslandProvider } from './ui/provider.tsx';
import { Translations } from './ui/translations.tsx';
import { RequireUser } from './ui/require-user.tsx';
import type { CurrentUser } from './stores/user.ts';

type Failure = { status: number; message: string; error: unknown };

function PasswordForm() {
  const { t } = useTranslation('common');
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [state, setState] = useState<'idle' | 'busy' | 'done'>('idle');
  const [failure, setFailure] = useState<Failure | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setState('busy');
    setFailure(null);
    try {
      await changePassword(current, next);
      setCurrent('');
      setNext('');
      setState('done');
    } catch (error) {
      setFailure({ ...(await errorMessageOf(error)), error });
      setState('idle');
    }
  };
  return (
    <Box as="form" onSubmit={submit} maxW="420px">
      <Stack gap="3">
        <Field.Root required>
          <Field.Label>{t('profile.currentPassword')}</Field.Label>
          <Input
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </Field.Root>
        <Field.Root required>
          <Field.Label>{t('profile.newPassword')}</Field.Label>
          <Input type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} />
        </Field.Root>
        {failure ? (
          <ErrorAlert status={failure.status} message={failure.message} error={failure.error} module="ProfilePanel" />
        ) : null}
        {state === 'done' ? (
          <Text role="status" color="fg.success">
            {t('profile.passwordChanged')}
          </Text>
        ) : null}
        <Box>
          <Button type="submit" colorPalette="brand" loading={state === 'busy'} disabled={!current || !next}>
            {t('profile.changePassword')}
          </Button>
        </Box>
      </Stack>
    </Box>
  );
}

function Sessions({ language }: { language: Language }) {
  const { t } = useTranslation('common');
  const [sessions, setSessions] = useState<SessionSummary[] | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [notice, setNotice] = useState('');
  const load = async () => {
    setFailure(null);
    try {
      setSessions(await listSessions());
    } catch (error) {
      setFailure({ ...(await errorMessageOf(error)), error });
    }
  };
  useEffect(() => void load(), []);
  const endAll = async () => {
    try {
      const next = await signOutEverywhere();
      setNotice(t('profile.signedOutEverywhere'));
      // This session ended too: leave for the login page.
      window.location.assign(next);
    } catch (error) {
      setFailure({ ...(await errorMessageOf(error)), error });
    }
  };
  return (
    <Stack gap="3">
      {failure ? (
        <ErrorAlert
          status={failure.status}
          message={failure.message}
          error={failure.error}
          onRetry={() => void load()}
          module="ProfilePanel"
        />
      ) : null}
      {sessions && sessions.length > 0 ? (
        <Table.ScrollArea>
          <Table.Root size="sm" variant="outline">
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeader>{t('profile.sessionDevice')}</Table.ColumnHeader>
                <Table.ColumnHeader>{t('profile.sessionStarted')}</Table.ColumnHeader>
                <Table.ColumnHeader>{t('profile.sessionLastSeen')}</Table.ColumnHeader>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {sessions.map((s) => (
                <Table.Row key={s.id}>
                  <Table.Cell>
                    {s.user_agent ?? '—'} {s.ip ? `(${s.ip})` : ''}{' '}
                    {s.is_current ? <strong>· {t('profile.sessionCurrent')}</strong> : null}
                  </Table.Cell>
                  <Table.Cell>{formatDateTime(s.created_at, language)}</Table.Cell>
                  <Table.Cell>{formatDateTime(s.last_seen_at, language)}</Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        </Table.ScrollArea>
      ) : sessions ? (
        <Text color="fg.muted">{t('profile.noSessions')}</Text>
      ) : null}
      {notice ? (
        <Text role="status" color="fg.success">
          {notice}
        </Text>
      ) : null}
      <Box>
        <Button variant="outline" colorPalette="red" onClick={() => void endAll()}>
          {t('profile.signOutEverywhere')}
        </Button>
      </Box>
    </Stack>
  );
}

/** The interactive parts of /{section}/user/profile: change password and active sessions. */
export default function ProfilePanel({
  language,
  part,
  user,
}: {
  language: Language;
  part: 'password' | 'sessions';
  user: CurrentUser;
}) {
  return (
    <IslandProvider language={language} module="ProfilePanel">
      <Translations>
        <RequireUser initialUser={user}>
          {part === 'password' ? <PasswordForm /> : <Sessions language={language} />}
        </RequireUser>
      </Translations>
    </IslandProvider>
  );
}
