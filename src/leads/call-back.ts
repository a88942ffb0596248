import Joi from 'joi';
import { ValidationError } from '../errors.js';
import { isCalendarDate, shownValue } from '../validation.js';

/**
 * A date-time with an offset, every ISO 8601 form of the spec's `Y-m-d\TH:i:sP` (issue 41):
 * `2026-12-01T14:30:00+01:00`, the offset also as `+0100`, `+01` or `Z` (what toISOString() gives, milliseconds
 * included), seconds optional. Offsets are those places have, up to 14 hours.
 */
const OFFSET_DATE_TIME =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-](?:0\d|1[0-4])(?::?[0-5]\d)?)$/;
/** The last instant of DATE_RANGE in UTC: 9999-12-31 with an offset behind UTC would be year 10000 (`+010000-…`). */
const LAST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** `v` (OFFSET_DATE_TIME) with its offset as `±hh:mm`, the form Date.parse and isCalendarDate read. */
const extended = (v: string) =>
  v.replace(/([+-]\d{2})(?::?(\d{2}))?$/, (_m, h: string, m?: string) => `${h}:${m ?? '00'}`);

/** The instant a valid call-back time (actionDate) names. */
export const callBackDate = (v: string): Date => new Date(extended(v));

/**
 * An action_date (REST, dashboard, panel, work queue): a real date-time with an offset, kept as typed (callBackDate
 * reads it). Whether it is ahead is the services' rule (pastCallBack), which names the value.
 */
export const actionDate = Joi.string()
  .max(40)
  .pattern(OFFSET_DATE_TIME, 'Y-m-d\\TH:i:sP')
  .custom((v: string, h) =>
    isCalendarDate(extended(v)) && callBackDate(v).getTime() <= LAST_INSTANT ? v : h.error('date.range'),
  )
  .messages({ 'string.pattern.name': 'The {{#label}} field must match the format Y-m-d\\TH:i:sP.' });

/** The refusal of a call-back time that has passed, naming the value (issue 41). */
export const pastCallBackMessage = (field: string, value: string) =>
  `The ${field} ${shownValue(value)} is in the past: a call-back must be after now.`;

/**
 * The one rule of a call-back's time (REST PUT /leads, dashboard routes, panel, work queue): a call_later lead's
 * action_date must be ahead, refused under `field` naming the value; nothing is written. `kept`: the lead's own
 * date, which an edit sending it back unchanged may keep once it has passed (the lead is due, not rescheduled).
 */
export function pastCallBack(
  moves: { status: string; action_date?: string | null }[],
  field: (i: number) => string,
  kept?: Date | null,
): void {
  const errors: Record<string, string[]> = {};
  moves.forEach(({ status, action_date }, i) => {
    if (status !== 'call_later' || !action_date) return;
    const at = callBackDate(action_date).getTime();
    if (at > Date.now() || at === kept?.getTime()) return;
    errors[field(i)] = [pastCallBackMessage(field(i), action_date)];
  });
  if (Object.keys(errors).length) throw new ValidationError(errors);
}
