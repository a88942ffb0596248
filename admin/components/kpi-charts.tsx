import React, { useEffect, useRef } from 'react';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { useTranslation } from 'adminjs';
import type { KpiReport } from '../../src/stats/kpi.schemas.js';
import { useStatusWord } from './status-badge.js';
import { LEAD_STATUS_ORDER, statusColour } from './status-palette.js';
import { useViewer } from './local-text.js';
import { localeOf, textDirection } from '../../src/locale-format.js';
import { mirrored } from './chart-direction.js';

// Only what the page draws, so the bundle carries no unused chart types.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement);
Chart.register(Legend, Tooltip);

// The report's shape is the service's own (type-only: nothing of src/ reaches the browser bundle).
export type { KpiFigures, KpiReport } from '../../src/stats/kpi.schemas.js';

/**
 * Where the drawn chart put its axes, on its canvas (`data-*`, read by the browser tests): the x pixels of the first
 * and last x ticks and the side of the y axis. In Arabic the first day is drawn right of the last one.
 */
function markLayout(canvas: HTMLCanvasElement, chart: Chart) {
  const { x, y } = chart.scales;
  if (!x || !y) return;
  const ticks = x.ticks.length;
  canvas.dataset.firstX = String(Math.round(x.getPixelForTick(0)));
  canvas.dataset.lastX = String(Math.round(x.getPixelForTick(Math.max(0, ticks - 1))));
  canvas.dataset.yAxisSide = y.left >= chart.chartArea.right ? 'right' : 'left';
}

/**
 * One chart.js chart on a canvas, drawn again when its configuration changes (no animation: figures, not a show);
 * mirrored for a right-to-left reader (chart-direction.ts).
 */
export function ChartCanvas({
  config,
  label,
  height = 280,
}: {
  config: ChartConfiguration;
  label: string;
  height?: number;
}) {
  const canvas = useRef<HTMLCanvasElement | null>(null);
  // the axes' and tooltips' numbers in the reader's language (41,2 in French)
  const { language } = useViewer();
  const locale = localeOf(language);
  const direction = textDirection(language);
  useEffect(() => {
    if (!canvas.current) return undefined;
    const options = mirrored(config.options, direction);
    const chart = new Chart(canvas.current, {
      ...config,
      options: { animation: false, responsive: true, maintainAspectRatio: false, locale, ...options },
    });
    markLayout(canvas.current, chart);
    return () => chart.destroy();
  }, [config, locale, direction]);
  return (
    <div style={{ position: 'relative', height }}>
      <canvas ref={canvas} role="img" aria-label={label} data-testid={`chart-${label}`} data-direction={direction} />
    </div>
  );
}

const rate = (part: number, whole: number) => (whole ? Math.round((1000 * part) / whole) / 10 : null);

/** Leads created each day, stacked by their current status in the palette's colours. */
export function StatusDaysChart({ report }: { report: KpiReport }) {
  const word = useStatusWord();
  const config = React.useMemo<ChartConfiguration>(
    () => ({
      type: 'bar',
      data: {
        labels: report.days.map((d) => d.day.slice(5)),
        datasets: LEAD_STATUS_ORDER.map((status) => ({
          label: word(status),
          data: report.days.map((d) => d.counts[status] ?? 0),
          backgroundColor: statusColour('lead', status),
          stack: 'leads',
        })),
      },
      options: { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } } },
    }),
    [report, word],
  );
  return <ChartCanvas config={config} label="leads-per-day" />;
}

/** Confirmation rate (confirmed / leads) and delivery rate (delivered / confirmed) of each day's leads, in %. */
export function RatesChart({ report }: { report: KpiReport }) {
  const { translateComponent, i18n } = useTranslation();
  const config = React.useMemo<ChartConfiguration>(() => {
    const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
    return {
      type: 'line',
      data: {
        labels: report.days.map((d) => d.day.slice(5)),
        datasets: [
          {
            label: translateComponent('kpi.confirmationRatePercent'),
            data: report.days.map((d) => rate(d.counts.confirmed ?? 0, total(d.counts))),
            borderColor: statusColour('lead', 'confirmed'),
            backgroundColor: statusColour('lead', 'confirmed'),
            spanGaps: true,
          },
          {
            label: translateComponent('kpi.deliveryRatePercent'),
            data: report.days.map((d) => rate(d.delivered ?? 0, d.counts.confirmed ?? 0)),
            borderColor: statusColour('order', 'shipped'),
            backgroundColor: statusColour('order', 'shipped'),
            spanGaps: true,
          },
        ],
      },
      options: { scales: { y: { min: 0, max: 100 } } },
    };
  }, [report, i18n.language]);
  return <ChartCanvas config={config} label="rates" height={220} />;
}

/** The breakdown's largest rows: leads, confirmed and delivered side by side. */
export function BreakdownChart({ report }: { report: KpiReport }) {
  const { translateComponent, i18n } = useTranslation();
  const config = React.useMemo<ChartConfiguration>(() => {
    const rows = report.breakdown.slice(0, 12);
    return {
      type: 'bar',
      data: {
        labels: rows.map((r) => r.label),
        datasets: [
          {
            label: translateComponent('kpi.leads'),
            data: rows.map((r) => r.leads),
            backgroundColor: statusColour('lead', 'new'),
          },
          {
            label: translateComponent('kpi.confirmed'),
            data: rows.map((r) => r.confirmed),
            backgroundColor: statusColour('lead', 'confirmed'),
          },
          {
            label: translateComponent('kpi.delivered'),
            data: rows.map((r) => r.delivered),
            backgroundColor: statusColour('order', 'shipped'),
          },
        ],
      },
      options: { indexAxis: 'y', scales: { x: { beginAtZero: true, ticks: { precision: 0 } } } },
    };
  }, [report, i18n.language]);
  return (
    <ChartCanvas config={config} label="breakdown" height={Math.max(160, 34 * Math.min(12, report.breakdown.length))} />
  );
}
