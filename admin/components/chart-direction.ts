import type { ChartConfiguration } from 'chart.js';

type Options = NonNullable<ChartConfiguration['options']>;
type Loose = Record<string, Record<string, unknown> | undefined>;

/**
 * A chart's options as a right-to-left reader reads it (Arabic): time and values run right to left (the x axis
 * reversed, for a horizontal bar chart its bars grow from the right), the y axis with its labels on the right, the
 * legend and tooltips written right to left. Left-to-right languages get the options as they are. Pure: what the
 * chart declares (stacking, bounds, tooltip callbacks) is kept.
 */
export function mirrored(options: Options | undefined, direction: 'rtl' | 'ltr'): Options {
  const given = (options ?? {}) as Options;
  if (direction !== 'rtl') return given;
  const scales = (given.scales ?? {}) as Loose;
  const plugins = (given.plugins ?? {}) as Loose;
  const rtl = { rtl: true, textDirection: 'rtl' };
  // the rotated day labels lean left from their ticks: room for the leftmost one, which the reversed axis puts last
  const layout = (given.layout ?? {}) as { padding?: unknown };
  const padding = typeof layout.padding === 'object' && layout.padding ? layout.padding : {};
  return {
    ...given,
    layout: { ...layout, padding: { left: 28, ...padding } },
    scales: { ...scales, x: { ...scales.x, reverse: true }, y: { ...scales.y, position: 'right' } },
    plugins: { ...plugins, legend: { ...plugins.legend, ...rtl }, tooltip: { ...plugins.tooltip, ...rtl } },
  } as Options;
}
