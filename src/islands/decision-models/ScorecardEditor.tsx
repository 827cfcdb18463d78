import { Box, Button, HStack, Input, Stack, Table, Text } from '@chakra-ui/react';
import { Plus } from 'lucide-react';
import { RemoveButton } from './buttons.tsx';
import { newId, type Characteristic, type Cutoff, type Scorecard } from '#lib/decisioning/editor-model.ts';
import { label, type Labels } from '../loans/labels.ts';

type Props = { card: Scorecard; onChange: (card: Scorecard) => void; readOnly: boolean; labels: Labels };

const L = (labels: Labels, key: string, vars?: Record<string, string | number>) =>
  label(labels, `scorecard.${key}`, vars);

const num = (text: string) => (text.trim() === '' || Number.isNaN(Number(text)) ? 0 : Number(text));

/** A scorecard: base score, characteristics with their bins, and the cut-offs. */
export function ScorecardEditor({ card, onChange, readOnly, labels }: Props) {
  const setChar = (i: number, patch: Partial<Characteristic>) =>
    onChange({ ...card, characteristics: card.characteristics.map((c, j) => (j === i ? { ...c, ...patch } : c)) });
  const setCutoff = (i: number, patch: Partial<Cutoff>) =>
    onChange({ ...card, cutoffs: card.cutoffs.map((c, j) => (j === i ? { ...c, ...patch } : c)) });
  return (
    <Stack gap="5">
      <Text fontSize="sm" color="fg.muted">
        {L(labels, 'help')}
      </Text>
      <HStack gap="2" maxW="320px">
        <label htmlFor="base-score">
          <Text as="span" fontWeight="semibold" whiteSpace="nowrap">
            {L(labels, 'base')}
          </Text>
        </label>
        <Input
          id="base-score"
          size="sm"
          type="number"
          value={String(card.baseScore)}
          readOnly={readOnly}
          onChange={(e) => onChange({ ...card, baseScore: num(e.target.value) })}
        />
      </HStack>
      <Text as="h3" fontWeight="semibold">
        {L(labels, 'characteristics')}
      </Text>
      {card.characteristics.map((ch, i) => (
        <Box key={ch.id} borderWidth="1px" borderRadius="md" p="3" data-testid={`characteristic-${i}`}>
          <HStack gap="2" mb="2" flexWrap="wrap">
            <Input
              size="sm"
              maxW="240px"
              aria-label={`${L(labels, 'characteristics')} ${i + 1}: ${L(labels, 'name')}`}
              placeholder={L(labels, 'name')}
              value={ch.name}
              readOnly={readOnly}
              maxLength={120}
              onChange={(e) => setChar(i, { name: e.target.value })}
            />
            <Input
              size="sm"
              maxW="280px"
              fontFamily="mono"
              aria-label={`${L(labels, 'characteristics')} ${i + 1}: ${L(labels, 'field')}`}
              placeholder={L(labels, 'field')}
              value={ch.field}
              readOnly={readOnly}
              maxLength={200}
              onChange={(e) => setChar(i, { field: e.target.value })}
            />
            {readOnly ? null : (
              <RemoveButton
                label={L(labels, 'removeCharacteristic', { name: ch.name || ch.field || String(i + 1) })}
                onClick={() => onChange({ ...card, characteristics: card.characteristics.filter((_, j) => j !== i) })}
              />
            )}
          </HStack>
          <Table.Root size="sm" maxW="560px">
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeader>{L(labels, 'condition')}</Table.ColumnHeader>
                <Table.ColumnHeader>{L(labels, 'points')}</Table.ColumnHeader>
                {readOnly ? null : <Table.ColumnHeader />}
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {ch.bins.map((bin, b) => (
                <Table.Row key={bin.id}>
                  <Table.Cell>
                    <Input
                      size="xs"
                      fontFamily="mono"
                      aria-label={`${ch.name || ch.field} ${b + 1}: ${L(labels, 'condition')}`}
                      value={bin.condition}
                      readOnly={readOnly}
                      maxLength={200}
                      onChange={(e) =>
                        setChar(i, { bins: ch.bins.map((x, k) => (k === b ? { ...x, condition: e.target.value } : x)) })
                      }
                    />
                  </Table.Cell>
                  <Table.Cell>
                    <Input
                      size="xs"
                      type="number"
                      aria-label={`${ch.name || ch.field} ${b + 1}: ${L(labels, 'points')}`}
                      value={String(bin.points)}
                      readOnly={readOnly}
                      onChange={(e) =>
                        setChar(i, {
                          bins: ch.bins.map((x, k) => (k === b ? { ...x, points: num(e.target.value) } : x)),
                        })
                      }
                    />
                  </Table.Cell>
                  {readOnly ? null : (
                    <Table.Cell>
                      <RemoveButton
                        label={L(labels, 'removeBin', { n: b + 1 })}
                        onClick={() => setChar(i, { bins: ch.bins.filter((_, k) => k !== b) })}
                      />
                    </Table.Cell>
                  )}
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
          {readOnly ? null : (
            <Button
              mt="2"
              size="xs"
              variant="outline"
              onClick={() => setChar(i, { bins: [...ch.bins, { id: newId('b'), condition: '', points: 0 }] })}
            >
              <Plus /> {L(labels, 'addBin')}
            </Button>
          )}
        </Box>
      ))}
      {readOnly ? null : (
        <Box>
          <Button
            size="sm"
            variant="outline"
            onClick={() =>
              onChange({
                ...card,
                characteristics: [...card.characteristics, { id: newId('c'), name: '', field: '', bins: [] }],
              })
            }
          >
            <Plus /> {L(labels, 'addCharacteristic')}
          </Button>
        </Box>
      )}
      <Text as="h3" fontWeight="semibold">
        {L(labels, 'cutoffs')}
      </Text>
      <Table.Root size="sm" maxW="760px">
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeader>{L(labels, 'minScore')}</Table.ColumnHeader>
            <Table.ColumnHeader>{L(labels, 'decision')}</Table.ColumnHeader>
            <Table.ColumnHeader>{L(labels, 'limit')}</Table.ColumnHeader>
            <Table.ColumnHeader>{L(labels, 'rate')}</Table.ColumnHeader>
            {readOnly ? null : <Table.ColumnHeader />}
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {card.cutoffs.map((c, i) => (
            <Table.Row key={c.id}>
              {(
                [
                  ['minScore', String(c.minScore)],
                  ['decision', c.decision],
                  ['limit', c.limit ?? ''],
                  ['rate', c.rate ?? ''],
                ] as const
              ).map(([key, value]) => (
                <Table.Cell key={key}>
                  <Input
                    size="xs"
                    type={key === 'minScore' ? 'number' : 'text'}
                    aria-label={`${L(labels, 'cutoffs')} ${i + 1}: ${L(labels, key)}`}
                    value={value}
                    readOnly={readOnly}
                    maxLength={200}
                    onChange={(e) =>
                      setCutoff(i, key === 'minScore' ? { minScore: num(e.target.value) } : { [key]: e.target.value })
                    }
                  />
                </Table.Cell>
              ))}
              {readOnly ? null : (
                <Table.Cell>
                  <RemoveButton
                    label={L(labels, 'removeCutoff', { n: i + 1 })}
                    onClick={() => onChange({ ...card, cutoffs: card.cutoffs.filter((_, j) => j !== i) })}
                  />
                </Table.Cell>
              )}
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
      {readOnly ? null : (
        <Box>
          <Button
            size="sm"
            variant="outline"
            onClick={() =>
              onChange({
                ...card,
                cutoffs: [...card.cutoffs, { id: newId('k'), minScore: 0, decision: 'refer', limit: '', rate: '' }],
              })
            }
          >
            <Plus /> {L(labels, 'addCutoff')}
          </Button>
        </Box>
      )}
    </Stack>
  );
}
