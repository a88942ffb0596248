import React from 'react';
import { ValueGroup } from '@adminjs/design-system';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { Pill, StatusPill } from './status-badge.js';
import { CUSTOMER_COLOURS } from './status-palette.js';
import { useFindingWords } from './customer-record.js';
import { DateText, useFigures } from './local-text.js';
import type { RiskFinding } from '../../src/customers/customer.risk.js';

const ONE_LINE: React.CSSProperties = { whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' };

/** A time the server wrote in the account's zone (admin/resources/panel-times.ts): its whole text and its day. */
function zonedText(raw: unknown, path: string): { text?: string; date?: string } {
  try {
    return (JSON.parse(String(raw)) as { times: Record<string, { text: string; date?: string }> }).times[path] ?? {};
  } catch {
    return {};
  }
}

function parseRisk(raw: unknown): { risky: boolean; findings: RiskFinding[] } {
  try {
    return JSON.parse(String(raw)) as { risky: boolean; findings: RiskFinding[] };
  } catch {
    return { risky: false, findings: [] };
  }
}

/** Risky in orange with its reasons (cut in a list, whole on hover and on the page), else a calm dash. */
function Risk({ raw, where }: { raw: unknown; where: string }) {
  const { translateComponent } = useTranslation();
  const say = useFindingWords();
  const risk = parseRisk(raw);
  if (!risk.risky)
    return (
      <span data-testid="customer-risk" data-risky="false">
        —
      </span>
    );
  const reasons = risk.findings.map(say).join(' · ');
  const list = where !== 'show';
  return (
    <span data-testid="customer-risk" data-risky="true" title={reasons} style={{ display: 'inline-block' }}>
      <Pill colour={CUSTOMER_COLOURS.risky}>{translateComponent('customer.risky')}</Pill>
      {list ? <br /> : ' '}
      <span
        style={
          list
            ? { ...ONE_LINE, display: 'inline-block', maxWidth: '8em', overflow: 'hidden', textOverflow: 'ellipsis' }
            : {}
        }
      >
        <bdi dir="auto">{reasons}</bdi>
      </span>
    </span>
  );
}

/** Blocked in red (its reason on hover, and on the page), else a dash. */
function Blocked({ blocked, reason, where }: { blocked: boolean; reason: string; where: string }) {
  const { translateComponent } = useTranslation();
  if (!blocked)
    return (
      <span data-testid="customer-blocked" data-blocked="false">
        —
      </span>
    );
  return (
    <span data-testid="customer-blocked" data-blocked="true" title={reason}>
      <Pill colour={CUSTOMER_COLOURS.blocked}>{translateComponent('customer.blocked')}</Pill>
      {where === 'show' && reason && (
        <>
          {' '}
          <bdi dir="auto">{reason}</bdi>
        </>
      )}
    </span>
  );
}

/** The last order's outcome in the order palette and its day (the account's zone), or a dash. */
function LastOrder(props: {
  status: unknown;
  when: { text?: string; date?: string };
  reference: unknown;
  where: string;
}) {
  if (!props.status) return <span>—</span>;
  const list = props.where !== 'show';
  return (
    <span
      style={{ display: 'inline-block', lineHeight: 1.4 }}
      title={`${String(props.reference ?? '')} ${props.when.text ?? ''}`}
    >
      <StatusPill kind="order" status={String(props.status)} />
      {list ? <br /> : ' '}
      {!list && (
        <>
          <bdi dir="ltr" style={{ fontFamily: 'monospace' }}>
            {String(props.reference ?? '')}
          </bdi>{' '}
        </>
      )}
      <DateText style={{ ...ONE_LINE, fontSize: list ? 12 : undefined, color: list ? '#4b5563' : undefined }}>
        {(list ? props.when.date : props.when.text) ?? '—'}
      </DateText>
    </span>
  );
}

/**
 * The Customers resource's computed columns (admin/resources/customer.resource.ts): risk with its reasons in the
 * reader's words, the block, the last order, the delivery rate, and the leads count linked to the lead list of the
 * phone.
 */
export default function CustomerCells({ property, record, resource, where }: BasePropertyProps) {
  const { translateProperty, translateComponent } = useTranslation();
  const { number, percent } = useFigures();
  const p = record?.params ?? {};
  let body: React.ReactNode;
  if (property.path === 'risk') body = <Risk raw={p.risk} where={where} />;
  else if (property.path === 'blocked')
    body = <Blocked blocked={p.blocked === 'true'} reason={String(p.block_reason ?? '')} where={where} />;
  else if (property.path === 'last_order')
    body = (
      <LastOrder
        status={p.last_order_status}
        reference={p.last_order_reference}
        when={zonedText(p.zoned_times, 'last_order_at')}
        where={where}
      />
    );
  else if (property.path === 'delivery_rate')
    body = <span style={ONE_LINE}>{percent(p.delivery_rate as string | number | null | undefined)}</span>;
  else
    body = (
      <a
        href={`/admin/resources/leads?filters.phone=${encodeURIComponent(String(p.phone_normalized ?? ''))}`}
        title={translateComponent('customer.leadsOfPhone')}
        data-testid="customer-leads-link"
        style={ONE_LINE}
      >
        {number((p[property.path] as string | number | undefined) ?? 0)}
      </a>
    );
  if (where !== 'show') return <>{body}</>;
  return <ValueGroup label={translateProperty(property.label, resource.id)}>{body}</ValueGroup>;
}
