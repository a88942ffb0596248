import type { ActionContext, PageContext } from 'adminjs';
import type { Actor } from '../../src/actor.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../src/errors.js';
import { actorOf } from '../resources/panel-kit.js';
import { fieldMessage, knownMessage, pageWords } from '../panel-form-errors.js';
import { translate } from '../locale-text.js';
import { isLanguage, type Language } from '../../src/languages.js';

/** What a page answers when a service refused: a sentence to show, and the fields it names. */
export interface Refusal {
  refusal: string;
  fields?: Record<string, string[]>;
}

/** The signed-in user of a page request (pages get AdminJS's currentAdmin like actions do). */
export const pageActor = (context: PageContext): Actor => actorOf(context as unknown as ActionContext);

/** The service's field names as the pages' people read them ("The call-back time field is required."). */
const FIELD_WORDS: Record<string, string> = {
  action_date: 'call-back time',
  account_id: 'account',
  status: 'outcome',
  note: 'note',
  from: 'start date',
  to: 'end date',
  by: 'breakdown',
};

/** A validation message with its field names in words ("…after or equal to the start date."). */
export function inWords(message: string): string {
  return message
    .replace(/\b(The(?: selected)?) ([a-z_]+)\b/g, (all, the: string, field: string) =>
      FIELD_WORDS[field] ? `${the} ${FIELD_WORDS[field]}` : all,
    )
    .replace(
      /\b(after|before)( or equal to)? ([a-z_]+)\.$/,
      (all, side: string, equal: string | undefined, field: string) =>
        FIELD_WORDS[field] ? `${side}${equal ?? ''} the ${FIELD_WORDS[field]}.` : all,
    );
}

/**
 * A service's typed refusal as words for the page (AdminJS pages have no notices of their own); anything else is a
 * real failure and goes on to the app's error handler.
 */
export function refusalOf(err: unknown, notFound: string, language = 'en'): Refusal {
  const lang = isLanguage(language) ? language : 'en';
  if (err instanceof ValidationError) {
    // the forms' words (admin/panel-form-errors.ts) where a rule knows the sentence, else the field names in words
    const words = pageWords(language);
    const say = (m: string) => (knownMessage(m) ? fieldMessage(m, words) : inWords(m));
    const fields = Object.fromEntries(Object.entries(err.errors).map(([k, ms]) => [k, ms.map(say)]));
    return { refusal: Object.values(fields).flat().join(' '), fields };
  }
  if (err instanceof NotFoundError) return { refusal: translate(lang, notFound) };
  if (err instanceof ConflictError || err instanceof ForbiddenError)
    return { refusal: serviceWords(err.message, lang) };
  throw err;
}

/** The services' refusals a page shows (src/queue/queue.service.ts) → keys of admin/locales; others as said. */
const SERVICE_WORDS: [RegExp, string][] = [
  [/^The queue is busy; ask again\.$/, 'components.queue.busy'],
  [/^Another agent is working on this lead\.$/, 'components.queue.heldByAnother'],
  [/^You do not hold this lead/, 'components.queue.notHeld'],
  [/^Lead (?<reference>\S+) no longer waits in the queue/, 'components.queue.changedWhileHeld'],
];

function serviceWords(message: string, language: Language): string {
  for (const [pattern, key] of SERVICE_WORDS) {
    const m = pattern.exec(message);
    if (m) return translate(language, key, { ...m.groups });
  }
  return message;
}

/** A request value as a positive whole number, or undefined (the service then refuses or ignores it). */
export function idOf(v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) && n > 0 ? n : Number.NaN;
}

/** The request's payload (AdminJS parses JSON and form bodies alike into `payload`). */
export const payloadOf = (request: { payload?: unknown }): Record<string, unknown> =>
  request.payload && typeof request.payload === 'object' ? (request.payload as Record<string, unknown>) : {};
