import React from 'react';
import { Box, Button, DatePicker, FormGroup, Label, Select } from '@adminjs/design-system';
import { useTranslation } from 'adminjs';

export interface KpiQuery {
  from: string;
  to: string;
  by: string;
  account_id: string;
}
export type Period = 'today' | 'last7' | 'last30' | 'last90' | 'custom';

/** The ready-made periods: how many days back, today included. */
const DAYS: Record<Exclude<Period, 'custom'>, number> = { today: 1, last7: 7, last30: 30, last90: 90 };
export const BREAKDOWNS = ['product', 'city', 'source', 'agent'] as const;
/** The page opens on the last 30 days. */
export const DEFAULT_PERIOD: Exclude<Period, 'custom'> = 'last30';

/**
 * The last `days` days up to `today` (the account zone's date, from the server), as ISO dates (YYYY-MM-DD, never a
 * US-format date); the browser's own clock and zone do not decide which day it is.
 */
export function lastDays(days: number, today: string): { from: string; to: string } {
  const from = new Date(Date.parse(`${today}T00:00:00Z`) - (days - 1) * 86_400_000);
  return { from: from.toISOString().slice(0, 10), to: today };
}
export const periodDates = (period: Exclude<Period, 'custom'>, today: string) => lastDays(DAYS[period], today);

/** An ISO day as the picker's local midnight, and back: the picker works in local time, the KPI days are dates. */
const asLocalDay = (iso: string) => (iso ? new Date(`${iso}T00:00:00`) : undefined);
function isoDayOf(value: string | null): string {
  const d = value ? new Date(value) : null;
  if (!d || Number.isNaN(d.getTime())) return '';
  return [d.getFullYear(), d.getMonth() + 1, d.getDate()].map((n) => String(n).padStart(2, '0')).join('-');
}
const ISO_MASK = [/\d/, /\d/, /\d/, /\d/, '-', /\d/, /\d/, '-', /\d/, /\d/].map((part) =>
  typeof part === 'string' ? part : { regex: part.source, raw: undefined },
);

function DayPicker({
  label,
  value,
  onChange,
  testId,
}: {
  label: string;
  value: string;
  onChange(v: string): void;
  testId: string;
}) {
  return (
    <FormGroup mb="0" data-testid={testId} style={{ width: 170 }}>
      <Label>{label}</Label>
      <DatePicker
        propertyType="date"
        dateFormat="yyyy-MM-dd"
        placeholderText="YYYY-MM-DD"
        inputMask={{ mask: ISO_MASK as never }}
        value={asLocalDay(value)}
        onChange={(picked) => onChange(isoDayOf(picked))}
      />
    </FormGroup>
  );
}

interface ChoiceProps {
  label: string;
  testId: string;
  width: number;
  options: { value: string; label: string }[];
  value: string;
  onChange(value: string): void;
}

/** One labelled select of the design system (the breakdown, the account). */
function Choice({ label, testId, width, options, value, onChange }: ChoiceProps) {
  return (
    <FormGroup mb="0" style={{ width }} data-testid={testId}>
      <Label>{label}</Label>
      <Select
        value={options.find((o) => o.value === value)}
        options={options}
        isClearable={false}
        onChange={(o: { value: string }) => onChange(o.value)}
      />
    </FormGroup>
  );
}

interface ControlsProps {
  query: KpiQuery;
  period: Period;
  accounts?: { id: number; name: string }[];
  /** The period the last answer covered and today's date in its zone (before the first answer: none). */
  shown?: { from: string; to: string; today: string };
  set(query: KpiQuery, period: Period): void;
}

/**
 * The KPI page's controls in the panel's design system: the period as a row of buttons with the active one selected
 * (today, 7, 30 or 90 days, or custom dates picked in ISO form), the breakdown and, for an admin, the account.
 */
export function KpiControls({ query, period, accounts, shown, set }: ControlsProps) {
  const { translateComponent: tc } = useTranslation();
  const periods: Period[] = ['today', 'last7', 'last30', 'last90', 'custom'];
  const byOptions = BREAKDOWNS.map((value) => ({ value, label: tc(`kpi.by.${value}`) }));
  const accountOptions = [
    { value: '', label: tc('kpi.allAccounts') },
    ...(accounts ?? []).map((a) => ({ value: String(a.id), label: a.name })),
  ];
  const pick = (p: Period) => {
    if (!shown) return;
    const { from, to, today } = shown;
    set(
      p === 'custom'
        ? { ...query, from: query.from || from, to: query.to || to }
        : { ...query, ...periodDates(p, today) },
      p,
    );
  };
  return (
    <Box flex flexWrap="wrap" alignItems="flex-end" mb="xl" style={{ gap: 16 }} data-testid="kpi-controls">
      <FormGroup mb="0">
        <Label>{tc('kpi.period')}</Label>
        <Box flex style={{ gap: 8 }} role="group">
          {periods.map((p) => (
            <Button
              key={p}
              type="button"
              size="sm"
              variant={p === period ? 'contained' : 'outlined'}
              aria-pressed={p === period}
              data-testid={`kpi-${p === 'today' ? 'today' : p === 'custom' ? 'custom' : `last-${DAYS[p]}`}`}
              onClick={() => pick(p)}
            >
              {tc(`kpi.periods.${p}`)}
            </Button>
          ))}
        </Box>
      </FormGroup>
      {period === 'custom' && (
        <>
          <DayPicker
            label={tc('kpi.from')}
            value={query.from}
            testId="kpi-from"
            onChange={(from) => set({ ...query, from }, 'custom')}
          />
          <DayPicker
            label={tc('kpi.to')}
            value={query.to}
            testId="kpi-to"
            onChange={(to) => set({ ...query, to }, 'custom')}
          />
        </>
      )}
      <Choice
        label={tc('kpi.breakdownBy')}
        testId="kpi-by"
        width={200}
        options={byOptions}
        value={query.by}
        onChange={(by) => set({ ...query, by }, period)}
      />
      {accounts && (
        <Choice
          label={tc('kpi.account')}
          testId="kpi-account"
          width={240}
          options={accountOptions}
          value={query.account_id}
          onChange={(account_id) => set({ ...query, account_id }, period)}
        />
      )}
    </Box>
  );
}
