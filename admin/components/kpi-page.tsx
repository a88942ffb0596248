import React, { useEffect, useRef, useState } from 'react';
import { Box, H2, H5 } from '@adminjs/design-system';
import { ApiClient, useTranslation } from 'adminjs';
import { BREAKDOWNS, DEFAULT_PERIOD, KpiControls, type KpiQuery, type Period } from './kpi-controls.js';
import { BreakdownChart, RatesChart, StatusDaysChart, type KpiFigures, type KpiReport } from './kpi-charts.js';
import { cardStyle } from './status-palette.js';
import { ReturnsSection, SpeedSection } from './kpi-speed-section.js';
import type { SpeedReport } from './kpi-speed-charts.js';
import { useFigures } from './local-text.js';
import { StockWord } from './lead-parts.js';

interface Answer {
  report?: KpiReport;
  /** Speed to lead and return rate over the same period (services.kpi.speed). */
  speed?: SpeedReport;
  accounts?: { id: number; name: string }[];
  refusal?: string;
  /** The last fold's time written in the report's zone, and today's date there (admin/pages/kpi-page.ts). */
  as_of_text?: string;
  today?: string;
  /** The products at or below their low-stock threshold now (docs/stock.md), the first ten. */
  low_stock?: { data: LowLevel[]; total: number };
}

interface LowLevel {
  sku: string;
  name: string;
  warehouse: string;
  available: number;
  low_stock_threshold: number;
}

/** The products at or below their threshold, with what is left: the seller's reorder list. */
function LowStock({ low }: { low: { data: LowLevel[]; total: number } }) {
  const { translateComponent: tc } = useTranslation();
  const { number } = useFigures();
  return (
    <div style={card} data-testid="kpi-low-stock">
      <H5 mb="default">{tc('kpi.lowStock', { count: low.total, formatted: number(low.total) })}</H5>
      {low.data.length === 0 ? (
        <p>{tc('kpi.noLowStock')}</p>
      ) : (
        <table style={{ borderCollapse: 'collapse', fontSize: 14 }}>
          <tbody>
            {low.data.map((l) => (
              <tr key={`${l.sku} ${l.warehouse}`}>
                <td style={{ ...cell, textAlign: 'start' }}>
                  <span dir="ltr" style={{ fontFamily: 'monospace' }}>
                    {l.sku}
                  </span>{' '}
                  {l.name} · {l.warehouse}
                </td>
                <td style={cell}>
                  {tc('kpi.lowOf', { available: number(l.available), threshold: number(l.low_stock_threshold) })}
                </td>
                <td style={cell}>
                  <StockWord available={l.available} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

const api = new ApiClient();

const card = cardStyle();
const grid = (min: number): React.CSSProperties => ({
  display: 'grid',
  gridTemplateColumns: `repeat(auto-fill, minmax(${min}px, 1fr))`,
  gap: 16,
});
const cell: React.CSSProperties = { padding: '6px 10px', borderBottom: '1px solid #e5e7eb', textAlign: 'end' };

/** The figures' names, in the order of the tiles and the breakdown's columns. */
const FIGURES = ['leads', 'confirmed', 'confirmation_rate', 'delivered', 'delivery_rate'] as const;
/** A figure of a row in the reader's language: a rate as a percentage (41,2 % in French), a count as a number. */
function useShown() {
  const { number, percent } = useFigures();
  return (f: KpiFigures, key: (typeof FIGURES)[number]) =>
    key.endsWith('_rate') ? percent(f[key] as number | null) : number(f[key] as number);
}

function Totals({ totals }: { totals: KpiFigures }) {
  const { translateComponent: tc } = useTranslation();
  const shown = useShown();
  const tiles = FIGURES.map((key) => [tc(`kpi.figures.${key}`), shown(totals, key)] as const);
  return (
    <div style={grid(150)} data-testid="kpi-totals">
      {tiles.map(([label, value]) => (
        <div key={label} style={card}>
          <div style={{ color: '#4b5563', fontSize: 13 }}>{label}</div>
          <div style={{ fontSize: 26, fontWeight: 700 }}>{value}</div>
        </div>
      ))}
    </div>
  );
}

function BreakdownTable({ report }: { report: KpiReport }) {
  const { translateComponent: tc } = useTranslation();
  const shown = useShown();
  if (!report.breakdown.length) return <p>{tc('kpi.noLeads')}</p>;
  return (
    <table data-testid="kpi-breakdown" style={{ borderCollapse: 'collapse', width: '100%', fontSize: 14 }}>
      <thead>
        <tr>
          <th style={{ ...cell, textAlign: 'start' }}>{tc(`kpi.by.${report.by}`)}</th>
          {FIGURES.map((key) => (
            <th key={key} style={cell}>
              {tc(`kpi.figures.${key}`)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {report.breakdown.map((r) => (
          <tr key={r.key}>
            <td style={{ ...cell, textAlign: 'start' }}>{r.label}</td>
            {FIGURES.map((key) => (
              <td key={key} style={cell}>
                {shown(r, key)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The KPI dashboard: leads per day by status, confirmation and delivery rates, and a breakdown by product, city,
 * source or agent, then speed to lead and return rate (admin/components/kpi-speed-section.tsx), over a chosen period. Figures come from the page's handler (admin/pages/kpi-page.ts →
 * services.kpi); the charts are chart.js, bundled with the panel (the page loads nothing from elsewhere).
 */
export default function KpiPage() {
  const { translateComponent: tc } = useTranslation();
  const [{ query, period }, setChoice] = useState<{ query: KpiQuery; period: Period }>({
    // no dates: the server answers the default period (30 days) ending today in the account's zone
    query: { from: '', to: '', by: BREAKDOWNS[0], account_id: '' },
    period: DEFAULT_PERIOD,
  });
  const [answer, setAnswer] = useState<Answer | null>(null);
  useEffect(() => {
    // an answer that comes after the query changed again is dropped (a late "Last 7 days" over "Last 90 days")
    let current = true;
    const params = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== ''));
    api
      .getPage({ pageName: 'kpi', params })
      .then((res) => current && setAnswer(res.data as Answer))
      .catch(() => current && setAnswer({ refusal: tc('kpi.loadFailed') }));
    return () => {
      current = false;
    };
  }, [query]);
  const report = answer?.report;
  return (
    <Box p="xxl" data-testid="kpi-page">
      <H2 mb="lg">{tc('kpi.title')}</H2>
      <KpiControls
        query={query}
        period={period}
        accounts={answer?.accounts}
        shown={report && answer?.today ? { from: report.from, to: report.to, today: answer.today } : undefined}
        set={(q, p) => setChoice({ query: q, period: p })}
      />
      {answer?.refusal && (
        <p role="alert" style={{ color: '#b91c1c' }}>
          {answer.refusal}
        </p>
      )}
      {!answer && <p>{tc('kpi.loading')}</p>}
      {report && (
        <div style={{ display: 'grid', gap: 20 }}>
          <Totals totals={report.totals} />
          <div style={card}>
            <H5 mb="default">{tc('kpi.leadsPerDay', { from: report.from, to: report.to, zone: report.time_zone })}</H5>
            <StatusDaysChart report={report} />
          </div>
          <div style={card}>
            <H5 mb="default">{tc('kpi.rates')}</H5>
            <RatesChart report={report} />
          </div>
          <div style={card}>
            <H5 mb="default">{tc('kpi.breakdown')}</H5>
            <BreakdownChart report={report} />
            <BreakdownTable report={report} />
          </div>
          {answer?.speed && <SpeedSection speed={answer.speed} />}
          {answer?.speed && <ReturnsSection speed={answer.speed} />}
          {answer?.low_stock && <LowStock low={answer.low_stock} />}
          <small style={{ color: '#6b7280' }}>{tc('kpi.asOf', { when: answer?.as_of_text ?? report.as_of })}</small>
        </div>
      )}
    </Box>
  );
}
