import { Box, Link, Progress, Table, Text } from '@chakra-ui/react';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Language } from '#lib/i18n/index.ts';
import { safeUrl } from '#lib/http/html-safety.ts';
import { formatBytes, formatDateTime } from '#lib/i18n/format.ts';
import { createApi, errorMessageOf } from './lib/api.ts';
import { startPolling } from './lib/poll.ts';
import { ErrorAlert } from './ui/error-alert.tsx';
import { IslandProvider } from './ui/provider.tsx';
import { Translations } from './ui/translations.tsx';

export type DownloadItem = {
  id: string;
  kind: string;
  file_name: string;
  content_type: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  progress: number;
  size_bytes: string | null;
  error: string | null;
  created_at: string;
  completed_at: string | null;
  href: string | null;
};

const api = createApi({ module: 'DownloadsList' });
export const POLL_MS = 3000;
const isInProgress = (d: DownloadItem) => d.status === 'queued' || d.status === 'running';

function List({ initial, language, timeZone }: { initial: DownloadItem[]; language: Language; timeZone?: string }) {
  const { t } = useTranslation('common');
  const [items, setItems] = useState(initial);
  const [failure, setFailure] = useState<{ status: number; message: string; error: unknown } | null>(null);
  const load = useCallback(
    // x-background: polling is not user activity, so it does not keep an idle session alive.
    () =>
      api
        .get('downloads', { headers: { 'x-background': '1' } })
        .json<{ items: DownloadItem[] }>()
        .then((data) => data.items),
    [],
  );
  const refresh = useCallback(async () => {
    try {
      setItems(await load());
      setFailure(null);
    } catch (error) {
      setFailure({ ...(await errorMessageOf(error)), error });
    }
  }, [load]);

  const isPending = items.some(isInProgress);
  useEffect(() => {
    // Poll only while something is being prepared (and only while the tab is visible).
    if (!isPending || failure) return;
    return startPolling({
      intervalMs: POLL_MS,
      doc: document,
      load,
      onResult: setItems,
      onError: (error) => void errorMessageOf(error).then((m) => setFailure({ ...m, error })),
      shouldContinue: (list) => list.some(isInProgress),
    });
  }, [isPending, failure, load]);

  if (failure)
    return (
      <ErrorAlert
        status={failure.status}
        message={failure.message}
        error={failure.error}
        onRetry={() => void refresh()}
        module="DownloadsList"
      />
    );
  if (items.length === 0) return <Box className="empty-state">{t('downloads.empty')}</Box>;
  return (
    <Table.ScrollArea>
      <Table.Root size="sm" variant="outline" bg="bg" borderRadius="l2">
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeader>{t('downloads.file')}</Table.ColumnHeader>
            <Table.ColumnHeader>{t('downloads.created')}</Table.ColumnHeader>
            <Table.ColumnHeader>{t('downloads.status')}</Table.ColumnHeader>
            <Table.ColumnHeader>{t('downloads.progress')}</Table.ColumnHeader>
            <Table.ColumnHeader textAlign="end">{t('downloads.size')}</Table.ColumnHeader>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {items.map((d) => (
            <Table.Row key={d.id}>
              <Table.Cell>
                {d.href ? (
                  <Link href={safeUrl(d.href)} color="brand.fg" download>
                    {d.file_name}
                  </Link>
                ) : (
                  <Text>{d.file_name}</Text>
                )}
                {d.error ? (
                  <Text color="fg.error" fontSize="sm">
                    {d.error}
                  </Text>
                ) : null}
              </Table.Cell>
              <Table.Cell>{formatDateTime(d.created_at, language, timeZone)}</Table.Cell>
              <Table.Cell>
                <span className={`badge badge--${d.status}`}>{t(`downloads.statuses.${d.status}`)}</span>
              </Table.Cell>
              <Table.Cell minW="140px">
                <Progress.Root
                  value={d.progress}
                  max={100}
                  size="sm"
                  colorPalette="brand"
                  aria-label={`${d.file_name}: ${d.progress}%`}
                >
                  <Progress.Track>
                    <Progress.Range />
                  </Progress.Track>
                </Progress.Root>
                <Text fontSize="xs" color="fg.muted">
                  {d.progress}%
                </Text>
              </Table.Cell>
              <Table.Cell textAlign="end">
                {d.size_bytes ? formatBytes(BigInt(d.size_bytes), language) : '—'}
              </Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
    </Table.ScrollArea>
  );
}

/** The user's generated files with status and progress, polled while any is being prepared. */
export default function DownloadsList(props: { initial: DownloadItem[]; language: Language; timeZone?: string }) {
  return (
    <IslandProvider language={props.language} module="DownloadsList">
      <Translations>
        <List {...props} />
      </Translations>
    </IslandProvider>
  );
}
