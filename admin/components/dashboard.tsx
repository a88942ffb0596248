import React, { useEffect, useState } from 'react';
import { ApiClient } from 'adminjs';
import { Box, H2, H5, Text } from '@adminjs/design-system';

interface Figures {
  leadsToday: Record<string, number>;
  leads7d: Record<string, number>;
  confirmationRate7d: number | null;
  ordersByStatus: Record<string, number>;
}

const api = new ApiClient();

function Tile({ label, value }: { label: string; value: string | number }) {
  return (
    <Box variant="container" mr="lg" mb="lg" p="lg" style={{ minWidth: 150 }}>
      <Text color="grey60">{label}</Text>
      <H2 mt="sm" mb="0">
        {value}
      </H2>
    </Box>
  );
}

function Row({ title, counts }: { title: string; counts: Record<string, number> }) {
  return (
    <Box mb="xl">
      <H5 mb="default">{title}</H5>
      <Box flex flexDirection="row" style={{ flexWrap: 'wrap' }}>
        {Object.entries(counts).map(([status, n]) => (
          <Tile key={status} label={status.replace('_', ' ')} value={n} />
        ))}
      </Box>
    </Box>
  );
}

/** Home of the panel: the account's leads by status (today, 7 days), confirmation rate and orders by status. */
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
      <Box flex flexDirection="row" mb="xl">
        <Tile
          label="Confirmation rate (7 days)"
          value={data.confirmationRate7d === null ? '—' : `${data.confirmationRate7d}%`}
        />
        <Tile label="Leads today" value={Object.values(data.leadsToday).reduce((a, b) => a + b, 0)} />
        <Tile label="Leads (7 days)" value={Object.values(data.leads7d).reduce((a, b) => a + b, 0)} />
      </Box>
      <Row title="Leads today by status" counts={data.leadsToday} />
      <Row title="Leads in the last 7 days by status" counts={data.leads7d} />
      <Row title="Orders by status" counts={data.ordersByStatus} />
    </Box>
  );
};

export default Dashboard;
