import Joi from 'joi';
import { ValidationError } from '../errors.js';
import type { LeadStatus } from '../leads/lead.model.js';
import { isCalendarDate, validate } from '../validation.js';
import { FALLBACK_ZONE, wallTime } from '../time-zones.js';

/** The breakdowns of the KPI report; `product` unless asked. */
export const KPI_BREAKDOWNS = ['product', 'city', 'source', 'agent'] as const;
export type KpiBreakdown = (typeof KPI_BREAKDOWNS)[number];

/** The longest period one report covers, in days (a leap year). */
export const KPI_MAX_DAYS = 366;
/** The period of a report that names no `from`, in days up to `to`. */
export const KPI_DEFAULT_DAYS = 30;
/** The breakdown rows a report answers, largest first. */
export const KPI_BREAKDOWN_ROWS = 50;

const DAY_MS = 86_400_000;

/** A calendar day written `YYYY-MM-DD` (a day of the account's time zone). */
const day = () =>
  Joi.string().custom((v: string, h) => (/^\d{4}-\d{2}-\d{2}$/.test(v) && isCalendarDate(v) ? v : h.error('day')));

/**
 * The KPI query: unknown keys are refused like every list query of the app; `account_id` is read only for an admin
 * (src/policy.ts accountScope ignores it for everyone else). An empty value (a form's unset field) is no value.
 */
export const kpiQuerySchema = Joi.object({
  from: day().empty(''),
  to: day().empty(''),
  by: Joi.string()
    .valid(...KPI_BREAKDOWNS)
    .empty(''),
  account_id: Joi.number().integer().positive().max(2_147_483_647).empty(''),
}).messages({ day: 'The {{#label}} field must be a date in the format YYYY-MM-DD.' });

export interface KpiQuery {
  from: string;
  to: string;
  by: KpiBreakdown;
  account_id?: number;
}

/** What a report counts for a set of leads; rates in percent with one decimal, null when there is nothing to divide. */
export interface KpiFigures {
  leads: number;
  confirmed: number;
  delivered: number;
  confirmation_rate: number | null;
  delivery_rate: number | null;
}

export interface KpiDay {
  day: string;
  /** Leads created that day (in the account's time zone) by their current status. */
  counts: Record<LeadStatus, number>;
  /** Leads created that day whose order is delivered. */
  delivered: number;
}

export interface KpiReport {
  from: string;
  to: string;
  /** The scope used: an account, or null for every account (an admin's). */
  account_id: number | null;
  /**
   * The IANA zone whose days these are: the account's. For every account, each account's leads count on its own
   * days, and this is the viewer's account zone, which sets "today".
   */
  time_zone: string;
  /** When the rollup was last folded: writes made since may not be counted yet (about a minute). */
  as_of: string;
  days: KpiDay[];
  totals: KpiFigures;
  by: KpiBreakdown;
  breakdown: Array<{ key: string; label: string } & KpiFigures>;
}

export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const msOf = (d: string) => Date.parse(`${d}T00:00:00Z`);

/** The day it is in `zone` at `now`. */
export const todayIn = (zone: string, now = Date.now()) => wallTime(new Date(now), zone).slice(0, 10);

/** The query as asked, checked: unknown keys, bad days and breakdowns are a ValidationError naming the field. */
export const kpiQueryInput = (input: unknown) => validate<Partial<KpiQuery>>(kpiQuerySchema, input ?? {});

/**
 * The query completed: `to` defaults to today in `zone`, `from` to the 30 days ending on `to`; `from` must not be after
 * `to`, and the period at most 366 days. Errors name the field, like every 422 of the app.
 */
export function kpiQuery(v: Partial<KpiQuery>, zone = FALLBACK_ZONE, now = Date.now()): KpiQuery {
  const to = v.to ?? todayIn(zone, now);
  const from = v.from ?? dayOf(msOf(to) - (KPI_DEFAULT_DAYS - 1) * DAY_MS);
  if (msOf(from) > msOf(to))
    throw v.to
      ? ValidationError.single('to', 'The to field must be a date after or equal to from.')
      : ValidationError.single('from', 'The from field must be a date before or equal to today.');
  if ((msOf(to) - msOf(from)) / DAY_MS + 1 > KPI_MAX_DAYS)
    throw ValidationError.single('from', `The from field must be at most ${KPI_MAX_DAYS - 1} days before to.`);
  return { from, to, by: v.by ?? 'product', ...(v.account_id ? { account_id: v.account_id } : {}) };
}

/** Every day from `from` to `to` inclusive. */
export function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = msOf(from); t <= msOf(to); t += DAY_MS) out.push(dayOf(t));
  return out;
}

/** A percentage with one decimal, or null when nothing was there to count. */
export const rate = (part: number, whole: number): number | null =>
  whole ? Math.round((part / whole) * 1000) / 10 : null;

export function figures(leads: number, confirmed: number, delivered: number): KpiFigures {
  return {
    leads,
    confirmed,
    delivered,
    confirmation_rate: rate(confirmed, leads),
    delivery_rate: rate(delivered, confirmed),
  };
}
