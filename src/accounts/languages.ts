import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { ForbiddenError, ValidationError } from '../errors.js';
import { isLanguage, LANGUAGES, type Language } from '../languages.js';

/**
 * The signed-in user's own language (null: follow the browser). Only a person chooses it, for their own login; the
 * choice is kept on the user, so it follows them to any browser.
 */
export async function setUserLanguage(
  core: Core,
  actor: Actor,
  language: unknown,
): Promise<{ language: Language | null }> {
  if (actor.kind !== 'user') throw new ForbiddenError('Only a signed-in user chooses a language.');
  // a body without the field is a careless client's, not a choice: only an explicit null (or '') follows the browser
  if (language === undefined) throw ValidationError.single('language', 'The language field is required.');
  const value = language === null || language === '' ? null : language;
  if (value !== null && !isLanguage(value))
    throw ValidationError.single('language', `The language must be one of ${LANGUAGES.join(', ')}.`);
  await core.models.User.update({ language: value }, { where: { id: actor.userId } });
  return { language: value };
}
