import { Badge, Box, Button, Code, Field, HStack, Input, Stack, Table, Text, Textarea } from '@chakra-ui/react';
import { Play, Plus } from 'lucide-react';
import { RemoveButton } from './buttons.tsx';
import { useState } from 'react';
import type { JdmContent } from '#lib/decisioning/zen.ts';
import { api, errorMessageOf } from '../lib/api.ts';
import { label, type Labels } from '../loans/labels.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { draftKey, firedRules, jsonObject, type TestCaseDraft } from './state.ts';

export type Report = {
  passed: number;
  failed: number;
  ranAt?: string;
  cases: { name: string; pass: boolean; expected: unknown; actual: unknown; error?: string }[];
};
export type VersionView = {
  id: string;
  version: number;
  author: string;
  createdAt: string;
  updatedAt: string;
  inUse: boolean;
  testReport: Report | null;
};

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** `key = expression` lines of an expression node. */
export function ExpressionsEditor(props: {
  text: string;
  onChange: (text: string) => void;
  readOnly: boolean;
  labels: Labels;
}) {
  const count = props.text.split('\n').filter((l) => l.includes('=')).length;
  return (
    <Field.Root>
      <Field.Label>{label(props.labels, 'expressions.label')}</Field.Label>
      <Textarea
        fontFamily="mono"
        rows={Math.max(6, props.text.split('\n').length + 1)}
        value={props.text}
        readOnly={props.readOnly}
        spellCheck={false}
        maxLength={50_000}
        onChange={(e) => props.onChange(e.target.value)}
      />
      <Field.HelperText>
        {label(props.labels, 'expressions.help')} · {label(props.labels, 'expressions.count', { count })}
      </Field.HelperText>
    </Field.Root>
  );
}

/** An imported graph: its nodes and edges listed, and a JSON document to replace it. */
export function GraphView(props: {
  content: JdmContent;
  onChange: (content: JdmContent) => void;
  readOnly: boolean;
  labels: Labels;
}) {
  const { content, labels } = props;
  const [text, setText] = useState(() => pretty(content));
  const [problem, setProblem] = useState<string | null>(null);
  const [applied, setApplied] = useState(false);
  const byId = new Map(content.nodes.map((n) => [n.id, n.name || n.id]));
  const apply = () => {
    setApplied(false);
    try {
      const value = JSON.parse(text) as JdmContent;
      if (!value || typeof value !== 'object' || !Array.isArray(value.nodes) || !Array.isArray(value.edges))
        throw new Error('{ nodes: [...], edges: [...] }');
      setProblem(null);
      props.onChange(value);
      setApplied(true);
    } catch (error) {
      setProblem(label(labels, 'graph.badJson', { message: error instanceof Error ? error.message : String(error) }));
    }
  };
  return (
    <Stack gap="4">
      <HStack gap="6" align="start" flexWrap="wrap">
        <Box flex="1" minW="280px">
          <Text fontWeight="semibold" mb="1">
            {label(labels, 'graph.nodes')} ({content.nodes.length})
          </Text>
          <Table.Root size="sm" data-testid="graph-nodes">
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeader>{label(labels, 'graph.name')}</Table.ColumnHeader>
                <Table.ColumnHeader>{label(labels, 'graph.type')}</Table.ColumnHeader>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {content.nodes.map((n) => (
                <Table.Row key={n.id}>
                  <Table.Cell>{n.name || n.id}</Table.Cell>
                  <Table.Cell>
                    <Code>{n.type}</Code>
                  </Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        </Box>
        <Box flex="1" minW="280px">
          <Text fontWeight="semibold" mb="1">
            {label(labels, 'graph.edges')} ({content.edges.length})
          </Text>
          <Table.Root size="sm">
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeader>{label(labels, 'graph.from')}</Table.ColumnHeader>
                <Table.ColumnHeader>{label(labels, 'graph.to')}</Table.ColumnHeader>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {content.edges.map((e) => (
                <Table.Row key={e.id}>
                  <Table.Cell>{byId.get(e.sourceId) ?? e.sourceId}</Table.Cell>
                  <Table.Cell>{byId.get(e.targetId) ?? e.targetId}</Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        </Box>
      </HStack>
      {props.readOnly ? null : (
        <Field.Root invalid={!!problem}>
          <Field.Label>{label(labels, 'graph.json')}</Field.Label>
          <Textarea
            fontFamily="mono"
            rows={10}
            spellCheck={false}
            value={text}
            maxLength={300_000}
            onChange={(e) => setText(e.target.value)}
          />
          {problem ? <Field.ErrorText>{problem}</Field.ErrorText> : null}
          {applied ? <Field.HelperText role="status">{label(labels, 'graph.applied')}</Field.HelperText> : null}
          <Button mt="2" size="sm" variant="outline" onClick={apply}>
            {label(labels, 'graph.apply')}
          </Button>
        </Field.Root>
      )}
    </Stack>
  );
}

/** One case's report line: expected against actual. */
function CaseReport({ result, labels }: { result: Report['cases'][number]; labels: Labels }) {
  return (
    <Box
      mt="2"
      p="2"
      borderRadius="md"
      bg={result.pass ? 'green.50' : 'red.50'}
      data-testid="case-report"
      data-pass={result.pass ? 'true' : 'false'}
    >
      <Badge colorPalette={result.pass ? 'green' : 'red'}>
        {label(labels, result.pass ? 'tests.pass' : 'tests.fail')}
      </Badge>
      {result.pass ? null : (
        <HStack align="start" gap="4" mt="2" flexWrap="wrap">
          <Box>
            <Text fontSize="sm" fontWeight="semibold">
              {label(labels, 'tests.expected')}
            </Text>
            <Code whiteSpace="pre" display="block" p="1">
              {pretty(result.expected)}
            </Code>
          </Box>
          <Box>
            <Text fontSize="sm" fontWeight="semibold">
              {label(labels, result.error ? 'tests.error' : 'tests.actual')}
            </Text>
            <Code whiteSpace="pre-wrap" display="block" p="1" data-testid="case-actual">
              {result.error ?? pretty(result.actual)}
            </Code>
          </Box>
        </HStack>
      )}
    </Box>
  );
}

export function TestCasesPanel(props: {
  drafts: TestCaseDraft[];
  onChange: (drafts: TestCaseDraft[]) => void;
  report: Report | null;
  invalid: { key: string; field: 'input' | 'expected' }[];
  readOnly: boolean;
  labels: Labels;
}) {
  const { drafts, labels, report } = props;
  const set = (i: number, patch: Partial<TestCaseDraft>) =>
    props.onChange(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  const isInvalid = (key: string, field: 'input' | 'expected') =>
    props.invalid.some((x) => x.key === key && x.field === field) ||
    !jsonObject(drafts.find((d) => d.key === key)?.[field] ?? '');
  return (
    <Stack gap="3">
      <Text fontSize="sm" color="fg.muted">
        {label(labels, 'tests.intro')}
      </Text>
      {report ? (
        <Text fontSize="sm" data-testid="tests-summary">
          {label(labels, 'tests.lastRun')}:{' '}
          {label(labels, 'tests.report', { passed: report.passed, failed: report.failed })}
        </Text>
      ) : null}
      {drafts.length === 0 ? <Text color="fg.muted">{label(labels, 'tests.empty')}</Text> : null}
      {drafts.map((d, i) => {
        const result =
          report?.cases[i]?.name === d.name ? report.cases[i] : report?.cases.find((c) => c.name === d.name);
        return (
          <Box key={d.key} borderWidth="1px" borderRadius="md" p="3" data-testid={`test-case-${i}`}>
            <HStack gap="2" mb="2">
              <Field.Root>
                <Field.Label>{label(labels, 'tests.name')}</Field.Label>
                <Input
                  size="sm"
                  value={d.name}
                  readOnly={props.readOnly}
                  maxLength={120}
                  onChange={(e) => set(i, { name: e.target.value })}
                />
              </Field.Root>
              {props.readOnly ? null : (
                <RemoveButton
                  label={label(labels, 'tests.remove', { name: d.name || String(i + 1) })}
                  onClick={() => props.onChange(drafts.filter((_, j) => j !== i))}
                />
              )}
            </HStack>
            <HStack gap="3" align="start" flexWrap="wrap">
              {(['input', 'expected'] as const).map((field) => (
                <Field.Root key={field} flex="1" minW="240px" invalid={isInvalid(d.key, field)}>
                  <Field.Label>{label(labels, `tests.${field}`)}</Field.Label>
                  <Textarea
                    size="sm"
                    fontFamily="mono"
                    rows={5}
                    spellCheck={false}
                    value={d[field]}
                    readOnly={props.readOnly}
                    maxLength={20_000}
                    onChange={(e) => set(i, { [field]: e.target.value })}
                  />
                  {isInvalid(d.key, field) ? <Field.ErrorText>{label(labels, 'tests.badJson')}</Field.ErrorText> : null}
                </Field.Root>
              ))}
            </HStack>
            {result ? <CaseReport result={result} labels={labels} /> : null}
          </Box>
        );
      })}
      {props.readOnly ? null : (
        <Box>
          <Button
            size="sm"
            variant="outline"
            onClick={() =>
              props.onChange([...drafts, { key: draftKey(), name: '', input: '{\n  \n}', expected: '{\n  \n}' }])
            }
          >
            <Plus /> {label(labels, 'tests.add')}
          </Button>
        </Box>
      )}
    </Stack>
  );
}

type Evaluation = {
  result: Record<string, unknown>;
  trace: { nodeId: string; name: string; rules: Record<string, unknown>[] }[];
  version: number;
};

/** Runs the saved version on an input: the result and which rule fired in which node. */
export function TryPanel(props: { modelId: string; version: number; initialInput: string; labels: Labels }) {
  const { labels } = props;
  const [input, setInput] = useState(props.initialInput);
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Evaluation | null>(null);
  const [failure, setFailure] = useState<{ status: number; message: string; error: unknown } | null>(null);
  const [bad, setBad] = useState(false);
  const run = async () => {
    const value = jsonObject(input);
    setBad(!value);
    if (!value) return;
    setBusy(true);
    setFailure(null);
    try {
      setAnswer(
        await api
          .post(`decision-models/${props.modelId}/evaluate`, { json: { input: value, version: props.version } })
          .json<Evaluation>(),
      );
    } catch (error) {
      setAnswer(null);
      setFailure({ ...(await errorMessageOf(error)), error });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack gap="3">
      <Field.Root invalid={bad}>
        <Field.Label>{label(labels, 'try.input')}</Field.Label>
        <Textarea
          fontFamily="mono"
          rows={8}
          spellCheck={false}
          value={input}
          maxLength={100_000}
          onChange={(e) => setInput(e.target.value)}
        />
        {bad ? <Field.ErrorText>{label(labels, 'try.badJson')}</Field.ErrorText> : null}
        <Field.HelperText>{label(labels, 'try.version', { version: props.version })}</Field.HelperText>
      </Field.Root>
      <Box>
        <Button size="sm" colorPalette="brand" loading={busy} onClick={run}>
          <Play /> {label(labels, 'try.run')}
        </Button>
      </Box>
      {failure ? (
        <ErrorAlert status={failure.status} message={failure.message} error={failure.error} module="ModelEditor" />
      ) : null}
      {answer ? (
        <HStack align="start" gap="6" flexWrap="wrap" data-testid="try-answer">
          <Box>
            <Text fontWeight="semibold">{label(labels, 'try.result')}</Text>
            <Code whiteSpace="pre" display="block" p="2" data-testid="try-result">
              {pretty(answer.result)}
            </Code>
          </Box>
          <Box flex="1" minW="280px">
            <Text fontWeight="semibold">{label(labels, 'try.trace')}</Text>
            <Table.Root size="sm" data-testid="try-trace">
              <Table.Header>
                <Table.Row>
                  <Table.ColumnHeader>{label(labels, 'try.node')}</Table.ColumnHeader>
                  <Table.ColumnHeader>{label(labels, 'try.fired')}</Table.ColumnHeader>
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {firedRules(answer.trace).map((step, i) => (
                  <Table.Row key={`${step.node}-${i}`}>
                    <Table.Cell>{step.node}</Table.Cell>
                    <Table.Cell>{step.rules.length ? step.rules.join(' · ') : label(labels, 'try.none')}</Table.Cell>
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
          </Box>
        </HStack>
      ) : null}
    </Stack>
  );
}

export function VersionsPanel(props: {
  versions: VersionView[];
  viewing: number;
  onView: (version: number) => void;
  language: string;
  labels: Labels;
}) {
  const { labels } = props;
  const date = new Intl.DateTimeFormat(props.language, { dateStyle: 'medium', timeStyle: 'short' });
  return (
    <Box overflowX="auto">
      <Table.Root size="sm" data-testid="versions-table">
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeader>{label(labels, 'versions.number')}</Table.ColumnHeader>
            <Table.ColumnHeader>{label(labels, 'versions.author')}</Table.ColumnHeader>
            <Table.ColumnHeader>{label(labels, 'versions.date')}</Table.ColumnHeader>
            <Table.ColumnHeader>{label(labels, 'versions.status')}</Table.ColumnHeader>
            <Table.ColumnHeader>{label(labels, 'versions.tests')}</Table.ColumnHeader>
            <Table.ColumnHeader />
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {props.versions.map((v) => (
            <Table.Row key={v.id} data-testid={`version-${v.version}`}>
              <Table.Cell>{v.version}</Table.Cell>
              <Table.Cell>{v.author}</Table.Cell>
              <Table.Cell>{date.format(new Date(v.updatedAt))}</Table.Cell>
              <Table.Cell>
                <Badge colorPalette={v.inUse ? 'orange' : 'gray'}>
                  {label(labels, v.inUse ? 'inUseBadge' : 'draftBadge')}
                </Badge>
              </Table.Cell>
              <Table.Cell>
                {v.testReport
                  ? label(labels, 'tests.report', { passed: v.testReport.passed, failed: v.testReport.failed })
                  : '—'}
              </Table.Cell>
              <Table.Cell>
                {v.version === props.viewing ? (
                  <Text fontSize="sm" color="fg.muted">
                    {label(labels, 'versions.viewing')}
                  </Text>
                ) : (
                  <Button size="xs" variant="outline" onClick={() => props.onView(v.version)}>
                    {label(labels, 'versions.view')} {v.version}
                  </Button>
                )}
              </Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
    </Box>
  );
}
