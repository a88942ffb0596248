import type { ActionContext, ActionResponse } from 'adminjs';
import type { ValidationError } from '../src/errors.js';
import { pluralCategory } from '../src/locale-format.js';
import { TRANSLATIONS } from './panel-locale.js';
import { statusLabel } from './components/status-palette.js';

/*
 * A service's refusal of a panel form, in the form's words (docs/admin-panel.md, "Forms keep what was typed"): every
 * field error under its own field, named by the property's label ("Call back at is required for Call later"), the
 * values typed kept. The services say it in Laravel's English with dotted paths (src/validation.ts); the words here
 * are keys under `messages.validation` of admin/locales/<language>.json.
 */

type Language = keyof typeof TRANSLATIONS | string;
type Words = Record<string, unknown>;

const wordsOf = (language: Language): Words =>
  ((TRANSLATIONS as Record<string, Words>)[language] ?? TRANSLATIONS.en) as Words;

const lookup = (words: Words, path: string[]): string | undefined => {
  let at: unknown = words;
  for (const key of path) at = at && typeof at === 'object' ? (at as Words)[key] : undefined;
  return typeof at === 'string' ? at : undefined;
};

/**
 * `messages.validation.<key>` in `language` (English when that language lacks it), `{{name}}` filled from `vars`; a
 * whole-number `count` picks the language's plural form (`<key>_one`, …) as admin/locale-text.ts translate() does.
 */
export function validationText(key: string, vars: Record<string, string>, language: Language = 'en'): string {
  const path = ['messages', 'validation', key];
  const count = /^\d+$/.test(vars.count ?? '') ? Number(vars.count) : null;
  const inLanguage = (l: Language) =>
    (count === null ? undefined : lookup(wordsOf(l), [...path.slice(0, 2), `${key}_${pluralCategory(count, l)}`])) ??
    lookup(wordsOf(l), path);
  const template = inLanguage(language) ?? inLanguage('en') ?? key;
  return template.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => vars[name] ?? '');
}

/** Laravel's sentences (src/validation.ts and the services) → a key of `messages.validation` and its values. */
const RULES: [RegExp, string, string[]][] = [
  [/^The (\S+) field is required when (\S+) is (\S+)\.$/, 'requiredIf', ['field', 'other', 'value']],
  [/^The (\S+) field is required\.$/, 'required', ['field']],
  [/^The (\S+) field must be at least (\d+) characters\.$/, 'minLength', ['field', 'limit']],
  [/^The (\S+) field must not be greater than (\d+) characters\.$/, 'maxLength', ['field', 'limit']],
  [/^The (\S+) field must be at least (\d+)\.$/, 'min', ['field', 'limit']],
  [/^The (\S+) field must not be greater than (\d+)\.$/, 'max', ['field', 'limit']],
  [/^The (\S+) field must be (?:a number|an integer)\.$/, 'number', ['field']],
  [/^The (\S+) field must be a valid email address\.$/, 'email', ['field']],
  [/^The (\S+) field must be (?:a string|text)\.$/, 'text', ['field']],
  [/^The (\S+) field must not nest more than (\d+) levels deep\.$/, 'nested', ['field', 'limit']],
  [/^The (\S+) field must (?:match the format|be a valid ISO 8601 date)/, 'dateTime', ['field']],
  [/^The (\S+) field must be a date after now\.$/, 'future', ['field']],
  [/^The (\S+) field must be a date after or equal to (\S+)\.$/, 'afterOrEqual', ['field', 'other']],
  [/^The (\S+) field must be a date before or equal to today\.$/, 'notAfterToday', ['field']],
  [/^The (\S+) field must be a date in the format YYYY-MM-DD\.$/, 'day', ['field']],
  [/^The (\S+) field must be at most (\d+) days before (\S+)\.$/, 'daysBefore', ['field', 'limit', 'other']],
  [/^The (\S+) has already been taken\.$/, 'taken', ['field']],
  [/^The selected (\S+) is invalid\.$/, 'invalid', ['field']],
  // issue 41: a value outside a list (oneOf, src/validation.ts), the sku rule (skuError, src/leads/lead.check.ts) and
  // a call-back that has passed (pastCallBack, src/leads/call-back.ts), each naming the value typed
  [/^The (\S+) '(.*)' is not one of: (.+)\.$/, 'notOneOf', ['field', 'typed', 'allowed']],
  [/^Sku '(.*)' does not exist; did you mean '(.*)'\?$/, 'skuCase', ['typed', 'meant']],
  [/^Sku '(.*)' does not exist\.$/, 'skuUnknown', ['typed']],
  [/^Sku '(.*)' belongs to an inactive product\.$/, 'skuInactive', ['typed']],
  [/^The (\S+) '(.*)' is in the past: a call-back must be after now\.$/, 'pastCallBack', ['field', 'typed']],
  // stock's refusals (src/stock: stock.service.ts, stock-count.ts, stock.reactions.ts)
  [/^The sku (.*) is not an active product of the account\.$/, 'stockSku', ['typed']],
  [/^The warehouse (.*) is not one of the account's\.$/, 'stockWarehouse', ['typed']],
  [
    /^The adjustment would take (.*) in (\S+) below 0 \((-?\d+) on hand\)\.$/,
    'stockBelowZero',
    ['typed', 'warehouse', 'count'],
  ],
  [
    /^The movement would take (.*) in (\S+) above (\d+) \((-?\d+) on hand\)\.$/,
    'stockAboveMax',
    ['typed', 'warehouse', 'limit', 'count'],
  ],
  [/^The quantity must be a whole number from 0 to (\d+) \(read: (.*)\)\.$/, 'stockCountQuantity', ['limit', 'typed']],
  [/^(.*) in (\S+) is counted twice \(first on row (\d+)\)\.$/, 'stockCountedTwice', ['typed', 'warehouse', 'row']],
  [
    /^Not enough stock of (.*) in (\S+): (\d+) available, (\d+) needed\.$/,
    'stockShort',
    ['typed', 'warehouse', 'available', 'needed'],
  ],
  [/^Only a new order changes warehouse; (\S+) is (.+)\.$/, 'stockOrderNotNew', ['typed', 'state']],
  // the blocklist's refusals (src/blocklist/blocklist.service.ts)
  [/^The (\S+) is already blocked\.$/, 'alreadyBlocked', ['field']],
  [
    /^The (\S+) is not a possible phone number \(national numbers of (\S+),.*cannot be blocked\.$/,
    'notMatchable',
    ['field', 'country'],
  ],
];

/** How a form names its fields: the label of a path (its last segment for product rows), the label of a value. */
export interface FormWords {
  label: (path: string) => string;
  valueLabel: (path: string, value: string) => string;
  language: Language;
}

const lastSegment = (path: string) => path.split('.').pop() ?? path;
const listed = (list: string, word: (value: string) => string) => list.split(', ').map(word).join(', ');

/** Whether a service sentence is one the rules put in the field's words. */
export const knownMessage = (message: string): boolean => RULES.some(([pattern]) => pattern.test(message));

/** One service message in the field's own words; a sentence no rule knows keeps its text, the path made a label. */
export function fieldMessage(message: string, words: FormWords): string {
  for (const [pattern, key, names] of RULES) {
    const m = pattern.exec(message);
    if (!m) continue;
    const vars = Object.fromEntries(names.map((n, i) => [n, m[i + 1]]));
    if (vars.value) vars.value = words.valueLabel(vars.other, vars.value);
    if (vars.other) vars.other = words.label(vars.other);
    // the allowed values in words, as the form's list offers them ("Call later", not call_later)
    if (vars.allowed) vars.allowed = listed(vars.allowed, (v) => words.valueLabel(lastSegment(vars.field), v));
    if (vars.field) vars.field = words.label(vars.field);
    return validationText(key, vars, words.language);
  }
  return message
    .replace(/^The ([a-z]+(?:_[a-z]+)+) /, (_m, path: string) => `${words.label(path)} `)
    .replace(/\b[a-z]+(?:_[a-z]+)+\b/g, (path) => words.label(path));
}

/** A page's words (the queue, KPI): the panel's property labels, statuses in words. */
export function pageWords(language: Language = 'en'): FormWords {
  const words = wordsOf(language);
  return {
    label: (path) => lookup(words, ['properties', path]) ?? lookup(words, ['components', 'zonedTime', path]) ?? path,
    valueLabel: (path, value) =>
      lookup(words, ['labels', path, value]) ?? (path === 'status' ? statusLabel(value) : value),
    language,
  };
}

/** The form's words: the resource's translated labels and available values (AdminJS's own lookup order). */
export function formWords(context: ActionContext): FormWords {
  const language = (context.currentAdmin as { language?: string } | undefined)?.language ?? 'en';
  const words = wordsOf(language);
  const resourceId = context.resource.id();
  const decorated = context.resource.decorate();
  const label = (path: string) => {
    const name =
      path
        .split('.')
        .filter((s) => !/^\d+$/.test(s))
        .pop() ?? path;
    return (
      lookup(words, ['resources', resourceId, 'properties', name]) ??
      lookup(words, ['properties', name]) ??
      name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase())
    );
  };
  const valueLabel = (path: string, value: string) =>
    lookup(words, ['resources', resourceId, 'labels', path, value]) ??
    lookup(words, ['labels', path, value]) ??
    decorated
      .getPropertyByKey(path)
      ?.availableValues()
      ?.find((v) => v.value === value)?.label ??
    value;
  return { label, valueLabel, language };
}

/**
 * The answer to a refused form: no values (AdminJS keeps the form's, so nothing typed is lost and the stored ones do
 * not come back), each error under its field (`aliases`: a service path → the form's field, such
 * as the lead's `name` → `phone`), errors of no field of the form in the notice. Nothing was saved.
 */
export function refusedForm(
  err: ValidationError,
  context: ActionContext,
  aliases: Record<string, string> = {},
): ActionResponse {
  const words = formWords(context);
  const shown = new Set(
    context.resource
      .decorate()
      .getProperties({ where: 'edit' })
      .map((p) => p.propertyPath),
  );
  const errors: Record<string, { message: string; type: string }> = {};
  const elsewhere: string[] = [];
  for (const [key, messages] of Object.entries(err.errors)) {
    const path = aliases[key] ?? key;
    // two rules a value broke may say the same words (a call-back time both unmatched and no date): said once
    const text = [...new Set(messages.map((m) => fieldMessage(m.split(key).join(path), words)))].join(' ');
    if (shown.has(path.split('.')[0])) errors[path] = { message: text, type: 'validation' };
    else elsewhere.push(text);
  }
  const json = context.record?.toJSON(context.currentAdmin);
  const summary = validationText('summary', {}, words.language);
  return {
    // no params: AdminJS merges the answer's over the form's, so the stored values must not come back over the typed
    // ones (the typed ones are the browser's already, and an answer never echoes a request)
    record: { ...(json ?? {}), params: {}, errors, populated: json?.populated ?? {} },
    notice: { message: [summary, ...elsewhere].join(' '), type: 'error' },
  } as ActionResponse;
}
