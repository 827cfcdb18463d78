import { Box, Button, HStack, Input, NativeSelect, Stack, Table, Text } from '@chakra-ui/react';
import { ArrowDown, ArrowLeft, ArrowRight, ArrowUp, Plus } from 'lucide-react';
import { RemoveButton, RowButton } from './buttons.tsx';
import {
  addColumn,
  addRule,
  moveColumn,
  moveRule,
  removeColumn,
  removeRule,
  setCell,
  updateColumn,
  type Column,
  type Side,
  type TableModel,
} from '#lib/decisioning/editor-model.ts';
import { label, type Labels } from '../loans/labels.ts';

type Props = { table: TableModel; onChange: (table: TableModel) => void; readOnly: boolean; labels: Labels };

const L = (labels: Labels, key: string, vars?: Record<string, string | number>) => label(labels, `table.${key}`, vars);

/** Column headers of one side: label and field, move and remove. */
function Columns({ side, table, onChange, readOnly, labels }: Props & { side: Side }) {
  const list = table[side];
  return (
    <Stack gap="2" flex="1" minW="280px">
      <Text fontWeight="semibold">{L(labels, side)}</Text>
      {list.map((c: Column, i) => {
        const name = c.name || c.field || String(i + 1);
        return (
          <HStack key={c.id} gap="1" data-testid={`column-${side}-${i}`}>
            <Input
              size="sm"
              aria-label={`${L(labels, side)} ${i + 1}: ${L(labels, 'label')}`}
              placeholder={L(labels, 'label')}
              value={c.name}
              readOnly={readOnly}
              maxLength={120}
              onChange={(e) => onChange(updateColumn(table, side, i, { name: e.target.value }))}
            />
            <Input
              size="sm"
              fontFamily="mono"
              aria-label={`${L(labels, side)} ${i + 1}: ${L(labels, 'field')}`}
              placeholder={L(labels, 'field')}
              value={c.field}
              readOnly={readOnly}
              maxLength={200}
              onChange={(e) => onChange(updateColumn(table, side, i, { field: e.target.value }))}
            />
            {readOnly ? null : (
              <>
                <RowButton
                  label={L(labels, 'moveLeft', { name })}
                  disabled={i === 0}
                  onClick={() => onChange(moveColumn(table, side, i, -1))}
                >
                  <ArrowLeft />
                </RowButton>
                <RowButton
                  label={L(labels, 'moveRight', { name })}
                  disabled={i === list.length - 1}
                  onClick={() => onChange(moveColumn(table, side, i, 1))}
                >
                  <ArrowRight />
                </RowButton>
                <RemoveButton
                  label={L(labels, 'removeColumn', { name })}
                  onClick={() => onChange(removeColumn(table, side, i))}
                />
              </>
            )}
          </HStack>
        );
      })}
      {readOnly ? null : (
        <Box>
          <Button size="xs" variant="outline" onClick={() => onChange(addColumn(table, side))}>
            <Plus /> {L(labels, side === 'inputs' ? 'addInput' : 'addOutput')}
          </Button>
        </Box>
      )}
    </Stack>
  );
}

/** The decision table: hit policy, input and output columns, and the rules as rows of cells. */
export function TableEditor(props: Props) {
  const { table, onChange, readOnly, labels } = props;
  const columns = [...table.inputs, ...table.outputs];
  return (
    <Stack gap="4">
      <Box maxW="480px">
        <label htmlFor="hit-policy">
          <Text as="span" fontWeight="semibold">
            {L(labels, 'hitPolicy')}
          </Text>
        </label>
        <NativeSelect.Root size="sm" disabled={readOnly}>
          <NativeSelect.Field
            id="hit-policy"
            value={table.hitPolicy}
            onChange={(e) => onChange({ ...table, hitPolicy: e.target.value === 'collect' ? 'collect' : 'first' })}
          >
            <option value="first">{L(labels, 'first')}</option>
            <option value="collect">{L(labels, 'collect')}</option>
          </NativeSelect.Field>
          <NativeSelect.Indicator />
        </NativeSelect.Root>
      </Box>
      <HStack gap="6" align="start" flexWrap="wrap">
        <Columns {...props} side="inputs" />
        <Columns {...props} side="outputs" />
      </HStack>
      <Text fontSize="sm" color="fg.muted">
        {L(labels, 'help')}
      </Text>
      <Box overflowX="auto">
        <Table.Root size="sm" variant="outline" data-testid="rules-table">
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeader>{L(labels, 'number')}</Table.ColumnHeader>
              {table.inputs.map((c) => (
                <Table.ColumnHeader key={c.id} bg="blue.50">
                  {c.name || c.field}
                </Table.ColumnHeader>
              ))}
              {table.outputs.map((c) => (
                <Table.ColumnHeader key={c.id} bg="green.50">
                  {c.name || c.field}
                </Table.ColumnHeader>
              ))}
              <Table.ColumnHeader>{L(labels, 'description')}</Table.ColumnHeader>
              {readOnly ? null : <Table.ColumnHeader>{L(labels, 'actions')}</Table.ColumnHeader>}
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {table.rules.map((rule, r) => (
              <Table.Row key={rule._id} data-testid={`rule-${r}`}>
                <Table.Cell>{r + 1}</Table.Cell>
                {columns.map((c) => (
                  <Table.Cell key={c.id} minW="110px">
                    <Input
                      size="xs"
                      fontFamily="mono"
                      aria-label={L(labels, 'cell', { n: r + 1, column: c.name || c.field })}
                      value={rule[c.id] ?? ''}
                      readOnly={readOnly}
                      maxLength={500}
                      onChange={(e) => onChange(setCell(table, r, c.id, e.target.value))}
                    />
                  </Table.Cell>
                ))}
                <Table.Cell minW="180px">
                  <Input
                    size="xs"
                    aria-label={L(labels, 'cell', { n: r + 1, column: L(labels, 'description') })}
                    value={rule._description ?? ''}
                    readOnly={readOnly}
                    maxLength={300}
                    onChange={(e) => onChange(setCell(table, r, '_description', e.target.value))}
                  />
                </Table.Cell>
                {readOnly ? null : (
                  <Table.Cell whiteSpace="nowrap">
                    <RowButton
                      label={L(labels, 'moveUp', { n: r + 1 })}
                      disabled={r === 0}
                      onClick={() => onChange(moveRule(table, r, -1))}
                    >
                      <ArrowUp />
                    </RowButton>
                    <RowButton
                      label={L(labels, 'moveDown', { n: r + 1 })}
                      disabled={r === table.rules.length - 1}
                      onClick={() => onChange(moveRule(table, r, 1))}
                    >
                      <ArrowDown />
                    </RowButton>
                    <RemoveButton
                      label={L(labels, 'remove', { n: r + 1 })}
                      onClick={() => onChange(removeRule(table, r))}
                    />
                  </Table.Cell>
                )}
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      </Box>
      {table.rules.length === 0 ? <Text color="fg.muted">{L(labels, 'noRules')}</Text> : null}
      {readOnly ? null : (
        <Box>
          <Button size="sm" variant="outline" onClick={() => onChange(addRule(table))}>
            <Plus /> {L(labels, 'addRule')}
          </Button>
        </Box>
      )}
    </Stack>
  );
}
