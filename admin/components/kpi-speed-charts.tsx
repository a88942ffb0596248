import React from 'react';
import { Chart, LogarithmicScale, type ChartConfiguration, type Scale } from 'chart.js';
import { useTranslation } from 'adminjs';
import type { SpeedReport } from '../../src/stats/kpi-speed.schemas.js';
import { ChartCanvas } from './kpi-charts.js';
import { statusColour } from './status-palette.js';

// delays span a minute to a month: a logarithmic axis keeps both ends readable
Chart.register(LogarithmicScale);

export type { SpeedReport } from '../../src/stats/kpi-speed.schemas.js';

type Translate = (key: string, options?: Record<string, unknown>) => string;

const MINUTE = 60;
const HOUR = 3_600;
const DAY = 86_400;
/** The delay axis's ticks: the band limits and a few round durations (5 min beside 15 min overlapped in Arabic). */
const TICKS = [MINUTE, 15 * MINUTE, HOUR, 4 * HOUR, DAY, 7 * DAY, 30 * DAY];

/** A delay in seconds in words of the page's language: "45 min", "1 h 15 min", "3 d 6 h". */
export function delayWords(seconds: number, t: Translate): string {
  if (seconds < HOUR) return t('kpi.speed.minutes', { count: Math.round(seconds / MINUTE) });
  if (seconds < DAY) {
    const [h, m] = [Math.floor(seconds / HOUR), Math.round((seconds % HOUR) / MINUTE)];
    return m ? t('kpi.speed.hoursMinutes', { h, m }) : t('kpi.speed.hours', { count: h });
  }
  const [d, h] = [Math.floor(seconds / DAY), Math.round((seconds % DAY) / HOUR)];
  return h ? t('kpi.speed.daysHours', { d, h }) : t('kpi.speed.days', { count: d });
}

/** A logarithmic delay axis with the round ticks, written in words. */
function delayAxis(t: Translate) {
  return {
    type: 'logarithmic' as const,
    min: MINUTE / 2,
    max: 30 * DAY,
    afterBuildTicks: (axis: Scale) => {
      axis.ticks = TICKS.map((value) => ({ value }));
    },
    ticks: { callback: (value: string | number) => delayWords(Number(value), t) },
  };
}

const MEDIAN = statusColour('lead', 'confirmed');
const P90 = statusColour('lead', 'call_later');

/** The tooltip line of a delay: the series and its value in words. */
const delayTooltip = (t: Translate) => ({
  callbacks: {
    label: (c: { dataset: { label?: string }; parsed: { x: number | null; y: number | null } }) =>
      `${c.dataset.label}: ${delayWords(Number(c.parsed.y ?? c.parsed.x), t)}`,
  },
});

/** The median and 90th percentile of each day's leads, on the delay axis. */
export function SpeedDaysChart({ speed }: { speed: SpeedReport }) {
  const { translateComponent: t, i18n } = useTranslation();
  const config = React.useMemo<ChartConfiguration>(
    () => ({
      type: 'line',
      data: {
        labels: speed.days.map((d) => d.day.slice(5)),
        datasets: [
          { label: t('kpi.speed.median'), data: speed.days.map((d) => d.median_seconds), borderColor: MEDIAN },
          { label: t('kpi.speed.p90'), data: speed.days.map((d) => d.p90_seconds), borderColor: P90 },
        ].map((d) => ({ ...d, backgroundColor: d.borderColor, spanGaps: true })),
      },
      options: { scales: { y: delayAxis(t) }, plugins: { tooltip: delayTooltip(t) } },
    }),
    [speed, i18n.language],
  );
  return <ChartCanvas config={config} label="speed-days" height={240} />;
}

/** The median and 90th percentile per agent or per source, as horizontal bars on the delay axis. */
export function SpeedBreakdownChart({ speed, by }: { speed: SpeedReport; by: 'agent' | 'source' }) {
  const { translateComponent: t, i18n } = useTranslation();
  const rows = (by === 'agent' ? speed.by_agent : speed.by_source).slice(0, 12);
  const config = React.useMemo<ChartConfiguration>(
    () => ({
      type: 'bar',
      data: {
        labels: rows.map((r) =>
          by === 'source' ? t(`kpi.speed.source.${r.key}`, { defaultValue: r.label }) : r.label,
        ),
        datasets: [
          { label: t('kpi.speed.median'), data: rows.map((r) => r.median_seconds), backgroundColor: MEDIAN },
          { label: t('kpi.speed.p90'), data: rows.map((r) => r.p90_seconds), backgroundColor: P90 },
        ],
      },
      options: { indexAxis: 'y', scales: { x: delayAxis(t) }, plugins: { tooltip: delayTooltip(t) } },
    }),
    [speed, by, i18n.language],
  );
  return <ChartCanvas config={config} label={`speed-${by}`} height={Math.max(140, 40 * rows.length + 60)} />;
}

/** The confirmation rate of the period's leads in each delay band, the untouched ones last. */
export function BandsChart({ speed }: { speed: SpeedReport }) {
  const { translateComponent: t, i18n } = useTranslation();
  const config = React.useMemo<ChartConfiguration>(
    () => ({
      type: 'bar',
      data: {
        labels: speed.bands.map((b) => `${t(`kpi.speed.band.${b.band}`)} (${b.leads})`),
        datasets: [
          {
            label: t('kpi.confirmationRatePercent'),
            data: speed.bands.map((b) => b.confirmation_rate),
            backgroundColor: speed.bands.map((b) => (b.band === 'untouched' ? '#6b7280' : MEDIAN)),
          },
        ],
      },
      options: { scales: { y: { min: 0, max: 100 } } },
    }),
    [speed, i18n.language],
  );
  return <ChartCanvas config={config} label="speed-bands" height={240} />;
}

/** Returned ÷ (delivered + returned) per city, product or agent who confirmed, largest first. */
export function ReturnsChart({ speed, by }: { speed: SpeedReport; by: keyof SpeedReport['returns'] }) {
  const { translateComponent: t, i18n } = useTranslation();
  const rows = speed.returns[by].slice(0, 10);
  const config = React.useMemo<ChartConfiguration>(
    () => ({
      type: 'bar',
      data: {
        labels: rows.map((r) => `${r.label} (${r.delivered + r.returned})`),
        datasets: [
          {
            label: t('kpi.returns.rate'),
            data: rows.map((r) => r.return_rate),
            backgroundColor: statusColour('order', 'returned'),
          },
        ],
      },
      options: { indexAxis: 'y', scales: { x: { min: 0, max: 100 } } },
    }),
    [speed, by, i18n.language],
  );
  return <ChartCanvas config={config} label={`returns-${by}`} height={Math.max(120, 30 * rows.length + 50)} />;
}
