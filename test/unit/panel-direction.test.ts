import { expect } from 'chai';
import type React from 'react';
import type { ChartConfiguration } from 'chart.js';
import { countryName, isLeftToRightValue } from '../../src/locale-format.js';
import { mirrored } from '../../admin/components/chart-direction.js';
import { Isolated } from '../../admin/components/local-text.js';
import { TRANSLATIONS } from '../../admin/panel-locale.js';

type Options = NonNullable<ChartConfiguration['options']>;

describe('the panel in a right-to-left language: charts, isolates and codes in words (issue 41)', () => {
  const declared = {
    indexAxis: 'y',
    scales: { x: { stacked: true, min: 0 }, y: { beginAtZero: true } },
    plugins: { tooltip: { callbacks: { label: () => 'x' } } },
  } as unknown as Options;

  it('Given Arabic, When a chart is drawn, Then time runs right to left, the y axis is on the right, legend and tooltips read right to left', () => {
    const o = mirrored(declared, 'rtl') as Record<string, Record<string, Record<string, unknown>>>;
    expect(o.scales.x).to.deep.equal({ stacked: true, min: 0, reverse: true });
    expect(o.scales.y).to.deep.equal({ beginAtZero: true, position: 'right' });
    expect(o.plugins.legend).to.deep.equal({ rtl: true, textDirection: 'rtl' });
    expect(o.plugins.tooltip).to.include({ rtl: true, textDirection: 'rtl' });
    // what the chart declared is kept: its tooltip's words and its horizontal bars
    expect(o.plugins.tooltip.callbacks).to.equal((declared.plugins!.tooltip as { callbacks: unknown }).callbacks);
    expect((o as unknown as Options).indexAxis).to.equal('y');
    // room on the left for the last day's rotated label (it was clipped at the edge)
    expect(o.layout.padding).to.deep.equal({ left: 28 });
  });

  it('Given English or French, When a chart is drawn, Then its options are as declared', () => {
    expect(mirrored(declared, 'ltr')).to.equal(declared);
    expect(mirrored(undefined, 'rtl')).to.deep.include({ scales: { x: { reverse: true }, y: { position: 'right' } } });
  });

  it('Given a country code, When it is shown, Then it is the country’s name in the reader’s language', () => {
    expect(countryName('MA', 'en')).to.equal('Morocco');
    expect(countryName('MA', 'fr')).to.equal('Maroc');
    expect(countryName('MA', 'ar')).to.equal('المغرب');
    expect(countryName('ma', 'fr')).to.equal('Maroc');
    expect(countryName(null, 'fr')).to.equal('—');
    expect(countryName('not a code', 'fr')).to.equal('not a code');
    // AdminJS's selects, filters and show pages find them as labels.phone_country.<code>
    expect(TRANSLATIONS.fr.labels.phone_country.MA).to.equal('Maroc');
    expect(TRANSLATIONS.ar.labels.phone_country.FR).to.equal('فرنسا');
  });

  it('Given a value, When it is isolated, Then e-mails, URLs and phones read left to right, other text by its letters', () => {
    for (const v of ['salma@example.ma', 'https://shop.example.ma/p?id=1', '+212 611-000222', '0611000222'])
      expect(isLeftToRightValue(v), v).to.equal(true);
    for (const v of ['12 Rue Ibn Batouta, Casablanca', 'الدار البيضاء', 'Casablanca', '12', 'a@b c'])
      expect(isLeftToRightValue(v), v).to.equal(false);
    const dir = (children: string, ltr?: boolean) =>
      (Isolated({ children, ltr }) as React.ReactElement<{ dir: string }>).props.dir;
    expect(dir('salma@example.ma')).to.equal('ltr');
    expect(dir('12 Rue Ibn Batouta')).to.equal('auto');
    expect(dir('12 Rue Ibn Batouta', true)).to.equal('ltr');
  });
});
