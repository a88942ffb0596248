import React from 'react';
import { useTranslation } from 'adminjs';
import { StatusPill } from './status-badge.js';
import type { StatusKind } from './status-palette.js';
import { DateText, Isolated, useFigures } from './local-text.js';
import { isEmptyValue } from './empty-value.js';

/** A history entry as leads.show / orders.show answer it (the queue adds the note). */
export interface HistoryEntry {
  old_status: string | null;
  new_status: string;
  changed_by: string;
  changed_at: string;
  /** When, written by the server in the record's account zone with the zone (src/time-zones.ts). */
  when_text?: string;
  note?: string | null;
}

export interface ProductLine {
  sku: string;
  name: string;
  quantity: number;
  price: number | string;
  /** Units left in stock in the line's warehouse (docs/stock.md); absent where the page does not say it. */
  available?: number | null;
}

/**
 * "3 left" or "out of stock" beside a product: what an agent reads before promising a delivery. `low` false hides the
 * count of a level comfortably above its threshold (the stock page); a lead's line always says it.
 */
export function StockWord({ available, low = true }: { available: number; low?: boolean }) {
  const { translateComponent } = useTranslation();
  const { number } = useFigures();
  const out = available <= 0;
  if (!out && !low) return null;
  const style = {
    marginInlineStart: 8,
    padding: '1px 8px',
    borderRadius: 10,
    fontSize: 12,
    whiteSpace: 'nowrap' as const,
    background: out ? '#fde8e8' : '#fff4d6',
    color: out ? '#9b1c1c' : '#7a4b00',
  };
  return (
    <span data-testid="stock-word" style={style}>
      {out
        ? translateComponent('stock.out')
        : translateComponent('stock.left', { count: available, formatted: number(available) })}
    </span>
  );
}

const cell = { padding: '6px 10px', borderBottom: '1px solid #e5e7eb', textAlign: 'start' as const };
const num = { ...cell, textAlign: 'end' as const, whiteSpace: 'nowrap' as const, fontVariantNumeric: 'tabular-nums' };

/** A stored time as the viewer reads it: in the record's account zone, with the zone (src/time-zones.ts). */
export type TimeText = (iso: string | null | undefined) => string;

/** The products of a lead or an order: quantity, unit price, line total and the grand total. */
export function ProductsTable({ lines, total }: { lines: ProductLine[]; total?: number | string | null }) {
  const { translateComponent } = useTranslation();
  const { money, number } = useFigures();
  if (!lines.length) return <span>{translateComponent('records.noProducts')}</span>;
  const sum = lines.reduce((acc, l) => acc + Number(l.quantity) * Number(l.price), 0);
  return (
    <table data-testid="products-table" style={{ borderCollapse: 'collapse', minWidth: 420, fontSize: 14 }}>
      <thead>
        <tr>
          <th style={cell}>{translateComponent('records.product')}</th>
          <th style={num}>{translateComponent('records.quantity')}</th>
          <th style={num}>{translateComponent('records.price')}</th>
          <th style={num}>{translateComponent('records.lineTotal')}</th>
        </tr>
      </thead>
      <tbody>
        {lines.map((l, i) => (
          <tr key={`${l.sku}-${i}`}>
            <td style={cell}>
              <span dir="ltr" style={{ whiteSpace: 'nowrap', fontFamily: 'monospace' }}>
                {l.sku}
              </span>{' '}
              {l.name}
              {typeof l.available === 'number' && <StockWord available={l.available} />}
            </td>
            <td style={num}>{number(l.quantity)}</td>
            <td style={num}>{money(Number(l.price))}</td>
            <td style={num}>{money(Number(l.quantity) * Number(l.price))}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th style={cell} colSpan={3}>
            {translateComponent('records.total')}
          </th>
          <th style={num} data-testid="products-total">
            {money(total === null || total === undefined || total === '' ? sum : Number(total))}
          </th>
        </tr>
      </tfoot>
    </table>
  );
}

/** The history as a timeline, newest first: the move in status words and colours, who, when and the note. */
export function Timeline({ kind, entries, when }: { kind: StatusKind; entries: HistoryEntry[]; when: TimeText }) {
  const { translateComponent } = useTranslation();
  if (!entries.length) return <span>{translateComponent('records.noHistory')}</span>;
  const newestFirst = [...entries].sort((a, b) => b.changed_at.localeCompare(a.changed_at));
  return (
    <ol data-testid="history-timeline" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
      {newestFirst.map((h, i) => (
        <li
          key={`${h.changed_at}-${i}`}
          style={{ borderInlineStart: '3px solid #d1d5db', paddingBlock: '4px 10px', paddingInlineStart: 14 }}
        >
          <div style={{ display: 'flex', gap: 6, alignItems: 'center', flexWrap: 'wrap' }}>
            {h.old_status ? (
              <StatusPill kind={kind} status={h.old_status} />
            ) : (
              <em>{translateComponent('records.createdAs')}</em>
            )}
            {h.old_status && <span aria-label={translateComponent('records.to')}>→</span>}
            <StatusPill kind={kind} status={h.new_status} />
          </div>
          <div style={{ color: '#4b5563', fontSize: 13, marginTop: 4 }}>
            {translateComponent('records.by')} <strong>{h.changed_by}</strong> ·{' '}
            <DateText>{h.when_text ?? when(h.changed_at)}</DateText>
          </div>
          {h.note && <div style={{ fontStyle: 'italic', marginTop: 2 }}>“{h.note}”</div>}
        </li>
      ))}
    </ol>
  );
}

/** A lead's custom data (utm_source, landing page, …) as key/value rows. */
export function CustomData({ data }: { data: { key: string; value: string }[] }) {
  const { translateComponent } = useTranslation();
  if (isEmptyValue(data)) return <span>{translateComponent('common.none')}</span>;
  return (
    <dl style={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '4px 12px', margin: 0 }}>
      {data.map((d, i) => (
        <React.Fragment key={`${d.key}-${i}`}>
          <dt style={{ color: '#4b5563' }}>
            <Isolated>{d.key}</Isolated>
          </dt>
          <dd style={{ margin: 0 }}>
            <Isolated testId={`custom-data-${d.key}`}>{d.value}</Isolated>
          </dd>
        </React.Fragment>
      ))}
    </dl>
  );
}

/** A JSON text the show page's after hook computed, or an empty list when it is missing or damaged. */
export function parseList<T>(text: unknown): T[] {
  try {
    const value = JSON.parse(String(text ?? '[]'));
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
}
