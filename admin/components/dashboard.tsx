import React, { useEffect, useState } from 'react';
import { ApiClient, useTranslation } from 'adminjs';
import { Box, H2, H5, Text } from '@adminjs/design-system';
import { useStatusWord } from './status-badge.js';
import { cardStyle, statusColour, type StatusKind } from './status-palette.js';
import { useFigures } from './local-text.js';

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
const tile = cardStyle({ padding: '16px 18px' });

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
  const word = useStatusWord();
  const { number } = useFigures();
  return (
    <Box mb="xl">
      <H5 mb="default">{title}</H5>
      <div style={grid}>
        {Object.entries(counts).map(([status, n]) => (
          <Tile key={status} label={word(status)} value={number(n)} colour={statusColour(kind, status)} />
        ))}
      </div>
    </Box>
  );
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Home of the panel: links to the work queue and the KPI page, then the account's figures on one grid. */
const Dashboard = () => {
  const { translateComponent } = useTranslation();
  const { number, percent } = useFigures();
  const [data, setData] = useState<Figures | null>(null);
  useEffect(() => {
    api.getDashboard<Figures>().then((res) => setData(res.data));
  }, []);
  if (!data)
    return (
      <Box p="xxl">
        <Text>{translateComponent('common.loadingFigures')}</Text>
      </Box>
    );
  return (
    <Box p="xxl" data-testid="leadflow-dashboard">
      <H2 mb="xl">LeadFlow</H2>
      <div style={{ ...grid, marginBottom: 32 }}>
        <Tile
          label={translateComponent('dashboard.nextLeadLabel')}
          value={translateComponent('dashboard.nextLeadLink')}
          colour="#1d4ed8"
          href="/admin/pages/queue"
        />
        <Tile
          label={translateComponent('dashboard.kpiLabel')}
          value={translateComponent('dashboard.kpiLink')}
          colour="#15803d"
          href="/admin/pages/kpi"
        />
        <Tile label={translateComponent('dashboard.confirmationRate7d')} value={percent(data.confirmationRate7d)} />
        <Tile label={translateComponent('dashboard.leadsToday')} value={number(sum(data.leadsToday))} />
        <Tile label={translateComponent('dashboard.leads7d')} value={number(sum(data.leads7d))} />
      </div>
      <StatusRow title={translateComponent('dashboard.leadsTodayByStatus')} kind="lead" counts={data.leadsToday} />
      <StatusRow title={translateComponent('dashboard.leads7dByStatus')} kind="lead" counts={data.leads7d} />
      <StatusRow title={translateComponent('dashboard.ordersByStatus')} kind="order" counts={data.ordersByStatus} />
    </Box>
  );
};

export default Dashboard;
