import { Alert, Badge, Box, Button, Field, HStack, Heading, Stack, Text, Textarea } from '@chakra-ui/react';
import { Save } from 'lucide-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { JdmContent } from '#lib/decisioning/zen.ts';
import type { Language } from '#lib/i18n/index.ts';
import { api, errorMessageOf } from '../lib/api.ts';
import { label, type Labels } from '../loans/labels.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { IslandProvider } from '../ui/provider.tsx';
import {
  ExpressionsEditor,
  GraphView,
  TestCasesPanel,
  TryPanel,
  VersionsPanel,
  type Report,
  type VersionView,
} from './panels.tsx';
import { ScorecardEditor } from './ScorecardEditor.tsx';
import { TableEditor } from './TableEditor.tsx';
import {
  casesFrom,
  contentOf,
  draftsFrom,
  workingFrom,
  type Kind,
  type TestCase,
  type TestCaseDraft,
  type Working,
} from './state.ts';

export type EditorVersion = VersionView & { content: JdmContent; testCases: TestCase[] };
export type EditorModel = { id: string; name: string; kind: Kind; description: string; versions: EditorVersion[] };

type Props = { language: Language; labels: Labels; model: EditorModel; canEdit: boolean };
type Failure = { status: number; message: string; field?: string; error: unknown; report?: Report; stale?: boolean };

function ModelWork({ language, labels, model: initial, canEdit }: Props) {
  const [versions, setVersions] = useState(initial.versions);
  const latest = versions[0];
  const [viewing, setViewing] = useState(latest.version);
  const [working, setWorking] = useState<Working>(() => workingFrom(initial.kind, latest.content));
  const [drafts, setDrafts] = useState<TestCaseDraft[]>(() => draftsFrom(latest.testCases));
  const [description, setDescription] = useState(initial.description);
  const [dirty, setDirty] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<{ key: string; field: 'input' | 'expected' }[]>([]);
  const [report, setReport] = useState<Report | null>(latest.testReport);
  const [graphKey, setGraphKey] = useState(0);
  const noticeRef = useRef<HTMLDivElement>(null);

  // Unsaved changes are not lost silently.
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = label(labels, 'leaveWarning');
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty, labels]);

  const old = viewing !== latest.version ? versions.find((v) => v.version === viewing) : undefined;
  const readOnly = !canEdit || !!old;
  const shown = useMemo(() => (old ? workingFrom(initial.kind, old.content) : working), [old, working, initial.kind]);
  const shownDrafts = useMemo(() => (old ? draftsFrom(old.testCases) : drafts), [old, drafts]);

  const change =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      setDirty(true);
      setNotice(null);
    };
  const setWork = change(setWorking);
  const setCases = change(setDrafts);

  const save = async () => {
    const { cases, invalid: bad } = casesFrom(drafts);
    setInvalid(bad);
    if (bad.length) {
      setFailure({ status: 400, message: label(labels, 'tests.badJson'), field: 'testCases', error: null });
      return;
    }
    setBusy(true);
    setFailure(null);
    setNotice(null);
    try {
      const answer = await api
        .put(`decision-models/${initial.id}`, {
          json: { content: contentOf(working), testCases: cases, description, baseVersion: latest.version },
        })
        .json<{ version: EditorVersion; superseded: boolean; previous: number }>();
      const fresh = await api.get(`decision-models/${initial.id}`).json<EditorModel>();
      setVersions(fresh.versions);
      setViewing(answer.version.version);
      setReport(answer.version.testReport);
      setDirty(false);
      setNotice(
        answer.superseded
          ? label(labels, 'savedNew', { previous: answer.previous, version: answer.version.version })
          : label(labels, 'saved', { version: answer.version.version }),
      );
      requestAnimationFrame(() => noticeRef.current?.focus());
    } catch (error) {
      const failed = await errorMessageOf(error);
      const details = failed.details as { report?: Report; code?: string } | undefined;
      if (details?.report) setReport(details.report);
      setFailure({
        status: failed.status,
        message: failed.message,
        field: failed.field,
        error,
        report: details?.report,
        stale: details?.code === 'stale_version',
      });
    } finally {
      setBusy(false);
    }
  };

  const kindLabel = label(labels, `kinds.${initial.kind}`);
  const next = latest.version + 1;
  const fieldFailure = (field: string) =>
    failure && failure.field === field && !failure.report ? failure.message : null;
  const generalFailure =
    failure && !['content', 'testCases', 'description'].includes(failure.field ?? '') ? failure : null;
  const firstInput = drafts[0]?.input ?? '{\n  \n}';

  return (
    <Stack gap="6">
      <HStack gap="3" flexWrap="wrap">
        <Badge>{kindLabel}</Badge>
        <Badge colorPalette={latest.inUse ? 'orange' : 'gray'} data-testid="latest-status">
          {label(labels, 'version', { version: latest.version })} ({label(labels, 'latest')}) ·{' '}
          {label(labels, latest.inUse ? 'inUseBadge' : 'draftBadge')}
        </Badge>
        {dirty ? <Badge colorPalette="yellow">{label(labels, 'unsaved')}</Badge> : null}
      </HStack>

      {old ? (
        <Alert.Root status="info">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Description>{label(labels, 'viewingOld', { version: old.version })}</Alert.Description>
          </Alert.Content>
          <Button size="sm" variant="outline" onClick={() => setViewing(latest.version)}>
            {label(labels, 'backToLatest')}
          </Button>
        </Alert.Root>
      ) : canEdit && latest.inUse ? (
        <Text role="note" color="orange.700">
          {label(labels, 'inUseNote', { version: latest.version, next })}
        </Text>
      ) : null}

      <Box ref={noticeRef} tabIndex={-1} aria-live="polite">
        {notice ? (
          <Alert.Root status="success" data-testid="save-notice">
            <Alert.Indicator />
            <Alert.Description>{notice}</Alert.Description>
          </Alert.Root>
        ) : null}
        {failure?.report ? (
          <Alert.Root status="error" data-testid="save-refused">
            <Alert.Indicator />
            <Alert.Content>
              <Alert.Title>{label(labels, 'tests.refused', { failed: failure.report.failed })}</Alert.Title>
              <Alert.Description>{failure.message}</Alert.Description>
            </Alert.Content>
          </Alert.Root>
        ) : null}
        {generalFailure ? (
          <Stack gap="2">
            <ErrorAlert
              status={generalFailure.status}
              message={generalFailure.message}
              error={generalFailure.error}
              module="ModelEditor"
            />
            {generalFailure.stale ? (
              <Box>
                <Button size="sm" variant="outline" onClick={() => window.location.reload()}>
                  {label(labels, 'reload')}
                </Button>
              </Box>
            ) : null}
          </Stack>
        ) : null}
      </Box>

      <Field.Root invalid={!!fieldFailure('description')} maxW="720px">
        <Field.Label>{label(labels, 'description')}</Field.Label>
        <Textarea
          rows={2}
          maxLength={2000}
          value={description}
          readOnly={readOnly}
          onChange={(e) => change(setDescription)(e.target.value)}
        />
        {fieldFailure('description') ? <Field.ErrorText>{fieldFailure('description')}</Field.ErrorText> : null}
      </Field.Root>

      <Box as="section" aria-labelledby="model-section">
        <Heading as="h2" size="md" id="model-section" mb="3">
          {label(labels, 'tabs.model')} — {label(labels, 'version', { version: old?.version ?? latest.version })}
        </Heading>
        {shown.kind === 'table' ? (
          <TableEditor
            table={shown.table}
            onChange={(table) => setWork({ kind: 'table', table })}
            readOnly={readOnly}
            labels={labels}
          />
        ) : shown.kind === 'expression' ? (
          <ExpressionsEditor
            text={shown.text}
            onChange={(text) => setWork({ kind: 'expression', text, name: shown.name })}
            readOnly={readOnly}
            labels={labels}
          />
        ) : shown.kind === 'scorecard' ? (
          <ScorecardEditor
            card={shown.card}
            onChange={(card) => setWork({ kind: 'scorecard', card })}
            readOnly={readOnly}
            labels={labels}
          />
        ) : (
          <GraphView
            key={`${viewing}-${graphKey}`}
            content={shown.content}
            onChange={(content) => {
              setWork({ kind: 'graph', content });
              setGraphKey((k) => k + 1);
            }}
            readOnly={readOnly}
            labels={labels}
          />
        )}
        {fieldFailure('content') ? (
          <Text color="red.600" role="alert" mt="2" data-testid="content-error">
            {fieldFailure('content')}
          </Text>
        ) : null}
      </Box>

      <Box as="section" aria-labelledby="tests-section">
        <Heading as="h2" size="md" id="tests-section" mb="3">
          {label(labels, 'tabs.tests')}
        </Heading>
        <TestCasesPanel
          drafts={shownDrafts}
          onChange={setCases}
          report={old ? old.testReport : report}
          invalid={invalid}
          readOnly={readOnly}
          labels={labels}
        />
        {fieldFailure('testCases') ? (
          <Text color="red.600" role="alert" mt="2">
            {fieldFailure('testCases')}
          </Text>
        ) : null}
      </Box>

      {canEdit && !old ? (
        <HStack gap="3" position="sticky" bottom="0" bg="bg" py="3" borderTopWidth="1px" zIndex="1">
          <Button colorPalette="brand" loading={busy} loadingText={label(labels, 'saving')} onClick={save}>
            <Save /> {label(labels, 'save')}
          </Button>
        </HStack>
      ) : null}

      <Box as="section" aria-labelledby="try-section">
        <Heading as="h2" size="md" id="try-section" mb="3">
          {label(labels, 'tabs.try')}
        </Heading>
        <TryPanel modelId={initial.id} version={viewing} initialInput={firstInput} labels={labels} />
      </Box>

      <Box as="section" aria-labelledby="versions-section">
        <Heading as="h2" size="md" id="versions-section" mb="3">
          {label(labels, 'tabs.versions')}
        </Heading>
        <VersionsPanel versions={versions} viewing={viewing} onView={setViewing} language={language} labels={labels} />
      </Box>
    </Stack>
  );
}

/** The decision-model editor of /admin/business/decision-models/:id (its latest version, tests, try it, versions). */
export default function ModelEditor(props: Props) {
  return (
    <IslandProvider language={props.language} module="ModelEditor">
      <ModelWork {...props} />
    </IslandProvider>
  );
}
