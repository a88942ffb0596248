import {
  ForbiddenError as AdminForbiddenError,
  NotFoundError as AdminNotFoundError,
  ValidationError as AdminValidationError,
  type Action,
  type ActionContext,
  type ActionRequest,
  type ActionResponse,
  type CurrentAdmin,
  type ResourceJSON,
  type ResourceOptions,
  type ResourceWithOptions,
} from 'adminjs';
import { userActor, type Actor, type Role } from '../../src/actor.js';
import type { Language } from '../../src/languages.js';
import { ConflictError, ForbiddenError, NotFoundError, RateLimitedError, ValidationError } from '../../src/errors.js';
import { BUSY_ACCOUNT } from '../../src/accounts/account.service.js';
import { SETTINGS_BUDGET_MESSAGE } from '../../src/accounts/settings-saves.repository.js';
import { can, isSystemWide, type Ability, type Resource } from '../../src/policy.js';
import { isCalendarDate } from '../../src/validation.js';
import { translate } from '../locale-text.js';

/** The panel's currentAdmin, filled from the dashboard session (one login for the whole dashboard). */
export interface PanelAdmin extends CurrentAdmin {
  id: string;
  userId: number;
  email: string;
  title: string;
  role: Role;
  accountId: number;
  /** The user's account's time zone: times of records without an account (and pages) are written in it. */
  timeZone: string;
  /** The dashboard session (a password changed in it ends the user's other sessions only). */
  sessionId?: string;
  /** The language the panel speaks to this user: their choice, else their browser's (admin/locale-text.ts). */
  language: Language;
  /** What the user chose (null: follow the browser), for the language menu. */
  languageChosen: Language | null;
}

export function actorOf(context: ActionContext): Actor {
  const a = context.currentAdmin as unknown as PanelAdmin;
  return userActor(
    { id: a.userId, account_id: a.accountId, role: a.role, name: a.title, language: a.language },
    a.sessionId,
  );
}

/**
 * The resource as one viewer's panel describes it: a user of one account (a seller, an agent) is not shown the
 * account column or filter, since every row is theirs; an admin, who sees every account, is. The scope itself is
 * the adapter's (scoped-resource.ts); this only decides what is shown.
 */
export function asSeenBy(json: ResourceJSON, currentAdmin: CurrentAdmin | undefined): ResourceJSON {
  if (currentAdmin && isSystemWide(actorOf({ currentAdmin } as ActionContext))) return json;
  const tenantless = (props: ResourceJSON['listProperties']) => props.filter((p) => p.propertyPath !== 'account_id');
  return {
    ...json,
    listProperties: tenantless(json.listProperties),
    filterProperties: tenantless(json.filterProperties),
    showProperties: tenantless(json.showProperties),
  };
}

/** Refusals of a service that the panel says in its user's words (`messages.*` of admin/locales). */
const REFUSAL_WORDS = new Map([
  [BUSY_ACCOUNT, 'messages.accountBusy'],
  [SETTINGS_BUDGET_MESSAGE, 'messages.settingsBudget'],
]);

/** A service's refusal in the user's language when the panel has words for it, else as the service said it. */
function refusalWords(message: string, language: Language | undefined): string {
  const key = REFUSAL_WORDS.get(message);
  return key ? translate(language, key) : message;
}

/**
 * Service errors shown where the panel shows them: field errors under the fields, the rest as the action's error
 * (a conflict or a spent budget in the user's `language` where admin/locales has its words).
 */
export function toAdminError(err: unknown, language?: Language): unknown {
  if (err instanceof ValidationError) {
    const fields = Object.fromEntries(
      Object.entries(err.errors).map(([k, v]) => [k.replace(/^(ids|references)\.\d+$/, 'base'), { message: v[0] }]),
    );
    return new AdminValidationError(fields, { message: err.message, type: 'validation' });
  }
  if (err instanceof ForbiddenError) return new AdminForbiddenError(err.message);
  if (err instanceof NotFoundError) return new AdminNotFoundError(err.message, 'panel');
  if (err instanceof ConflictError || err instanceof RateLimitedError) {
    const type = err instanceof ConflictError ? 'conflict' : 'rate-limited';
    return new AdminValidationError({}, { message: refusalWords(err.message, language), type });
  }
  return err;
}

/** Words for the panel's user (a notice, a message) in their language: `key` of admin/locales/*.json. */
export function panelText(context: ActionContext, key: string, params?: Record<string, string | number>): string {
  return translate((context.currentAdmin as PanelAdmin | undefined)?.language, key, params);
}

/** panelText bound to one action's user. */
export type PanelText = (key: string, params?: Record<string, string | number>) => string;

export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn(); // a throw before the first await (input read by the panel) is mapped too
  } catch (err) {
    throw toAdminError(err);
  }
}

/**
 * isAccessible from the one policy module (buttons hidden; the services still enforce). The function names its rule
 * (`policy`), so a test walks every action of the built panel against src/policy.ts.
 */
export function allow(resource: Resource, ability: Ability) {
  const check = ({ currentAdmin, record }: ActionContext) => {
    if (!currentAdmin) return false;
    const actor = actorOf({ currentAdmin } as ActionContext);
    const accountId = record?.param('account_id');
    return can(
      actor,
      ability,
      resource,
      accountId !== undefined && accountId !== null ? { account_id: Number(accountId) } : undefined,
    );
  };
  return Object.assign(check, { policy: { resource, ability } });
}

/** Read and list actions of a tenant resource; the account scope itself is applied by ScopedResource. */
export function tenantReadActions(resource: Resource): ResourceOptions['actions'] {
  return {
    list: { isAccessible: allow(resource, 'viewAny') },
    search: { isAccessible: allow(resource, 'viewAny') },
    show: { isAccessible: allow(resource, 'view') },
  };
}

/**
 * Actions that only read; AdminJS calls them with GET (productChoices: what the lead form's products editor lists;
 * pushChoices: the shipping companies a push may go to; importFile: the import page's account choices, its upload
 * going to the dashboard route; importReport: a run's progress and report). Every other action changes state and
 * acts only on POST.
 */
const READ_ACTIONS = new Set([
  'list',
  'search',
  'show',
  'productChoices',
  'pushChoices',
  'warehouseChoices',
  'importFile',
  'importReport',
]);
/** AdminJS's built-in writes go through the adapter, which refuses: a resource opts in with serviceActions. */
const BUILT_IN_WRITES = ['new', 'edit', 'delete', 'bulkDelete'];

export type Handler = NonNullable<Action<ActionResponse>['handler']>;

/** What a GET of a state-changing action answers: the records it would act on (its confirmation page), nothing done. */
function confirmationOf(context: ActionContext): ActionResponse {
  if (context.record) return { record: context.record.toJSON(context.currentAdmin) };
  if (context.records) return { records: context.records.map((r) => r.toJSON(context.currentAdmin)) };
  return {};
}

/** A bulk action runs only when every requested id was found in the actor's scope; otherwise nothing is done. */
function assertAllFound(request: ActionRequest, context: ActionContext): void {
  if (!context.records) return;
  const asked = new Set(String(request.query?.recordIds ?? '').split(','));
  const found = new Set(context.records.map((r) => String(r.id())));
  if (found.size !== asked.size || [...asked].some((id) => !found.has(id))) {
    throw new AdminNotFoundError('Some of the selected records cannot be found. Nothing was changed.', 'panel');
  }
}

function postOnly(handler: Handler): Handler {
  return async (request, response, context) => {
    assertAllFound(request, context);
    if (request.method !== 'post') return confirmationOf(context);
    return (handler as (...args: unknown[]) => Promise<ActionResponse>)(request, response, context);
  };
}

/**
 * Applied to every panel resource, so a resource added later gets the same rules by construction: built-in
 * writes are closed unless declared, every action but list/search/show acts only on POST (a GET shows what it
 * would act on), a bulk action with any id outside the actor's scope does nothing, and the resource's own actions
 * (export, import) appear on its list only.
 */
export function lockDown(resources: ResourceWithOptions[]): ResourceWithOptions[] {
  return resources.map(({ resource, options }) => {
    const actions = { ...(options.actions ?? {}) } as Record<string, Partial<Action<ActionResponse>>>;
    for (const name of BUILT_IN_WRITES) actions[name] ??= { isAccessible: false };
    actions.show ??= {};
    for (const [name, action] of Object.entries(actions)) {
      // Resource actions (export, import) belong on the list, not on one record's page or another action's page.
      if (name !== 'list') actions[name] = { ...action, showResourceActions: false };
      if (READ_ACTIONS.has(name)) continue;
      actions[name] = { ...actions[name], handler: postOnly((action.handler ?? defaultHandler(name)) as Handler) };
    }
    return { resource, options: { ...options, actions } };
  });
}

/** Built-in write actions left closed still need a handler to wrap; they never reach it (isAccessible is false). */
function defaultHandler(name: string): Handler {
  return async () => {
    throw new AdminForbiddenError(`The ${name} action is not available here.`);
  };
}

/**
 * An ISO date-time from a picker → the API's Y-m-d\TH:i:sP (UTC offset). A text naming no real day (30 February,
 * which `new Date` rolls over to 2 March) goes to the service as typed, which refuses it under its field.
 */
export function toActionDate(v: unknown): string | undefined {
  if (typeof v !== 'string' || !v) return undefined;
  if (/[+-]\d{2}:\d{2}$/.test(v) && /T\d{2}:\d{2}:\d{2}/.test(v)) return v;
  if (!isCalendarDate(v)) return v;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? v : d.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}
