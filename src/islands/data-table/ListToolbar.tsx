import { useEffect, useId, useRef, useState } from 'react';
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
};

type Panel = 'filters' | 'columns' | null;

/**
 * The list toolbar island: filter and column panels over the server-rendered table. It edits the
 * URL and navigates, so the server renders the new page (no second data path in the browser), and
 * it shows the loading state while the next page is on its way, for its own changes and for the
 * table's sort, tab and page links.
 *
 * Deliberately plain React styled by the house CSS (global.css buttons, list-view styles) rather
 * than Chakra: the Chakra runtime alone is ~84 KB brotli, which would push every list page over its
 * 170 KB JavaScript budget (npm run bench:js-size) for two popovers of checkboxes and inputs.
 */
export default function ListToolbar({ listPath, query, columns, visible, filters, labels }: Props) {
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
    const opener = document.activeElement as HTMLElement | null;
    panelRef.current?.querySelector<HTMLElement>('input, select, button')?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setPanel(null);
      // Back to the button that opened the panel, so keyboard users keep their place.
      opener?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [panel]);

  const setFilter = (key: string, value: string) => setDraftFilters((f) => ({ ...f, [key]: value }));
  const filterable = columns.filter((c) => c.filter);
  const activeCount = Object.keys(filters).length;

  return (
    <div className="list-toolbar-island">
      <div className="list-toolbar-row">
        <button
          type="button"
          className="button"
          aria-expanded={panel === 'filters'}
          aria-controls={`${baseId}-panel`}
          onClick={() => setPanel(panel === 'filters' ? null : 'filters')}
        >
          {labels.filters}
          {activeCount ? ` (${activeCount})` : ''}
        </button>
        <button
          type="button"
          className="button"
          aria-expanded={panel === 'columns'}
          aria-controls={`${baseId}-panel`}
          onClick={() => setPanel(panel === 'columns' ? null : 'columns')}
        >
          {labels.columns}
        </button>
        {isLoading ? (
          <span role="status" className="list-loading">
            {labels.loading}
          </span>
        ) : null}
      </div>
      {panel ? (
        <div
          id={`${baseId}-panel`}
          ref={panelRef}
          role="dialog"
          aria-label={panel === 'filters' ? labels.filters : labels.columns}
          className="list-panel"
        >
          {panel === 'filters' ? (
            <form
              onSubmit={(event) => {
                event.preventDefault();
                go(applyFilters(query, draftFilters));
              }}
            >
              <div className="list-panel-stack">
                {filterable.map((c) => (
                  <FilterField
                    key={c.key}
                    column={c}
                    value={draftFilters[c.key] ?? ''}
                    onChange={(v) => setFilter(c.key, v)}
                    labels={labels}
                    idPrefix={baseId}
                  />
                ))}
                <div className="list-panel-actions">
                  <button type="button" className="button" onClick={() => go(applyFilters(query, {}))}>
                    {labels.clearFilters}
                  </button>
                  <button type="submit" className="button button--primary">
                    {labels.apply}
                  </button>
                </div>
              </div>
            </form>
          ) : (
            <form
              onSubmit={(event) => {
                event.preventDefault();
                go(
                  applyColumns(
                    query,
                    draftColumns.filter((k) => !columns.find((c) => c.key === k)?.isRequired),
                  ),
                );
              }}
            >
              <div className="list-panel-stack">
                {columns.map((c) => (
                  <label key={c.key} style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
                    <input
                      type="checkbox"
                      checked={c.isRequired || draftColumns.includes(c.key)}
                      disabled={c.isRequired}
                      onChange={(event) =>
                        setDraftColumns((cols) =>
                          event.target.checked ? [...cols, c.key] : cols.filter((k) => k !== c.key),
                        )
                      }
                    />
                    {c.label}
                  </label>
                ))}
                <div className="list-panel-actions">
                  <button type="button" className="button" onClick={() => go(applyColumns(query, []))}>
                    {labels.reset}
                  </button>
                  <button type="submit" className="button button--primary">
                    {labels.apply}
                  </button>
                </div>
              </div>
            </form>
          )}
        </div>
      ) : null}
    </div>
  );
}

function FilterField({
  column,
  value,
  onChange,
  labels,
  idPrefix,
}: {
  column: ToolbarColumn;
  value: string;
  onChange: (value: string) => void;
  labels: Record<string, string>;
  idPrefix: string;
}) {
  const id = `${idPrefix}-${column.key}`;
  const [from, to] = splitRange(value);
  switch (column.filter) {
    case 'text':
      return (
        <div className="list-panel-field">
          <label htmlFor={id}>{column.label}</label>
          <input id={id} value={value} maxLength={100} onChange={(e) => onChange(e.target.value)} />
        </div>
      );
    case 'enum': {
      const chosen = value ? value.split(',') : [];
      return (
        <fieldset>
          <legend>{column.label}</legend>
          <div className="list-panel-options">
            {column.options.map((o) => (
              <label key={o.value} style={{ display: 'flex', gap: 6, alignItems: 'center' }}>
                <input
                  type="checkbox"
                  checked={chosen.includes(o.value)}
                  onChange={(e) =>
                    onChange((e.target.checked ? [...chosen, o.value] : chosen.filter((v) => v !== o.value)).join(','))
                  }
                />
                {o.label}
              </label>
            ))}
          </div>
        </fieldset>
      );
    }
    case 'boolean':
      return (
        <div className="list-panel-field">
          <label htmlFor={id}>{column.label}</label>
          <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
            <option value="">{labels.any}</option>
            <option value="true">{labels.yes}</option>
            <option value="false">{labels.no}</option>
          </select>
        </div>
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
          <div className="list-toolbar-row">
            <input
              type={type}
              inputMode={inputMode}
              aria-label={`${column.label} ${low}`}
              placeholder={low}
              value={from}
              onChange={(e) => onChange(rangeValue(e.target.value, to))}
            />
            <input
              type={type}
              inputMode={inputMode}
              aria-label={`${column.label} ${high}`}
              placeholder={high}
              value={to}
              onChange={(e) => onChange(rangeValue(from, e.target.value))}
            />
          </div>
        </fieldset>
      );
    }
    default:
      return null;
  }
}
