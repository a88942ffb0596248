import React from 'react';
import { useTranslation } from 'adminjs';
import { StatusPill } from './status-badge.js';
import { CustomData, ProductsTable, Timeline, type HistoryEntry, type ProductLine } from './lead-parts.js';
import { DateText, Isolated, useFigures, useViewer } from './local-text.js';
import { formatInZone } from '../../src/time-zones.js';
import { cardStyle, statusColour } from './status-palette.js';
import { CustomerBadge, CustomerCard, type ShownCustomer } from './customer-record.js';

/** A lead as the queue hands it out (services.leads.show plus the claim's end). */
export interface QueueLead {
  id: number;
  reference: string;
  full_name: string | null;
  phone: string;
  city: string | null;
  area: string | null;
  address: string | null;
  status: string;
  action_date: string | null;
  created_at: string;
  data: { key: string; value: string }[];
  products: ProductLine[];
  total: number;
  history: HistoryEntry[];
  claim_expires_at: string;
  /** Its times written by the server in the account's zone (admin/pages/queue-page.ts). */
  times?: { created_at: string; action_date: string; claim: string };
  /** The customer record of its phone (null: no E.164 form), next to the phone. */
  customer?: ShownCustomer;
}

export interface QueueCounts {
  fresh: number;
  due_call_later: number;
  new: number;
  due_no_answer: number;
  scheduled_call_later: number;
  claimed: number;
}

const card = cardStyle({ padding: 20 });
/** What waits, on a grid of equal tiles. */
export function CountTiles({ counts }: { counts: QueueCounts | null }) {
  const { translateComponent } = useTranslation();
  const { number } = useFigures();
  const shown = (n: number | undefined) => (n === undefined ? '…' : number(n));
  // in the order the queue hands them out; `new` counts every new lead, the fresh ones too (as GET /queue)
  const tiles: [string, number | string, string][] = [
    [translateComponent('queue.freshLeads'), shown(counts?.fresh), statusColour('lead', 'new')],
    [translateComponent('queue.dueCallBacks'), shown(counts?.due_call_later), statusColour('lead', 'call_later')],
    [translateComponent('queue.newLeads'), shown(counts?.new), statusColour('lead', 'new')],
    [translateComponent('queue.dueRetries'), shown(counts?.due_no_answer), statusColour('lead', 'no_answer')],
    [translateComponent('queue.laterCallBacks'), shown(counts?.scheduled_call_later), '#6b7280'],
    [translateComponent('queue.beingCalled'), shown(counts?.claimed), statusColour('lead', 'confirmed')],
  ];
  return (
    <div
      data-testid="queue-counts"
      style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(160px, 1fr))', gap: 12 }}
    >
      {tiles.map(([label, value, colour]) => (
        <div key={label} style={{ ...card, padding: 14, borderTop: `4px solid ${colour}` }}>
          <div style={{ color: '#4b5563', fontSize: 13 }}>{label}</div>
          <div style={{ fontSize: 24, fontWeight: 700 }}>{value}</div>
        </div>
      ))}
    </div>
  );
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div style={{ marginBottom: 10 }}>
      <div style={{ color: '#6b7280', fontSize: 12, textTransform: 'uppercase', letterSpacing: 0.4 }}>{label}</div>
      <div style={{ fontSize: 16 }}>{children}</div>
    </div>
  );
}

/** The claimed lead: who to call and what they ordered, its history and custom data. */
export function LeadCard({ lead, zone }: { lead: QueueLead; zone: string }) {
  const { language } = useViewer();
  const when = (iso: string | null | undefined) => formatInZone(iso, zone, language);
  const times = lead.times ?? {
    created_at: when(lead.created_at),
    action_date: when(lead.action_date),
    claim: when(lead.claim_expires_at),
  };
  const { translateComponent } = useTranslation();
  return (
    <div data-testid="queue-lead" data-reference={lead.reference} style={{ display: 'grid', gap: 16 }}>
      <div style={{ ...card, display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(220px, 1fr))', gap: 8 }}>
        <Field label={translateComponent('queue.customer')}>
          <strong data-testid="queue-lead-name">
            {lead.full_name ? <Isolated>{lead.full_name}</Isolated> : translateComponent('common.noName')}
          </strong>
        </Field>
        <Field label={translateComponent('queue.phone')}>
          <a
            dir="ltr"
            data-testid="queue-lead-phone"
            href={`tel:${lead.phone.replace(/[^\d+]/g, '')}`}
            style={{ fontSize: 20, fontWeight: 700, whiteSpace: 'nowrap' }}
          >
            {lead.phone}
          </a>{' '}
          {lead.customer !== undefined && <CustomerBadge customer={lead.customer} />}
        </Field>
        <Field label={translateComponent('queue.city')}>
          <Isolated testId="queue-lead-city">{lead.city || '—'}</Isolated>
        </Field>
        <Field label={translateComponent('queue.address')}>
          <Isolated testId="queue-lead-address">{[lead.area, lead.address].filter(Boolean).join(', ') || '—'}</Isolated>
        </Field>
        <Field label={translateComponent('queue.reference')}>
          <span dir="ltr" style={{ whiteSpace: 'nowrap', fontFamily: 'monospace' }}>
            {lead.reference}
          </span>
        </Field>
        <Field label={translateComponent('queue.status')}>
          <StatusPill kind="lead" status={lead.status} />
          {lead.action_date && (
            <span style={{ marginInlineStart: 8 }}>
              {translateComponent('queue.callBackAt', { time: times.action_date })}
            </span>
          )}
        </Field>
        <Field label={translateComponent('queue.created')}>
          <DateText testId="queue-lead-created">{times.created_at}</DateText>
        </Field>
        <Field label={translateComponent('queue.yoursUntil')}>
          <DateText>{times.claim}</DateText>
        </Field>
      </div>
      {lead.customer !== undefined && <CustomerCard customer={lead.customer} />}
      <div style={card}>
        <h4 style={{ margin: '0 0 10px' }}>{translateComponent('queue.products')}</h4>
        <ProductsTable lines={lead.products} total={lead.total} />
      </div>
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(300px, 1fr))', gap: 16 }}>
        <div style={card}>
          <h4 style={{ margin: '0 0 10px' }}>{translateComponent('queue.history')}</h4>
          <Timeline kind="lead" entries={lead.history} when={when} />
        </div>
        <div style={card}>
          <h4 style={{ margin: '0 0 10px' }}>{translateComponent('queue.customData')}</h4>
          <CustomData data={lead.data ?? []} />
        </div>
      </div>
    </div>
  );
}

/** A one-line message: what was just done (green) or why it was refused (red). */
export function Banner({ tone, children }: { tone: 'done' | 'refused'; children: React.ReactNode }) {
  const colour = tone === 'done' ? '#15803d' : '#b91c1c';
  return (
    <div
      role={tone === 'refused' ? 'alert' : 'status'}
      data-testid={tone === 'refused' ? 'queue-refusal' : 'queue-done'}
      style={{
        border: `1px solid ${colour}`,
        borderInlineStart: `6px solid ${colour}`,
        borderRadius: 6,
        padding: '10px 14px',
      }}
    >
      {children}
    </div>
  );
}
