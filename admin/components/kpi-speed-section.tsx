import React from 'react';
import { H5 } from '@adminjs/design-system';
import { useTranslation } from 'adminjs';
import { BandsChart, ReturnsChart, SpeedBreakdownChart, SpeedDaysChart, type SpeedReport } from './kpi-speed-charts.js';
import { cardStyle } from './status-palette.js';

const card = cardStyle();
/** Two or three cards a row at 1280 px (the panel's sidebar takes the rest), one under the other when narrow. */
const row = (min: number): React.CSSProperties => ({
  display: 'grid',
  gridTemplateColumns: `repeat(auto-fit, minmax(${min}px, 1fr))`,
  gap: 16,
});
const note: React.CSSProperties = { color: '#4b5563', fontSize: 13, margin: '0 0 12px' };

/**
 * Speed to lead over the page's period: the delay from a lead's creation to its first status change by a person
 * (median and 90th percentile by day, by the agent who touched it first and by its entry point) and the confirmation
 * rate per delay band. Figures from services.kpi.speed (admin/pages/kpi-page.ts).
 */
export function SpeedSection({ speed }: { speed: SpeedReport }) {
  const { translateComponent: t } = useTranslation();
  const touched = speed.bands.filter((b) => b.band !== 'untouched').reduce((n, b) => n + b.leads, 0);
  const untouched = speed.bands.find((b) => b.band === 'untouched')?.leads ?? 0;
  return (
    <section data-testid="kpi-speed" style={{ display: 'grid', gap: 16 }}>
      <div style={card}>
        <H5 mb="sm">{t('kpi.speed.title')}</H5>
        <p style={note}>{t('kpi.speed.explain')}</p>
        <p style={note} data-testid="kpi-speed-counts">
          {t('kpi.speed.touched', { touched, untouched })}
        </p>
        {touched ? <SpeedDaysChart speed={speed} /> : <p>{t('kpi.speed.noTouch')}</p>}
      </div>
      {touched > 0 && (
        <div style={row(380)}>
          <div style={card}>
            <H5 mb="default">{t('kpi.speed.byAgent')}</H5>
            <SpeedBreakdownChart speed={speed} by="agent" />
          </div>
          <div style={card}>
            <H5 mb="default">{t('kpi.speed.bySource')}</H5>
            <SpeedBreakdownChart speed={speed} by="source" />
          </div>
        </div>
      )}
      <div style={card}>
        <H5 mb="default">{t('kpi.speed.bands')}</H5>
        <BandsChart speed={speed} />
      </div>
    </section>
  );
}

/** The return rate of the period's leads' orders by city, product and the agent who confirmed. */
export function ReturnsSection({ speed }: { speed: SpeedReport }) {
  const { translateComponent: t } = useTranslation();
  const any = speed.returns.city.length > 0;
  return (
    <section data-testid="kpi-returns" style={card}>
      <H5 mb="sm">{t('kpi.returns.title')}</H5>
      <p style={note}>{t('kpi.returns.explain')}</p>
      {any ? (
        <div style={row(300)}>
          {(['city', 'product', 'agent'] as const).map((by) => (
            <div key={by}>
              <div style={{ fontWeight: 600, marginBottom: 8 }}>{t(`kpi.returns.by.${by}`)}</div>
              <ReturnsChart speed={speed} by={by} />
            </div>
          ))}
        </div>
      ) : (
        <p>{t('kpi.returns.none')}</p>
      )}
    </section>
  );
}
