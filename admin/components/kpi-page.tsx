import React, { useEffect, useState } from 'react';
import { Box, H2, H5 } from '@adminjs/design-system';
import { ApiClient } from 'adminjs';
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
const BREAKDOWNS = [
  ['product', 'Product'],
  ['city', 'City'],
  ['source', 'Source (utm_source)'],
  ['agent', 'Agent'],
] as const;

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
const cell: React.CSSProperties = { padding: '6px 10px', borderBottom: '1px solid #e5e7eb', textAlign: 'right' };

/** The last `days` UTC days, today included. */
function lastDays(days: number): { from: string; to: string } {
  const to = new Date();
  const from = new Date(to.getTime() - (days - 1) * 86_400_000);
  return { from: from.toISOString().slice(0, 10), to: to.toISOString().slice(0, 10) };
}

const percent = (v: number | null) => (v === null ? '—' : `${v}%`);

function Totals({ totals }: { totals: KpiFigures }) {
  const tiles: [string, string | number][] = [
    ['Leads', totals.leads],
    ['Confirmed', totals.confirmed],
    ['Confirmation rate', percent(totals.confirmation_rate)],
    ['Delivered', totals.delivered],
    ['Delivery rate', percent(totals.delivery_rate)],
  ];
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
  if (!report.breakdown.length) return <p>No leads in this period.</p>;
  return (
    <table data-testid="kpi-breakdown" style={{ borderCollapse: 'collapse', width: '100%', fontSize: 14 }}>
      <thead>
        <tr>
          <th style={{ ...cell, textAlign: 'left' }}>{BREAKDOWNS.find(([k]) => k === report.by)?.[1] ?? report.by}</th>
          {['Leads', 'Confirmed', 'Confirmation rate', 'Delivered', 'Delivery rate'].map((h) => (
            <th key={h} style={cell}>
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {report.breakdown.map((r) => (
          <tr key={r.key}>
            <td style={{ ...cell, textAlign: 'left' }}>{r.label}</td>
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
  return (
    <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'center', marginBottom: 20 }}>
      {[7, 30, 90].map((n) => (
        <button key={n} type="button" data-testid={`kpi-last-${n}`} onClick={() => set({ ...query, ...lastDays(n) })}>
          Last {n} days
        </button>
      ))}
      <label>
        From <input type="date" value={query.from} onChange={(e) => set({ ...query, from: e.target.value })} />
      </label>
      <label>
        To <input type="date" value={query.to} onChange={(e) => set({ ...query, to: e.target.value })} />
      </label>
      <label>
        By{' '}
        <select value={query.by} onChange={(e) => set({ ...query, by: e.target.value })} data-testid="kpi-by">
          {BREAKDOWNS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {accounts && (
        <label>
          Account{' '}
          <select value={query.account_id} onChange={(e) => set({ ...query, account_id: e.target.value })}>
            <option value="">All accounts</option>
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
  const [query, setQuery] = useState<Query>({ ...lastDays(30), by: 'product', account_id: '' });
  const [answer, setAnswer] = useState<Answer | null>(null);
  useEffect(() => {
    // an answer that comes after the query changed again is dropped (a late "Last 7 days" over "Last 90 days")
    let current = true;
    const params = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== ''));
    api
      .getPage({ pageName: 'kpi', params })
      .then((res) => current && setAnswer(res.data as Answer))
      .catch(() => current && setAnswer({ refusal: 'The figures could not be loaded. Reload the page to try again.' }));
    return () => {
      current = false;
    };
  }, [query]);
  const report = answer?.report;
  return (
    <Box p="xxl" data-testid="kpi-page">
      <H2 mb="lg">KPI dashboard</H2>
      <Controls query={query} set={setQuery} accounts={answer?.accounts} />
      {answer?.refusal && (
        <p role="alert" style={{ color: '#b91c1c' }}>
          {answer.refusal}
        </p>
      )}
      {!answer && <p>Loading figures…</p>}
      {report && (
        <div style={{ display: 'grid', gap: 20 }}>
          <Totals totals={report.totals} />
          <div style={card}>
            <H5 mb="default">
              Leads per day by status ({report.from} to {report.to}, UTC)
            </H5>
            <StatusDaysChart report={report} />
          </div>
          <div style={card}>
            <H5 mb="default">Confirmation and delivery rates of each day&apos;s leads</H5>
            <RatesChart report={report} />
          </div>
          <div style={card}>
            <H5 mb="default">Breakdown</H5>
            <BreakdownChart report={report} />
            <BreakdownTable report={report} />
          </div>
          <small style={{ color: '#6b7280' }}>Figures as of {report.as_of.replace('T', ' ').slice(0, 16)} UTC.</small>
        </div>
      )}
    </Box>
  );
}
