import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import i18next from 'i18next';
import type React from 'react';
import {
  formatMoney,
  formatNumber,
  formatPercent,
  localeOf,
  pluralCategory,
  textDirection,
} from '../../src/locale-format.js';
import { datePartsInZone, formatInZone } from '../../src/time-zones.js';
import { TRANSLATIONS } from '../../admin/panel-locale.js';
import { DateIsolate } from '../../admin/components/local-text.js';

const AT = '2026-11-27T13:30:00Z';
const ZONE = 'Africa/Casablanca';
/** Intl's own Arabic text of the instant, the reference the panel's text must equal, character for character. */
const intlArabic = new Intl.DateTimeFormat('ar-MA', {
  timeZone: ZONE,
  dateStyle: 'medium',
  timeStyle: 'short',
  hourCycle: 'h23',
}).format(new Date(AT));
const LTR_MARKS = /[\u200e\u202a\u202d\u2066]/;

describe('words in the reader’s language: dates, numbers, plurals (src/locale-format.ts)', () => {
  it('When a time is written in Arabic, Then it is Intl’s text for ar-MA, in logical order, with no LTR mark', () => {
    const text = formatInZone(AT, ZONE, 'ar');
    expect(text).to.equal(`${intlArabic} (${ZONE})`);
    // day, month, year and time in the order they are read, the right-to-left marks Intl puts between them kept
    expect(text).to.equal('27\u200f/11\u200f/2026، 14:30 (Africa/Casablanca)');
    expect(text).not.to.match(LTR_MARKS);
    expect(datePartsInZone(new Date(AT), ZONE, 'ar')).to.deep.equal({ date: '27\u200f/11\u200f/2026', time: '14:30' });
  });

  it('When the panel shows an Arabic date, Then it is isolated right to left, never in a left-to-right isolate', () => {
    // the element the panel draws: a <bdi> in the language's direction holding Intl's text as it is
    const drawn = (language: string) => {
      const text = formatInZone(AT, ZONE, language);
      const el = DateIsolate({ language, children: text }) as React.ReactElement<{ dir: string; children: string }>;
      return [el.type, el.props.dir, el.props.children];
    };
    expect(drawn('ar')).to.deep.equal(['bdi', 'rtl', `${intlArabic} (${ZONE})`]);
    expect(drawn('fr')).to.deep.equal(['bdi', 'ltr', `27 nov. 2026, 14:30 (${ZONE})`]);
    expect(textDirection('ar')).to.equal('rtl');
    expect(textDirection('en')).to.equal('ltr');
    expect(localeOf('ar')).to.equal('ar-MA');
  });

  it('When a component shows a time, Then no left-to-right element holds it (the panel’s sources)', () => {
    const dir = path.resolve('admin/components');
    const wrapped: string[] = [];
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.tsx'))) {
      const source = fs.readFileSync(path.join(dir, file), 'utf8');
      // an element with dir="ltr" whose content is a time: times.x, when(…), when_text, *_at, formatInZone
      for (const m of source.matchAll(/dir="ltr"[^>]*>\s*\{[^}]*(times\.|when\(|when_text|_at\b|formatInZone)/g))
        wrapped.push(`${file}: ${m[0].replace(/\s+/g, ' ')}`);
    }
    expect(wrapped).to.deep.equal([]);
  });

  it('When a figure is written in French, Then it reads 249,00, 41,2 % and 1 249 with Intl’s spaces', () => {
    expect(formatMoney(249, 'fr')).to.equal('249,00');
    expect(formatMoney('1249.5', 'fr')).to.equal('1\u202f249,50');
    expect(formatPercent(41.2, 'fr')).to.equal('41,2\u00a0%');
    expect(formatNumber(1249, 'fr')).to.equal('1\u202f249');
    expect(formatMoney(249, 'en')).to.equal('249.00');
    expect(formatPercent(41.2, 'en')).to.equal('41.2%');
    expect(formatPercent(33, 'en')).to.equal('33%');
    expect(formatNumber(1249, 'en')).to.equal('1,249');
  });

  it('When a figure is written in Arabic, Then it is what Intl writes for ar-MA (the locale of the Arabic dates)', () => {
    expect(formatMoney(1249, 'ar')).to.equal(new Intl.NumberFormat('ar-MA', { minimumFractionDigits: 2 }).format(1249));
    const percent = new Intl.NumberFormat('ar-MA', { style: 'percent', maximumFractionDigits: 1 });
    expect(formatPercent(41.2, 'ar')).to.equal(percent.format(0.412));
    expect(formatNumber(7, 'ar')).to.equal(new Intl.NumberFormat('ar-MA').format(7));
  });

  it('When there is no figure, Then a dash is shown, not NaN or 0', () => {
    for (const none of [null, undefined, '', 'abc'])
      expect([formatMoney(none, 'fr'), formatPercent(none, 'fr'), formatNumber(none, 'fr')]).to.deep.equal([
        '—',
        '—',
        '—',
      ]);
  });

  it('When the browser’s i18next words a count, Then it picks the same plural form as the server’s translate()', async () => {
    const i18n = i18next.createInstance();
    await i18n.init({
      lng: 'ar',
      fallbackLng: 'en',
      resources: Object.fromEntries(Object.entries(TRANSLATIONS).map(([l, t]) => [l, { translation: t }])),
      interpolation: { escapeValue: false },
    });
    for (const language of ['en', 'fr', 'ar'] as const)
      for (const count of [0, 1, 2, 3, 11, 100]) {
        const t = i18n.getFixedT(language);
        const key = 'messages.ordersQueued';
        const form = pluralCategory(count, language);
        expect(t(key, { count, company: 'Amana' }), `${language} ${count} (${form})`).to.equal(
          (await import('../../admin/locale-text.js')).translate(language, key, { count, company: 'Amana' }),
        );
      }
    expect(i18n.getFixedT('en')('messages.ordersQueued', { count: 1, company: 'Amana' })).to.equal(
      '1 order queued for Amana.',
    );
    expect(i18n.getFixedT('ar')('components.kpi.lastDays', { count: 7 })).to.equal('آخر 7 أيام');
  });
});
