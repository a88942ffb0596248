import React, { useEffect, useRef, useState } from 'react';
import { Box, H2, H5 } from '@adminjs/design-system';
import { ApiClient, useTranslation } from 'adminjs';
import { BreakdownChart, RatesChart, StatusDaysChart, type KpiFigures, type KpiReport } from './kpi-charts.js';

interface Answer {
  report?: KpiReport;
  accounts?: { id: number; name: string }[];
  refusal?: string;
}
interface Query {
  from: string;
  to: string;
  by: string;
  account_id: string;
}

const api = new ApiClient();
/** The breakdowns and the key of their words in admin/locales/*.json (components.kpi.*). */
const BREAKDOWNS = [
  ['product', 'kpi.byProduct'],
  ['city', 'kpi.byCity'],
  ['source', 'kpi.bySource'],
  ['agent', 'kpi.byAgent'],
] as const;
/** The figures' columns and tiles, in order, with their words' keys. */
const FIGURES = ['kpi.leads', 'kpi.confirmed', 'kpi.confirmationRate', 'kpi.delivered', 'kpi.deliveryRate'] as const;

const card: React.CSSProperties = {
  background: '#fff',
  borderRadius: 8,
  padding: 18,
  boxShadow: '0 1px 3px rgba(0,0,0,0.08)',
  minWidth: 0,
};
const grid = (min: number): React.CSSProperties => ({
  display: 'grid',
  gridTemplateColumns: `repeat(auto-fill, minmax(${min}px, 1fr))`,
  gap: 16,
});
const cell: React.CSSProperties = { padding: '6px 10px', borderBottom: '1px solid #e5e7eb', textAlign: 'end' };

/** The last `days` UTC days, today included. */
function lastDays(days: number): { from: string; to: string } {
  const to = new Date();
  const from = new Date(to.getTime() - (days - 1) * 86_400_000);
  return { from: from.toISOString().slice(0, 10), to: to.toISOString().slice(0, 10) };
}

const percent = (v: number | null) => (v === null ? '—' : `${v}%`);

function Totals({ totals }: { totals: KpiFigures }) {
  const { translateComponent } = useTranslation();
  const values = [
    totals.leads,
    totals.confirmed,
    percent(totals.confirmation_rate),
    totals.delivered,
    percent(totals.delivery_rate),
  ];
  const tiles: [string, string | number][] = FIGURES.map((key, i) => [translateComponent(key), values[i]]);
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
  const { translateComponent } = useTranslation();
  if (!report.breakdown.length) return <p>{translateComponent('kpi.noLeads')}</p>;
  const by = BREAKDOWNS.find(([k]) => k === report.by)?.[1];
  return (
    <table data-testid="kpi-breakdown" style={{ borderCollapse: 'collapse', width: '100%', fontSize: 14 }}>
      <thead>
        <tr>
          <th style={{ ...cell, textAlign: 'start' }}>{by ? translateComponent(by) : report.by}</th>
          {FIGURES.map((h) => (
            <th key={h} style={cell}>
              {translateComponent(h)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {report.breakdown.map((r) => (
          <tr key={r.key}>
            <td style={{ ...cell, textAlign: 'start' }}>{r.label}</td>
            <td style={cell}>{r.leads}</td>
            <td style={cell}>{r.confirmed}</td>
            <td style={cell}>{percent(r.confirmation_rate)}</td>
            <td style={cell}>{r.delivered}</td>
            <td style={cell}>{percent(r.delivery_rate)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Controls({ query, set, accounts }: { query: Query; set: (q: Query) => void; accounts?: Answer['accounts'] }) {
  const { translateComponent } = useTranslation();
  return (
    <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'center', marginBottom: 20 }}>
      {[7, 30, 90].map((n) => (
        <button key={n} type="button" data-testid={`kpi-last-${n}`} onClick={() => set({ ...query, ...lastDays(n) })}>
          {translateComponent('kpi.lastDays', { count: n })}
        </button>
      ))}
      <label>
        {translateComponent('kpi.from')}{' '}
        <input type="date" value={query.from} onChange={(e) => set({ ...query, from: e.target.value })} />
      </label>
      <label>
        {translateComponent('kpi.to')}{' '}
        <input type="date" value={query.to} onChange={(e) => set({ ...query, to: e.target.value })} />
      </label>
      <label>
        {translateComponent('kpi.by')}{' '}
        <select value={query.by} onChange={(e) => set({ ...query, by: e.target.value })} data-testid="kpi-by">
          {BREAKDOWNS.map(([value, label]) => (
            <option key={value} value={value}>
              {translateComponent(label)}
            </option>
          ))}
        </select>
      </label>
      {accounts && (
        <label>
          {translateComponent('common.account')}{' '}
          <select value={query.account_id} onChange={(e) => set({ ...query, account_id: e.target.value })}>
            <option value="">{translateComponent('common.allAccounts')}</option>
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}

/**
 * The KPI dashboard: leads per day by status, confirmation and delivery rates, and a breakdown by product, city,
 * source or agent, over a chosen period. Figures come from the page's handler (admin/pages/kpi-page.ts →
 * services.kpi); the charts are chart.js, bundled with the panel (the page loads nothing from elsewhere).
 */
export default function KpiPage() {
  const { translateComponent } = useTranslation();
  // read when a request fails: as a dependency of the request it would ask the server again on every render
  const words = useRef(translateComponent);
  words.current = translateComponent;
  const [query, setQuery] = useState<Query>({ ...lastDays(30), by: 'product', account_id: '' });
  const [answer, setAnswer] = useState<Answer | null>(null);
  useEffect(() => {
    // an answer that comes after the query changed again is dropped (a late "Last 7 days" over "Last 90 days")
    let current = true;
    const params = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== ''));
    api
      .getPage({ pageName: 'kpi', params })
      .then((res) => current && setAnswer(res.data as Answer))
      .catch(() => current && setAnswer({ refusal: words.current('kpi.unreachable') }));
    return () => {
      current = false;
    };
  }, [query]);
  const report = answer?.report;
  return (
    <Box p="xxl" data-testid="kpi-page">
      <H2 mb="lg">{translateComponent('kpi.title')}</H2>
      <Controls query={query} set={setQuery} accounts={answer?.accounts} />
      {answer?.refusal && (
        <p role="alert" style={{ color: '#b91c1c' }}>
          {answer.refusal}
        </p>
      )}
      {!answer && <p>{translateComponent('common.loadingFigures')}</p>}
      {report && (
        <div style={{ display: 'grid', gap: 20 }}>
          <Totals totals={report.totals} />
          <div style={card}>
            <H5 mb="default">{translateComponent('kpi.perDay', { from: report.from, to: report.to })}</H5>
            <StatusDaysChart report={report} />
          </div>
          <div style={card}>
            <H5 mb="default">{translateComponent('kpi.rates')}</H5>
            <RatesChart report={report} />
          </div>
          <div style={card}>
            <H5 mb="default">{translateComponent('kpi.breakdown')}</H5>
            <BreakdownChart report={report} />
            <BreakdownTable report={report} />
          </div>
          <small style={{ color: '#6b7280' }}>
            {translateComponent('kpi.asOf', { time: report.as_of.replace('T', ' ').slice(0, 16) })}
          </small>
        </div>
      )}
    </Box>
  );
}
