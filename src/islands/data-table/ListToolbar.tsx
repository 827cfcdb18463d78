import { Box, Button, HStack, Input, Stack, Text } from '@chakra-ui/react';
import { useEffect, useId, useRef, useState } from 'react';
import type { Language } from '../../lib/i18n/index.ts';
import { IslandProvider } from '../ui/provider.tsx';
import { applyColumns, applyFilters, rangeValue, splitRange, type FilterKind } from './toolbar-state.ts';

export type ToolbarColumn = {
  key: string;
  label: string;
  isRequired: boolean;
  filter: FilterKind | null;
  options: { value: string; label: string }[];
};

type Props = {
  listPath: string;
  /** The page's current query string (without position). */
  query: string;
  columns: ToolbarColumn[];
  visible: string[];
  filters: Record<string, string>;
  /** Texts translated on the server, so the island ships no translation bundle of its own. */
  labels: Record<string, string>;
  language: Language;
};

type Panel = 'filters' | 'columns' | null;

/**
 * The list toolbar island: filter and column panels over the server-rendered table. It edits the
 * URL and navigates, so the server renders the new page (no second data path in the browser), and
 * it shows the loading state while the next page is on its way, for its own changes and for the
 * table's sort, tab and page links.
 */
export default function ListToolbar(props: Props) {
  return (
    <IslandProvider language={props.language} module="data-table/ListToolbar">
      <Toolbar {...props} />
    </IslandProvider>
  );
}

function Toolbar({ listPath, query, columns, visible, filters, labels }: Props) {
  const [panel, setPanel] = useState<Panel>(null);
  const [draftFilters, setDraftFilters] = useState<Record<string, string>>(filters);
  const [draftColumns, setDraftColumns] = useState<string[]>(visible);
  const [isLoading, setIsLoading] = useState(false);
  const panelRef = useRef<HTMLDivElement>(null);
  const baseId = useId();

  const go = (nextQuery: string) => {
    setIsLoading(true);
    window.location.assign(nextQuery ? `${listPath}?${nextQuery}` : listPath);
  };

  useEffect(() => {
    // Links and forms of the server-rendered list navigate too: show the same loading state.
    const root = document.querySelector('.list-view');
    const onNavigate = (event: Event) => {
      const target = event.target as HTMLElement | null;
      if (event.type === 'submit' || target?.closest('a[href]')) setIsLoading(true);
    };
    root?.addEventListener('click', onNavigate);
    root?.addEventListener('submit', onNavigate);
    // Coming back through the browser's cache must not leave the spinner on.
    const onShow = () => setIsLoading(false);
    window.addEventListener('pageshow', onShow);
    return () => {
      root?.removeEventListener('click', onNavigate);
      root?.removeEventListener('submit', onNavigate);
      window.removeEventListener('pageshow', onShow);
    };
  }, []);

  useEffect(() => {
    if (!panel) return;
    panelRef.current?.querySelector<HTMLElement>('input, select, button')?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setPanel(null);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [panel]);

  const setFilter = (key: string, value: string) => setDraftFilters((f) => ({ ...f, [key]: value }));
  const filterable = columns.filter((c) => c.filter);
  const activeCount = Object.keys(filters).length;

  return (
    <Box position="relative">
      <HStack gap="2">
        <Button size="sm" variant="outline" aria-expanded={panel === 'filters'} aria-controls={`${baseId}-panel`} onClick={() => setPanel(panel === 'filters' ? null : 'filters')}>
          {labels.filters}{activeCount ? ` (${activeCount})` : ''}
        </Button>
        <Button size="sm" variant="outline" aria-expanded={panel === 'columns'} aria-controls={`${baseId}-panel`} onClick={() => setPanel(panel === 'columns' ? null : 'columns')}>
          {labels.columns}
        </Button>
        {isLoading ? <Text role="status" fontSize="sm" color="fg.muted">{labels.loading}</Text> : null}
      </HStack>
      {panel ? (
        <Box
          id={`${baseId}-panel`}
          ref={panelRef}
          role="dialog"
          aria-label={panel === 'filters' ? labels.filters : labels.columns}
          position="absolute"
          zIndex="10"
          mt="2"
          p="4"
          bg="white"
          borderWidth="1px"
          borderRadius="md"
          boxShadow="md"
          minW="320px"
          maxH="70vh"
          overflowY="auto"
        >
          {panel === 'filters' ? (
            <form
              onSubmit={(event) => {
                event.preventDefault();
                go(applyFilters(query, draftFilters));
              }}
            >
              <Stack gap="3">
                {filterable.map((c) => (
                  <FilterField key={c.key} column={c} value={draftFilters[c.key] ?? ''} onChange={(v) => setFilter(c.key, v)} labels={labels} idPrefix={baseId} />
                ))}
                <HStack justify="flex-end" gap="2">
                  <Button size="sm" variant="ghost" onClick={() => go(applyFilters(query, {}))}>{labels.clearFilters}</Button>
                  <Button size="sm" type="submit" colorPalette="brand">{labels.apply}</Button>
                </HStack>
              </Stack>
            </form>
          ) : (
            <form
              onSubmit={(event) => {
                event.preventDefault();
                go(applyColumns(query, draftColumns.filter((k) => !columns.find((c) => c.key === k)?.isRequired)));
              }}
            >
              <Stack gap="2">
                {columns.map((c) => (
                  <label key={c.key} style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
                    <input
                      type="checkbox"
                      checked={c.isRequired || draftColumns.includes(c.key)}
                      disabled={c.isRequired}
                      onChange={(event) =>
                        setDraftColumns((cols) => (event.target.checked ? [...cols, c.key] : cols.filter((k) => k !== c.key)))
                      }
                    />
                    {c.label}
                  </label>
                ))}
                <HStack justify="flex-end" gap="2">
                  <Button size="sm" variant="ghost" onClick={() => go(applyColumns(query, []))}>{labels.reset}</Button>
                  <Button size="sm" type="submit" colorPalette="brand">{labels.apply}</Button>
                </HStack>
              </Stack>
            </form>
          )}
        </Box>
      ) : null}
    </Box>
  );
}

function FilterField({ column, value, onChange, labels, idPrefix }: { column: ToolbarColumn; value: string; onChange: (value: string) => void; labels: Record<string, string>; idPrefix: string }) {
  const id = `${idPrefix}-${column.key}`;
  const [from, to] = splitRange(value);
  switch (column.filter) {
    case 'text':
      return (
        <Stack gap="1">
          <label htmlFor={id}>{column.label}</label>
          <Input id={id} size="sm" value={value} maxLength={100} onChange={(e) => onChange(e.target.value)} />
        </Stack>
      );
    case 'enum': {
      const chosen = value ? value.split(',') : [];
      return (
        <fieldset>
          <legend>{column.label}</legend>
          <HStack wrap="wrap" gap="3">
            {column.options.map((o) => (
              <label key={o.value} style={{ display: 'flex', gap: 6, alignItems: 'center' }}>
                <input
                  type="checkbox"
                  checked={chosen.includes(o.value)}
                  onChange={(e) => onChange((e.target.checked ? [...chosen, o.value] : chosen.filter((v) => v !== o.value)).join(','))}
                />
                {o.label}
              </label>
            ))}
          </HStack>
        </fieldset>
      );
    }
    case 'boolean':
      return (
        <Stack gap="1">
          <label htmlFor={id}>{column.label}</label>
          <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
            <option value="">{labels.any}</option>
            <option value="true">{labels.yes}</option>
            <option value="false">{labels.no}</option>
          </select>
        </Stack>
      );
    case 'date-range':
    case 'money-range':
    case 'number-range': {
      const type = column.filter === 'date-range' ? 'date' : 'text';
      const inputMode = column.filter === 'date-range' ? undefined : 'decimal';
      const [low, high] = column.filter === 'date-range' ? [labels.from, labels.to] : [labels.min, labels.max];
      return (
        <fieldset>
          <legend>{column.label}</legend>
          <HStack gap="2">
            <Input size="sm" type={type} inputMode={inputMode} aria-label={`${column.label} ${low}`} placeholder={low} value={from} onChange={(e) => onChange(rangeValue(e.target.value, to))} />
            <Input size="sm" type={type} inputMode={inputMode} aria-label={`${column.label} ${high}`} placeholder={high} value={to} onChange={(e) => onChange(rangeValue(from, e.target.value))} />
          </HStack>
        </fieldset>
      );
    }
    default:
      return null;
  }
}
