import React from 'react';
import { ValueGroup } from '@adminjs/design-system';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { Pill, StatusPill } from './status-badge.js';
import { cardStyle, CUSTOMER_COLOURS, customerStanding } from './status-palette.js';
import { DateText, useFigures } from './local-text.js';
import type { CustomerView } from '../resources/customer-view.js';
import type { RiskFinding } from '../../src/customers/customer.risk.js';

/** A customer as the server hands it to the queue and the lead's page: its record, or null (no E.164 phone). */
export type ShownCustomer = CustomerView | null;

/** The reasons a customer is risky, each in the reader's words with its figures and the account's limit. */
export function useFindingWords(): (f: RiskFinding) => string {
  const { translateComponent } = useTranslation();
  const { number, percent } = useFigures();
  return (f) =>
    f.kind === 'returns'
      ? translateComponent('customer.findingReturns', {
          count: f.returned,
          returned: number(f.returned),
          limit: f.limit,
        })
      : translateComponent('customer.findingDelivery', {
          count: f.finished,
          delivered: number(f.delivered),
          finished: number(f.finished),
          rate: percent(f.rate),
          limit: percent(f.limit),
        });
}

/** One word for where a customer stands: Blocked, Risky, "3 of 3 delivered", or no delivery yet. */
export function CustomerBadge({ customer }: { customer: ShownCustomer }) {
  const { translateComponent } = useTranslation();
  if (!customer) return null;
  const standing = customerStanding(customer);
  const finished = customer.delivered + customer.returned;
  const words =
    standing === 'blocked'
      ? translateComponent('customer.blocked')
      : standing === 'risky'
        ? translateComponent('customer.risky')
        : finished > 0
          ? translateComponent('customer.deliveredOf', { count: finished, delivered: customer.delivered, finished })
          : translateComponent('customer.noDeliveryYet');
  return (
    <span data-testid="customer-badge" data-standing={standing}>
      <Pill colour={CUSTOMER_COLOURS[standing]}>{words}</Pill>
    </span>
  );
}

const SMALL: React.CSSProperties = { color: '#6b7280', fontSize: 12 };

function Figure({ label, value }: { label: string; value: React.ReactNode }) {
  return (
    <div style={{ minWidth: 0 }}>
      <div style={SMALL}>{label}</div>
      <div style={{ fontSize: 15, fontWeight: 600, fontVariantNumeric: 'tabular-nums' }}>{value}</div>
    </div>
  );
}

/** The last order: its reference, its outcome in the order palette and when it was made, in the account's zone. */
function LastOrder({ customer }: { customer: CustomerView }) {
  const { translateComponent } = useTranslation();
  if (!customer.last_order) return <span>{translateComponent('customer.noOrder')}</span>;
  return (
    <span data-testid="customer-last-order" style={{ display: 'inline-flex', gap: 8, flexWrap: 'wrap' }}>
      <bdi dir="ltr" style={{ fontFamily: 'monospace', whiteSpace: 'nowrap' }}>
        {customer.last_order.reference}
      </bdi>
      <StatusPill kind="order" status={customer.last_order.status} />
      <DateText style={{ whiteSpace: 'nowrap', fontWeight: 400 }}>{customer.times.last_order_at}</DateText>
    </span>
  );
}

/** Why the customer stands out: the block's reason, then each risk finding, in the standing's colour. */
function Warnings({ customer }: { customer: CustomerView }) {
  const { translateComponent } = useTranslation();
  const say = useFindingWords();
  const lines: [string, string, string][] = [];
  if (customer.blocked)
    lines.push([
      'customer-block-reason',
      CUSTOMER_COLOURS.blocked,
      translateComponent('customer.blockReason', { reason: customer.block_reason ?? '' }),
    ]);
  for (const f of customer.risk_findings ?? []) lines.push([`customer-risk-${f.kind}`, CUSTOMER_COLOURS.risky, say(f)]);
  if (!lines.length) return null;
  return (
    <ul style={{ margin: '10px 0 0', paddingInlineStart: 18 }}>
      {lines.map(([id, colour, text]) => (
        <li key={id} data-testid={id} style={{ color: colour, fontWeight: 600 }}>
          <bdi dir="auto">{text}</bdi>
        </li>
      ))}
    </ul>
  );
}

/** What the account knows of the person on the line: outcomes of their orders, the last one, risk and block. */
export function CustomerCard({ customer }: { customer: ShownCustomer }) {
  const { translateComponent } = useTranslation();
  const { number } = useFigures();
  const standing = customer ? customerStanding(customer) : 'unknown';
  const frame = cardStyle({ borderInlineStart: `6px solid ${CUSTOMER_COLOURS[standing]}` });
  if (!customer)
    return (
      <div data-testid="customer-record" data-standing="none" style={frame}>
        {translateComponent('customer.none')}
      </div>
    );
  return (
    <div data-testid="customer-record" data-standing={standing} style={frame}>
      <div style={{ display: 'flex', gap: 10, alignItems: 'center', flexWrap: 'wrap', marginBottom: 10 }}>
        <strong>{translateComponent('customer.title')}</strong>
        <CustomerBadge customer={customer} />
      </div>
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(110px, 1fr))', gap: 10 }}>
        <Figure label={translateComponent('customer.orders')} value={number(customer.orders)} />
        <Figure label={translateComponent('customer.delivered')} value={number(customer.delivered)} />
        <Figure label={translateComponent('customer.returned')} value={number(customer.returned)} />
        <Figure label={translateComponent('customer.leads')} value={number(customer.leads)} />
      </div>
      <div style={{ marginTop: 10 }}>
        <span style={SMALL}>{translateComponent('customer.lastOrder')}</span> <LastOrder customer={customer} />
      </div>
      <div style={{ marginTop: 6 }}>
        <span style={SMALL}>{translateComponent('customer.firstSeen')}</span>{' '}
        <DateText testId="customer-first-seen" style={{ whiteSpace: 'nowrap' }}>
          {customer.times.first_seen_at}
        </DateText>
      </div>
      <Warnings customer={customer} />
      <div style={{ marginTop: 8, fontSize: 13 }}>
        <a href={`/admin/resources/leads?filters.phone=${encodeURIComponent(customer.phone)}`}>
          {translateComponent('customer.leadsOfPhone')}
        </a>
      </div>
    </div>
  );
}

/** Reads `{customer}` from a JSON text (the lead show page's `customer_record`); undefined when absent or broken. */
export function parseCustomer(raw: unknown): ShownCustomer | undefined {
  try {
    const parsed = JSON.parse(String(raw)) as { customer?: ShownCustomer };
    return parsed && 'customer' in parsed ? (parsed.customer ?? null) : undefined;
  } catch {
    return undefined;
  }
}

/** The lead show page's customer record (property `customer_record`, filled by admin/resources/customer-view.ts). */
export default function CustomerRecordField({ property, record, resource }: BasePropertyProps) {
  const { translateProperty } = useTranslation();
  const customer = parseCustomer(record?.params?.[property.path]);
  if (customer === undefined) return null;
  return (
    <ValueGroup label={translateProperty(property.label, resource.id)}>
      <CustomerCard customer={customer} />
    </ValueGroup>
  );
}
