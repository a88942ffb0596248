/**
 * Account time zones (docs/decisions.md, "Time zones"): times are stored in UTC and shown, typed and exported in the
 * account's IANA zone. Pure (Intl only), so the panel's components bundle it too.
 */
import { localeOf } from './locale-format.js';

/** The zone a new account starts in, from its phone country; a country not listed starts in UTC. */
export const COUNTRY_ZONES: Readonly<Record<string, string>> = {
  MA: 'Africa/Casablanca',
  DZ: 'Africa/Algiers',
  TN: 'Africa/Tunis',
  LY: 'Africa/Tripoli',
  EG: 'Africa/Cairo',
  SN: 'Africa/Dakar',
  CI: 'Africa/Abidjan',
  ML: 'Africa/Bamako',
  CM: 'Africa/Douala',
  NG: 'Africa/Lagos',
  KE: 'Africa/Nairobi',
  SA: 'Asia/Riyadh',
  AE: 'Asia/Dubai',
  FR: 'Europe/Paris',
  BE: 'Europe/Brussels',
  ES: 'Europe/Madrid',
  DE: 'Europe/Berlin',
  IT: 'Europe/Rome',
  GB: 'Europe/London',
  US: 'America/New_York',
  CA: 'America/Toronto',
};

export const FALLBACK_ZONE = 'UTC';

export const zoneForCountry = (country: string | null | undefined): string =>
  COUNTRY_ZONES[String(country ?? '').toUpperCase()] ?? FALLBACK_ZONE;

/** The IANA names this runtime knows (what `accounts.time_zone` may hold), UTC included. */
export function timeZoneNames(): string[] {
  const names = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone');
  return [...new Set([FALLBACK_ZONE, ...(names ?? [])])];
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(key: string, make: () => Intl.DateTimeFormat): Intl.DateTimeFormat {
  let f = formatters.get(key);
  if (!f) formatters.set(key, (f = make()));
  return f;
}

const safeZone = (zone: string | null | undefined) => {
  try {
    formatter(`probe|${zone}`, () => new Intl.DateTimeFormat('en', { timeZone: zone ?? FALLBACK_ZONE }));
    return zone || FALLBACK_ZONE;
  } catch {
    return FALLBACK_ZONE;
  }
};

/** `2026-11-27T13:30:00Z` in Africa/Casablanca → `27 Nov 2026, 14:30 (Africa/Casablanca)`; '—' for no time. */
export function formatInZone(value: string | Date | null | undefined, zone?: string | null, language = 'en'): string {
  if (value === null || value === undefined || value === '') return '—';
  const when = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(when.getTime())) return String(value);
  const tz = safeZone(zone);
  const locale = localeOf(language);
  const f = formatter(`${locale}|${tz}`, () => {
    const opts = { timeZone: tz, dateStyle: 'medium', timeStyle: 'short', hourCycle: 'h23' } as const;
    return new Intl.DateTimeFormat(locale, opts);
  });
  return `${f.format(when)} (${tz})`;
}

/**
 * The same time as its date and its time of day apart (`27 Nov 2026`, `14:30`), for a list cell that puts them on two
 * lines (admin/components/zoned-time.tsx); null for no time.
 */
export function datePartsInZone(
  value: Date | null,
  zone?: string | null,
  language = 'en',
): { date: string; time: string } | null {
  if (!value || Number.isNaN(value.getTime())) return null;
  const tz = safeZone(zone);
  const locale = localeOf(language);
  const date = formatter(
    `date|${locale}|${tz}`,
    () => new Intl.DateTimeFormat(locale, { timeZone: tz, dateStyle: 'medium' }),
  );
  const time = formatter(
    `time|${locale}|${tz}`,
    () => new Intl.DateTimeFormat(locale, { timeZone: tz, timeStyle: 'short', hourCycle: 'h23' }),
  );
  return { date: date.format(value), time: time.format(value) };
}

/** The wall-clock parts of `when` in `zone`. */
function wallParts(when: Date, zone: string): Record<string, number> {
  const f = formatter(`parts|${zone}`, () => {
    const opts = { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit' } as const;
    return new Intl.DateTimeFormat('en-US', { ...opts, hour: '2-digit', minute: '2-digit', second: '2-digit' });
  });
  const out: Record<string, number> = {};
  for (const p of f.formatToParts(when)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

/** Midnight UTC of a calendar day; unlike Date.UTC, the years 1–99 are themselves, not 1901–1999. */
const utcOf = (year: number, month: number, day: number) => new Date(0).setUTCFullYear(year, month - 1, day);

/** Minutes `zone` is ahead of UTC at `when` (Casablanca in winter: 60). */
export function offsetMinutes(when: Date, zone: string): number {
  const p = wallParts(when, safeZone(zone));
  const asUtc = utcOf(p.year, p.month, p.day) + ((p.hour * 60 + p.minute) * 60 + p.second) * 1000;
  return Math.round((asUtc - Math.floor(when.getTime() / 1000) * 1000) / 60_000);
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** `+01:00` for 60 minutes. */
export const offsetText = (minutes: number) =>
  `${minutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;

/** `when` as the wall time of `zone` for a `datetime-local` input: `2026-12-01T14:30`. */
export function wallTime(when: Date | string, zone: string): string {
  const p = wallParts(new Date(when), safeZone(zone));
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}`;
}

/** `when` in ISO 8601 with the zone's offset at that moment: `2026-12-01T14:30:00+01:00`. */
export function isoInZone(when: Date | string, zone: string): string {
  const d = new Date(when);
  const p = wallParts(d, safeZone(zone));
  const wall = `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
  return `${wall}${offsetText(offsetMinutes(d, zone))}`;
}

const WALL = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * A wall time typed in `zone` (`2026-12-01T14:30`, or a day `2026-12-01` = its midnight) → the UTC instant, or null
 * when it is not such a text or names no real day and time (31 February, 24:00). A time skipped by a clock change reads
 * as the instant an hour later.
 */
export function wallTimeToUtc(text: string, zone: string): Date | null {
  const m = WALL.exec(text);
  if (!m) return null;
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1).map((x) => (x === undefined ? undefined : Number(x))) as number[];
  const guess = utcOf(y, mo, d) + ((h * 60 + mi) * 60 + s) * 1000;
  const day = new Date(guess);
  // a day or a time that does not exist (31 February, 25:00, the year 0) is no wall time, never rolled over to another
  if (y < 1 || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
  let utc = guess - offsetMinutes(new Date(guess), zone) * 60_000;
  utc = guess - offsetMinutes(new Date(utc), zone) * 60_000;
  return Number.isNaN(utc) ? null : new Date(utc);
}
