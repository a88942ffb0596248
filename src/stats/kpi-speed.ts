import type { KpiRange } from './kpi.repository.js';
import { daysOf, rate } from './kpi.schemas.js';
import type { DelayRow, KpiSpeedRepository } from './kpi-speed.repository.js';
import {
  DELAY_BANDS,
  DELAY_EDGES,
  RETURN_BREAKDOWNS,
  type DelayFigures,
  type SpeedReport,
} from './kpi-speed.schemas.js';

const NOBODY: DelayFigures = { touched: 0, median_seconds: null, p90_seconds: null };

/** A histogram row's percentiles as the edges of their buckets, in seconds. */
const delayFigures = (r: DelayRow): DelayFigures => ({
  touched: r.touched,
  median_seconds: DELAY_EDGES[r.p50],
  p90_seconds: DELAY_EDGES[r.p90],
});

/**
 * The speed-to-lead and return-rate figures of a range (without from/to/zone/as_of, which the service adds): every
 * day of the range (zeros included), the breakdowns by first toucher and entry point, the five bands in order, and
 * the return rate by city, product and confirmer. Six reads on the read pool, run at once.
 */
export async function speedFigures(
  repo: KpiSpeedRepository,
  range: KpiRange,
): Promise<Pick<SpeedReport, 'days' | 'by_agent' | 'by_source' | 'bands' | 'returns'>> {
  const [days, agents, sources, bands, returns] = await Promise.all([
    repo.delayDays(range),
    repo.delayBreakdown(range, 'agent'),
    repo.delayBreakdown(range, 'entry'),
    repo.bands(range),
    Promise.all(RETURN_BREAKDOWNS.map((by) => repo.returns(range, by))),
  ]);
  const byDay = new Map(days.map((d) => [d.key, delayFigures(d)]));
  const byBand = new Map(bands.map((b) => [b.key, b]));
  return {
    days: daysOf(range.from, range.to).map((day) => ({ day, ...(byDay.get(day) ?? NOBODY) })),
    by_agent: agents.map((a) => ({ key: a.key, label: a.label, ...delayFigures(a) })),
    by_source: sources.map((s) => ({ key: s.key, label: s.label, ...delayFigures(s) })),
    bands: DELAY_BANDS.map((band) => {
      const { leads = 0, confirmed = 0 } = byBand.get(band) ?? {};
      return { band, leads, confirmed, confirmation_rate: rate(confirmed, leads) };
    }),
    returns: Object.fromEntries(
      RETURN_BREAKDOWNS.map((by, i) => [
        by,
        returns[i].map((r) => ({
          key: r.key,
          label: r.label,
          delivered: r.delivered,
          returned: r.returned,
          return_rate: rate(r.returned, r.delivered + r.returned),
        })),
      ]),
    ) as SpeedReport['returns'],
  };
}
