import type { ActionContext, ActionResponse, RecordJSON } from 'adminjs';
import { fieldMessage, formWords, validationText, type FormWords } from '../panel-form-errors.js';

/**
 * Why an intake entry was refused (or what it duplicated), in the reader's language. The intake endpoints log their
 * reasons in English (src/sources/form-intake.service.ts, store-intake.service.ts, the form budgets of
 * http/rate-limit.ts), as the REST log answers them; the panel words them from `messages.validation.intake*` of
 * admin/locales/<language>.json, and a field error like every form's (fieldMessage). A sentence no rule knows keeps
 * its text.
 */
const REASONS: [RegExp, string, string[]][] = [
  [/^The phone already belongs to a recent lead\.$/, 'intakeDuplicate', []],
  [/^This page may not send to this form\.$/, 'intakeOrigin', []],
  [/^The website field must be empty\.$/, 'intakeHoneypot', []],
  [/^Too many submissions from your address\./, 'intakeRateIp', []],
  [/^This form receives too many submissions right now\./, 'intakeRateSource', []],
  [/^The form is too large\.$/, 'intakeTooLarge', []],
  [/^The form has too many fields\.$/, 'intakeTooManyFields', []],
  [/^The form could not be read/, 'intakeUnreadable', []],
  [/^bad signature$/, 'intakeSignature', []],
  [/^order already received$/, 'intakeRedelivered', []],
  [/^malformed JSON$/, 'intakeUnreadable', []],
  [/^body over (\d+) MB$/, 'intakeBodyOver', ['limit']],
  [/^topic not handled: (.*)$/, 'intakeTopic', ['topic']],
  [/^invalid order: (.*)$/, 'intakeInvalidOrder', ['detail']],
  [/^(\d+) lines? not mapped: (.*)$/, 'intakeNotMapped', ['count', 'lines']],
];

export function intakeReason(reason: string, words: FormWords): string {
  for (const [pattern, key, names] of REASONS) {
    const m = pattern.exec(reason);
    if (!m) continue;
    // an invalid order's detail is a field error of the lead rules: said in the reader's words too
    const value = (n: string, i: number) => (n === 'detail' ? fieldMessage(m[i + 1], words) : m[i + 1]);
    return validationText(key, Object.fromEntries(names.map((n, i) => [n, value(n, i)])), words.language);
  }
  return fieldMessage(reason, words);
}

/** The list's and the show page's reasons in the reader's words. */
export async function intakeReasonsAfter(response: ActionResponse, _request: unknown, context: ActionContext) {
  const words = formWords(context);
  const records: RecordJSON[] = response.records ?? (response.record ? [response.record] : []);
  for (const r of records) if (r.params.reason) r.params.reason = intakeReason(String(r.params.reason), words);
  return response;
}
