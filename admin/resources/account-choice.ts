import type { Actor } from '../../src/actor.js';
import { ValidationError } from '../../src/errors.js';
import { isSystemWide } from '../../src/policy.js';
import type { ComponentName } from '../panel-components.js';
import { accountProp } from './panel-ui.js';

/**
 * A reference an admin chooses on a create form (admin/components/admin-choice.tsx: a searchable select, required,
 * shown to admins on a new record only). Sellers and agents see nothing: their account comes from the server.
 */
const adminChoice = { list: false, filter: false, show: true, edit: true };

/** The tenant column as on every resource, plus the admin's choice of account on the create form. */
export const accountChoiceProp = {
  account_id: {
    ...accountProp.account_id,
    isVisible: { ...accountProp.account_id.isVisible, edit: true },
    components: { ...accountProp.account_id.components, edit: 'AdminChoice' satisfies ComponentName },
  },
};

/** An API key's owner: an admin picks a user of the chosen account; a seller's key is their own. */
export const ownerChoiceProp = {
  user_id: { reference: 'users', isVisible: adminChoice, components: { edit: 'AdminChoice' satisfies ComponentName } },
};

/**
 * What a create form posts for the chosen references, as the service takes them: an admin's choice (required of
 * them, so a new row never lands in the admin's own "Back Office" account by omission), nothing for a seller or an
 * agent, whose posted account_id / user_id are dropped (the services take their account from the actor too).
 */
export function chosen(actor: Actor, p: Record<string, unknown>, keys: ('account_id' | 'user_id')[] = ['account_id']) {
  if (!isSystemWide(actor)) return {};
  const missing = keys.filter((key) => p[key] === undefined);
  if (missing.length)
    throw new ValidationError(Object.fromEntries(missing.map((key) => [key, [`The ${key} field is required.`]])));
  return Object.fromEntries(keys.map((key) => [key, p[key]]));
}
