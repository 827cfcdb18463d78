/**
 * The portfolio pages' glue (Overview, risk by product and by branch): reads the URL (date, scope,
 * from/to months, sort, format), loads the board for the viewer (src/lib/analytics/portfolio.ts) and
 * gives the pages their formatters and links. No SQL here: the queries are in src/lib/analytics.
 */
import type { AstroGlobal } from 'astro';
import type { TFunction } from 'i18next';
import { boardScope, type ScopeOption } from '#lib/boards/scope-picker.ts';
import {
  figureLinks,
  portfolioBoardFromUrl,
  type Grouping,
  type PortfolioBoard,
  type PortfolioPart,
} from '#lib/analytics/portfolio.ts';
import { PAR_DAYS } from '#lib/analytics/portfolio-math.ts';
import { loadBoardMetrics, type BoardMetric } from '#lib/analytics/metrics.ts';
import {
  parseRiskSort,
  RISK_COLUMNS,
  riskExportTable,
  sortParts,
  type RiskColumn,
  type RiskSort,
} from '#lib/analytics/portfolio-table.ts';
import { isTableFormat, tableDownload } from '#lib/exports/table-download.ts';
import type { Language } from '#lib/i18n/index.ts';
import { formatDate, INTL_LOCALE } from '#lib/i18n/format.ts';
import { currencyDigits, fromMinor, toDecimalString } from '#lib/money/money.ts';
import type { Scope } from '#lib/tenancy/scope.ts';
import { businessDate } from '#lib/tenancy/tenant.ts';
import { pageContext } from '../../layouts/page-context.ts';

export type PortfolioPage = {
  t: TFunction;
  language: Language;
  path: string;
  params: URLSearchParams;
  picker: { value: string; options: ScopeOption[] };
  scope: Scope | null;
  /** Custom metrics shown on the boards (the overview only). */
  boardMetrics: BoardMetric[];
  board: PortfolioBoard;
  money: (minor: bigint) => string;
  /** Amount in major units for a chart's geometry only (tables and tiles use `money`). */
  major: (minor: bigint) => number;
  percent: (rate: number | null) => string;
  count: (n: number) => string;
  date: (d: string) => string;
  month: (m: string) => string;
  /** This page's URL with some parameters changed (null removes one); `format` always dropped. */
  link: (changes: Record<string, string | null>, path?: string) => string;
};

export async function portfolioPage(
  Astro: AstroGlobal,
  path: string,
  group: Grouping,
): Promise<PortfolioPage | Response> {
  const { db, t, language, principal, tenant } = await pageContext(Astro);
  if (!principal || !tenant) return Astro.redirect(`/user/login?redirect=${encodeURIComponent(path)}`);
  const params = Astro.url.searchParams;
  const { picker, board, scope, boardMetrics } = await db.tenant(tenant.id, async (tx) => {
    const picker = await boardScope(tx, principal, params.get('scope'));
    const today = await businessDate(tx, tenant.id);
    const loaded = await portfolioBoardFromUrl(tx, principal, params, {
      businessDate: today,
      currency: tenant.currency,
      group,
    });
    // The overview also shows the tenant's custom metrics marked "show on boards", over the same scope.
    const boardMetrics = group === 'all' ? await loadBoardMetrics(tx, principal, loaded.scope) : [];
    return { picker, ...loaded, boardMetrics };
  });
  const currency = board.currency;
  const digits = currencyDigits(currency);
  const monthFormat = new Intl.DateTimeFormat(INTL_LOCALE[language] ?? 'en-US', {
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
  const link = (changes: Record<string, string | null>, to = path) => {
    const next = new URLSearchParams(params);
    next.delete('format');
    for (const [k, v] of Object.entries(changes)) {
      if (v === null) next.delete(k);
      else next.set(k, v);
    }
    const text = next.toString().replace(/%2C/g, ',').replace(/%3A/g, ':');
    return text ? `${to}?${text}` : to;
  };
  // One formatter of each kind for the page (a board formats thousands of figures; building an
  // Intl.NumberFormat per figure cost more than the figures' queries): the same output as
  // formatMoney and formatNumber, which build theirs on every call.
  const moneyFormat = new Intl.NumberFormat(INTL_LOCALE[language] ?? 'en-US', { style: 'currency', currency });
  const percentFormat = new Intl.NumberFormat(INTL_LOCALE[language], { style: 'percent', maximumFractionDigits: 1 });
  const countFormat = new Intl.NumberFormat(INTL_LOCALE[language]);
  return {
    t,
    language,
    path,
    params,
    picker,
    scope,
    board,
    boardMetrics,
    money: (minor) => moneyFormat.format(toDecimalString(fromMinor(minor, currency)) as unknown as number),
    major: (minor) => Number(minor) / 10 ** digits,
    percent: (rate) => (rate === null ? '—' : percentFormat.format(rate)),
    count: (n) => countFormat.format(n),
    date: (d) => formatDate(d, language),
    month: (m) => monthFormat.format(new Date(`${m}-01T00:00:00Z`)),
    link,
  };
}

/** One figure tile: its value, label, a detail line and the list or board behind it. */
export type FigureTile = { key: string; label: string; value: string; detail: string; href: string };

/** The tiles of a portfolio (or of one product or branch): each links to the list or board behind it. */
export function figureTiles(
  page: PortfolioPage,
  part: PortfolioPart,
  links: ReturnType<typeof figureLinks>,
): FigureTile[] {
  const { t, board, money, percent, count } = page;
  const f = part.figures;
  const monthStart = `${board.date.slice(0, 8)}01`;
  const inMonth = t('risk:details.month_to_date', { from: page.date(monthStart), to: page.date(board.date) });
  return [
    {
      key: 'active',
      label: t('risk:figures.active'),
      value: count(f.activeLoans),
      detail: '',
      href: links.active,
    },
    {
      key: 'outstanding',
      label: t('risk:figures.outstanding'),
      value: money(f.outstandingPrincipal),
      detail: t('risk:details.outstanding_total', { amount: money(f.outstandingTotal) }),
      href: links.active,
    },
    ...PAR_DAYS.map((d) => ({
      key: `par${d}`,
      label: t(`analytics:par.par${d}_long`),
      value: percent(f.par[d].rate),
      detail: t('risk:details.par', { count: f.par[d].loans, amount: money(f.par[d].amount) }),
      href: links.par[d],
    })),
    {
      key: 'disbursed',
      label: t('risk:figures.disbursed'),
      value: money(f.disbursed.amount),
      detail: `${t('risk:details.loans', { count: f.disbursed.count })} · ${inMonth}`,
      href: links.disbursed,
    },
    {
      key: 'written_off',
      label: t('risk:figures.written_off'),
      value: money(f.writtenOff.principal),
      detail: `${t('risk:details.loans', { count: f.writtenOff.count })} · ${inMonth}`,
      href: links.writtenOff,
    },
    {
      key: 'collected',
      label: t('risk:figures.collected'),
      value: money(f.collected),
      detail: inMonth,
      href: links.collected,
    },
    {
      key: 'yield',
      label: t('risk:figures.yield'),
      value: percent(part.yield),
      detail: t('risk:details.yield_window', {
        from: page.month(board.yieldFrom.slice(0, 7)),
        to: page.month(board.yieldTo.slice(0, 7)),
      }),
      href: links.revenue,
    },
  ];
}

/** A risk page (by product or branch, one of its views): the board, its sorted parts, or the download. */
export async function riskPage(
  Astro: AstroGlobal,
  group: 'product' | 'branch',
  view: 'board' | 'cards' | 'view',
): Promise<
  | Response
  | {
      page: PortfolioPage;
      group: typeof group;
      view: typeof view;
      headers: Record<RiskColumn, string>;
      sort: RiskSort;
      parts: PortfolioPart[];
    }
> {
  const path = `/analytics/risk/${group}${view === 'board' ? '' : `/${view}`}`;
  const page = await portfolioPage(Astro, path, group);
  if (page instanceof Response) return page;
  const { t, board } = page;
  const headers = Object.fromEntries(
    RISK_COLUMNS.map((k) => [
      k,
      k === 'name'
        ? t(`risk:${group}.group`)
        : /^par\d+$/.test(k)
          ? t(`analytics:par.${k}`)
          : /^par\d+_amount$/.test(k)
            ? t('risk:figures.par_amount', { par: t(`analytics:par.${k.replace('_amount', '')}`) })
            : t(`risk:figures.${k}`),
    ]),
  ) as Record<RiskColumn, string>;
  const sort = parseRiskSort(page.params.get('sort'));
  const noName = t('risk:branch.none');
  const parts = view === 'view' ? sortParts(board.parts, sort, noName) : board.parts;
  const format = page.params.get('format');
  if (view === 'view' && isTableFormat(format))
    return tableDownload(
      riskExportTable(parts, board.total, headers, board.currency, { noName, total: t('analytics:total') }),
      format,
      `risk-${group}-${board.date}`,
      t(`risk:${group}.title`),
    );
  return { page, group, view, headers, sort, parts };
}
