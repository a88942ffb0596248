import React from 'react';
import { useCurrentAdmin } from 'adminjs';
import { FALLBACK_ZONE } from '../../src/time-zones.js';
import {
  formatMoney,
  formatNumber,
  formatPercent,
  isLeftToRightValue,
  textDirection,
} from '../../src/locale-format.js';

/** The viewer's zone and language (currentAdmin: the language the server wrote the page's times in), else English. */
export function useViewer(): { zone: string; language: string } {
  const [admin] = useCurrentAdmin();
  const a = (admin ?? {}) as { timeZone?: string; language?: string };
  return { zone: a.timeZone ?? FALLBACK_ZONE, language: a.language ?? 'en' };
}

/**
 * Figures in the viewer's language (src/locale-format.ts): `number(1249)` → "1 249", `money(249)` → "249,00",
 * `percent(41.2)` → "41,2 %" in French; '—' for no figure.
 */
export function useFigures() {
  const { language } = useViewer();
  return {
    language,
    number: (v: number | string | null | undefined, maxDecimals?: number) => formatNumber(v, language, maxDecimals),
    money: (v: number | string | null | undefined) => formatMoney(v, language),
    percent: (v: number | string | null | undefined) => formatPercent(v, language),
  };
}

/**
 * A date or a time as the server or src/time-zones.ts wrote it in `language`, isolated in that language's direction:
 * an Arabic date (Intl puts right-to-left marks in it) reads right to left as Intl meant it; inside a left-to-right
 * isolate it would read "2902:14 ،2026/11/". Identifiers (phones, references, e-mails) stay in their own
 * `<bdi dir="ltr">`; a date never does.
 */
export function DateIsolate({
  language,
  children,
  style,
  testId,
}: {
  language: string;
  children: React.ReactNode;
  style?: React.CSSProperties;
  testId?: string;
}) {
  return (
    <bdi dir={textDirection(language)} data-testid={testId} data-date-text="" style={style}>
      {children}
    </bdi>
  );
}

/** A date or a time in the viewer's language (the one the server wrote the page's times in), in its direction. */
export function DateText(props: { children: React.ReactNode; style?: React.CSSProperties; testId?: string }) {
  return <DateIsolate language={useViewer().language} {...props} />;
}

/**
 * A value people typed or an identifier (an address, a city, an e-mail, a URL, a phone, custom data) isolated from
 * the page's direction, so it keeps its own order in Arabic: "12 Rue Ibn Batouta, Casablanca" reads left to right
 * inside a right-to-left page, an Arabic address right to left in a French one. `ltr` for identifiers (an e-mail, a
 * URL, a phone: left to right whatever they start with), else the value's own first letters decide (dir="auto").
 */
export function Isolated({
  children,
  ltr,
  style,
  testId,
}: {
  children: React.ReactNode;
  ltr?: boolean;
  style?: React.CSSProperties;
  testId?: string;
}) {
  const leftToRight = ltr ?? (typeof children === 'string' && isLeftToRightValue(children));
  return (
    <bdi dir={leftToRight ? 'ltr' : 'auto'} data-isolate="" data-testid={testId} style={style}>
      {children}
    </bdi>
  );
}
