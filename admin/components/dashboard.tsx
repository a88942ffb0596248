import React, { useEffect, useState } from 'react';
import { ApiClient } from 'adminjs';
import { Box, H2, H5, Text } from '@adminjs/design-system';
import { statusColour, statusLabel, type StatusKind } from './status-palette.js';

interface Figures {
  leadsToday: Record<string, number>;
  leads7d: Record<string, number>;
  confirmationRate7d: number | null;
  ordersByStatus: Record<string, number>;
}

const api = new ApiClient();

/** Tiles of one width on a grid: as many columns as fit, none stretched across a row. */
const grid: React.CSSProperties = {
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fill, minmax(170px, 1fr))',
  gap: 16,
};
const tile: React.CSSProperties = {
  background: '#fff',
  borderRadius: 8,
  padding: '16px 18px',
  boxShadow: '0 1px 3px rgba(0,0,0,0.08)',
  minWidth: 0,
};

function Tile({
  label,
  value,
  colour,
  href,
}: {
  label: string;
  value: string | number;
  colour?: string;
  href?: string;
}) {
  const body = (
    <>
      <div
        style={{ color: '#4b5563', fontSize: 13, whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' }}
      >
        {label}
      </div>
      {/* a link's words are smaller than a figure, on lines that do not overlap */}
      <div
        style={{
          fontSize: href ? 20 : 28,
          lineHeight: 1.25,
          fontWeight: 700,
          marginTop: 6,
          color: colour ?? '#111827',
        }}
      >
        {value}
      </div>
    </>
  );
  const style = { ...tile, borderTop: `4px solid ${colour ?? '#9ca3af'}` };
  return href ? (
    <a href={href} style={{ ...style, textDecoration: 'none', display: 'block' }}>
      {body}
    </a>
  ) : (
    <div style={style}>{body}</div>
  );
}

function StatusRow({ title, kind, counts }: { title: string; kind: StatusKind; counts: Record<string, number> }) {
  return (
    <Box mb="xl">
      <H5 mb="default">{title}</H5>
      <div style={grid}>
        {Object.entries(counts).map(([status, n]) => (
          <Tile key={status} label={statusLabel(status)} value={n} colour={statusColour(kind, status)} />
        ))}
      </div>
    </Box>
  );
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Home of the panel: links to the work queue and the KPI page, then the account's figures on one grid. */
const Dashboard = () => {
  const [data, setData] = useState<Figures | null>(null);
  useEffect(() => {
    api.getDashboard<Figures>().then((res) => setData(res.data));
  }, []);
  if (!data)
    return (
      <Box p="xxl">
        <Text>Loading figures…</Text>
      </Box>
    );
  return (
    <Box p="xxl" data-testid="leadflow-dashboard">
      <H2 mb="xl">LeadFlow</H2>
      <div style={{ ...grid, marginBottom: 32 }}>
        <Tile label="Take the next lead to call" value="Work queue →" colour="#1d4ed8" href="/admin/pages/queue" />
        <Tile label="Leads and rates by day" value="KPI charts →" colour="#15803d" href="/admin/pages/kpi" />
        <Tile
          label="Confirmation rate (7 days)"
          value={data.confirmationRate7d === null ? '—' : `${data.confirmationRate7d}%`}
        />
        <Tile label="Leads today" value={sum(data.leadsToday)} />
        <Tile label="Leads (7 days)" value={sum(data.leads7d)} />
      </div>
      <StatusRow title="Leads today by status" kind="lead" counts={data.leadsToday} />
      <StatusRow title="Leads in the last 7 days by status" kind="lead" counts={data.leads7d} />
      <StatusRow title="Orders by status" kind="order" counts={data.ordersByStatus} />
    </Box>
  );
};

export default Dashboard;
