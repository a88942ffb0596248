import type { CSSProperties } from 'react';

/**
 * The one status palette of the panel: list badges, show pages, the history timeline, the work queue and the KPI
 * charts all take their colours and words from here, so "No answer" is the same violet everywhere. Imported by the
 * browser components and by the panel's resource options (status labels of the filters and forms).
 *
 * Every colour is dark enough for white text (contrast ≥ 4.5 : 1, WCAG AA); hues differ by status meaning: green
 * done, red wrong, amber waiting, blue fresh, grey set aside.
 */
export const LEAD_STATUS_COLOURS = {
  new: '#1d4ed8',
  confirmed: '#15803d',
  wrong: '#b91c1c',
  call_later: '#b45309',
  no_answer: '#6d28d9',
  duplicate: '#4b5563',
  canceled: '#9d174d',
} as const;

export const ORDER_STATUS_COLOURS = {
  new: '#1d4ed8',
  pushed: '#0e7490',
  shipped: '#4338ca',
  delivered: '#15803d',
  returned: '#c2410c',
  canceled: '#9d174d',
} as const;

/** Webhook deliveries: waiting amber, done green, given up red (the lead palette's meanings). */
export const DELIVERY_STATE_COLOURS = {
  pending: '#b45309',
  delivered: '#15803d',
  failed: '#b91c1c',
} as const;

/** Import and export runs: waiting blue, working amber, done green, failed red, expired grey. */
export const RUN_STATUS_COLOURS = {
  queued: '#1d4ed8',
  running: '#b45309',
  completed: '#15803d',
  failed: '#b91c1c',
  expired: '#4b5563',
} as const;

/** What became of a submission to a lead source: a lead green, a duplicate grey, refused red, held back amber. */
export const INTAKE_OUTCOME_COLOURS = {
  created: '#15803d',
  duplicate: '#4b5563',
  refused: '#b91c1c',
  rate_limited: '#b45309',
} as const;

export type LeadStatusName = keyof typeof LEAD_STATUS_COLOURS;
export type OrderStatusName = keyof typeof ORDER_STATUS_COLOURS;
export type StatusKind = 'lead' | 'order' | 'delivery' | 'run' | 'intake';

/** Status words as people read them. */
const LABELS: Record<string, string> = {
  new: 'New',
  confirmed: 'Confirmed',
  wrong: 'Wrong',
  call_later: 'Call later',
  no_answer: 'No answer',
  duplicate: 'Duplicate',
  canceled: 'Canceled',
  pushed: 'Pushed',
  shipped: 'Shipped',
  delivered: 'Delivered',
  returned: 'Returned',
  pending: 'Pending',
  failed: 'Failed',
  queued: 'Queued',
  running: 'Running',
  completed: 'Completed',
  expired: 'Expired',
  created: 'Created',
  refused: 'Refused',
  rate_limited: 'Rate limited',
};

/**
 * A customer's standing beside a phone (admin/components/customer-record.tsx): blocked red and risky orange stand out,
 * a customer whose parcels arrive reads calm green, one without a delivery yet grey.
 */
export const CUSTOMER_COLOURS = {
  blocked: '#b91c1c',
  risky: '#c2410c',
  good: '#15803d',
  unknown: '#4b5563',
} as const;
export type CustomerStanding = keyof typeof CUSTOMER_COLOURS;

/** Blocked before risky before good: the worst that holds decides. */
export function customerStanding(c: { blocked: boolean; risky: boolean; delivered: number }): CustomerStanding {
  if (c.blocked) return 'blocked';
  if (c.risky) return 'risky';
  return c.delivered > 0 ? 'good' : 'unknown';
}

/** The colour of a status nobody planned for (a value added to the database before the palette). */
export const UNKNOWN_COLOUR = '#6b7280';

export const LEAD_STATUS_ORDER = Object.keys(LEAD_STATUS_COLOURS) as LeadStatusName[];
export const ORDER_STATUS_ORDER = Object.keys(ORDER_STATUS_COLOURS) as OrderStatusName[];

/** "call_later" → "Call later"; an unknown value is written with spaces and a capital. */
export function statusLabel(status: string | null | undefined): string {
  if (!status) return '—';
  return LABELS[status] ?? status.charAt(0).toUpperCase() + status.slice(1).replace(/_/g, ' ');
}

const PALETTES: Record<StatusKind, Record<string, string>> = {
  lead: LEAD_STATUS_COLOURS,
  order: ORDER_STATUS_COLOURS,
  delivery: DELIVERY_STATE_COLOURS,
  run: RUN_STATUS_COLOURS,
  intake: INTAKE_OUTCOME_COLOURS,
};

/** The colour of a status of a kind (a lead's, an order's, a delivery's, a run's). */
export function statusColour(kind: StatusKind, status: string | null | undefined): string {
  return (status && PALETTES[kind][status]) || UNKNOWN_COLOUR;
}

/** Which palette a panel resource's statuses use (orders and their histories: the order one). */
export function statusKindOf(resourceId: string | undefined): StatusKind {
  if (resourceId === 'webhook_deliveries') return 'delivery';
  if (resourceId === 'import_runs' || resourceId === 'export_runs') return 'run';
  if (resourceId === 'lead_intake') return 'intake';
  return resourceId === 'orders' || resourceId === 'order_histories' ? 'order' : 'lead';
}

/** A `<select>`-ready list of a kind's statuses with their words (AdminJS availableValues). */
export function statusOptions(kind: StatusKind): { value: string; label: string }[] {
  return Object.keys(PALETTES[kind]).map((value) => ({
    value,
    label: statusLabel(value),
  }));
}

/** The panel's white card (the queue, KPI, home and My account pages), with the padding and width each page gives. */
export const cardStyle = (extra: CSSProperties = {}): CSSProperties => ({
  background: '#fff',
  borderRadius: 8,
  padding: 18,
  boxShadow: '0 1px 3px rgba(0,0,0,0.08)',
  minWidth: 0,
  ...extra,
});
