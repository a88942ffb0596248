import {
  ForbiddenError as AdminForbiddenError,
  NotFoundError as AdminNotFoundError,
  ValidationError as AdminValidationError,
  type Action,
  type ActionContext,
  type ActionRequest,
  type ActionResponse,
  type BaseRecord,
  type CurrentAdmin,
  type ResourceJSON,
  type ResourceOptions,
  type ResourceWithOptions,
} from 'adminjs';
import { userActor, type Actor, type Role } from '../../src/actor.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError, type FieldErrors } from '../../src/errors.js';
import { can, isSystemWide, type Ability, type Resource } from '../../src/policy.js';
import { addError, isPrototypeName } from '../../src/validation.js';

/** The panel's currentAdmin, filled from the dashboard session (one login for the whole dashboard). */
export interface PanelAdmin extends CurrentAdmin {
  id: string;
  userId: number;
  email: string;
  title: string;
  role: Role;
  accountId: number;
  /** The dashboard session (a password changed in it ends the user's other sessions only). */
  sessionId?: string;
}

export function actorOf(context: ActionContext): Actor {
  const a = context.currentAdmin as unknown as PanelAdmin;
  return userActor({ id: a.userId, account_id: a.accountId, role: a.role, name: a.title }, a.sessionId);
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

/** Service errors shown where the panel shows them: field errors under the fields, the rest as the action's error. */
export function toAdminError(err: unknown): unknown {
  if (err instanceof ValidationError) {
    const fields = Object.fromEntries(
      Object.entries(err.errors).map(([k, v]) => [k.replace(/^(ids|references)\.\d+$/, 'base'), { message: v[0] }]),
    );
    return new AdminValidationError(fields, { message: err.message, type: 'validation' });
  }
  if (err instanceof ForbiddenError) return new AdminForbiddenError(err.message);
  if (err instanceof NotFoundError) return new AdminNotFoundError(err.message, 'panel');
  if (err instanceof ConflictError) return new AdminValidationError({}, { message: err.message, type: 'conflict' });
  return err;
}

export function guarded<T>(fn: () => Promise<T>): Promise<T> {
  return fn().catch((err) => {
    throw toAdminError(err);
  });
}

/** isAccessible from the one policy module (buttons hidden; the services still enforce). */
export function allow(resource: Resource, ability: Ability) {
  return ({ currentAdmin, record }: ActionContext) => {
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
 * Actions that only read; AdminJS calls them with GET (productChoices: what the lead form's products editor lists).
 * Every other action changes state and acts only on POST.
 */
const READ_ACTIONS = new Set(['list', 'search', 'show', 'productChoices']);
/** AdminJS's built-in writes go through the adapter, which refuses: a resource opts in with serviceActions. */
const BUILT_IN_WRITES = ['new', 'edit', 'delete', 'bulkDelete'];

type Handler = NonNullable<Action<ActionResponse>['handler']>;

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
 * Flattened AdminJS payload → plain object (empty strings dropped; `a.0` keys become arrays, `a.0.b` arrays of objects,
 * a row whose fields are all empty an empty object). A key with a segment named like a prototype member is refused by
 * name: assigned, `__proto__.0` wrote to Object.prototype.
 */
export function payloadOf(request: ActionRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const [k, v] of Object.entries(request.payload ?? {})) {
    const m = /^(\w+)\.(\d+)(?:\.(\w+))?$/.exec(k);
    if (k.split('.').some(isPrototypeName)) addError(errors, k, `The ${k} field is not allowed.`);
    else if (m?.[3]) {
      const row = (((out[m[1]] ??= []) as Record<string, unknown>[])[Number(m[2])] ??= {});
      if (v !== '' && v !== undefined) row[m[3]] = v;
    } else if (v === '' || v === undefined) continue;
    else if (m) ((out[m[1]] ??= []) as unknown[])[Number(m[2])] = v;
    else out[k] = v;
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return out;
}

export async function recordJson(
  context: ActionContext,
  id: number | string,
): Promise<ReturnType<BaseRecord['toJSON']>> {
  const record = await context.resource.findOne(String(id), context);
  if (!record) throw new AdminNotFoundError('The record is gone.', 'panel');
  return record.toJSON(context.currentAdmin);
}

type ServiceOps = {
  create?: (actor: Actor, payload: Record<string, unknown>) => Promise<{ id: number }>;
  update?: (actor: Actor, id: number, payload: Record<string, unknown>) => Promise<unknown>;
  remove?: (actor: Actor, ids: number[]) => Promise<unknown>;
  createdNotice?: (created: { id: number } & Record<string, unknown>) => string;
};

/** The answer that shows a record's page after a write. */
export async function showRecord(context: ActionContext, id: number, message: string): Promise<ActionResponse> {
  return {
    record: await recordJson(context, id),
    redirectUrl: context.h.recordActionUrl({
      resourceId: context.resource.id(),
      recordId: String(id),
      actionName: 'show',
    }),
    notice: { message, type: 'success' },
  };
}

function createHandler(ops: ServiceOps, create: NonNullable<ServiceOps['create']>): Handler {
  return async (request, _response, context) => {
    const created = (await guarded(() => create(actorOf(context), payloadOf(request)))) as {
      id: number;
    } & Record<string, unknown>;
    return showRecord(context, created.id, ops.createdNotice ? ops.createdNotice(created) : 'Created.');
  };
}

function editHandler(update: NonNullable<ServiceOps['update']>): Handler {
  return async (request, _response, context) => {
    const id = Number(context.record!.id());
    await guarded(() => update(actorOf(context), id, payloadOf(request)));
    return showRecord(context, id, 'Saved.');
  };
}

function deleteHandler(remove: NonNullable<ServiceOps['remove']>): Handler {
  return async (_request, _response, context) => {
    const record = context.record!;
    await guarded(() => remove(actorOf(context), [Number(record.id())]));
    return {
      record: record.toJSON(context.currentAdmin),
      redirectUrl: context.h.resourceUrl({ resourceId: context.resource.id() }),
      notice: { message: 'Deleted.', type: 'success' },
    };
  };
}

/** The words of a service's refusal, or null for an error that is not one (a bug, a lost database). */
function refusalOf(err: unknown): string | null {
  if (err instanceof ValidationError) return Object.values(err.errors).flat().join(' ');
  if (err instanceof ConflictError || err instanceof ForbiddenError) return err.message;
  return null;
}

function bulkDeleteHandler(remove: NonNullable<ServiceOps['remove']>): Handler {
  return async (_request, _response, context) => {
    const records = context.records ?? [];
    const json = records.map((r) => r.toJSON(context.currentAdmin));
    try {
      await remove(
        actorOf(context),
        records.map((r) => Number(r.id())),
      );
    } catch (err) {
      // A refusal (an invalid id, one's own login, a higher role): the whole batch was refused, nothing was deleted.
      const refused = refusalOf(err);
      if (refused === null) throw toAdminError(err);
      // `refused`: the drawer (admin/components/bulk-delete.tsx) says nothing was removed and why
      return { records: json, refused, notice: { message: `Nothing was deleted: ${refused}`, type: 'error' } };
    }
    return {
      records: json,
      redirectUrl: context.h.resourceUrl({ resourceId: context.resource.id() }),
      notice: { message: `${records.length} deleted.`, type: 'success' },
    };
  };
}

/**
 * new / edit / delete / bulkDelete handlers that call a service instead of writing through the adapter, so the
 * panel obeys exactly the rules of the REST API and the dashboard routes.
 */
export function serviceActions(resource: Resource, ops: ServiceOps): NonNullable<ResourceOptions['actions']> {
  return {
    new: ops.create
      ? { isAccessible: allow(resource, 'create'), handler: createHandler(ops, ops.create) }
      : { isAccessible: false },
    edit: ops.update
      ? { isAccessible: allow(resource, 'update'), handler: editHandler(ops.update) }
      : { isAccessible: false },
    delete: ops.remove
      ? { isAccessible: allow(resource, 'delete'), handler: deleteHandler(ops.remove) }
      : { isAccessible: false },
    bulkDelete: ops.remove
      ? { isAccessible: allow(resource, 'delete'), handler: bulkDeleteHandler(ops.remove) }
      : { isAccessible: false },
  };
}

/** `2026-12-01T14:30` or an ISO date from a picker → the API's Y-m-d\TH:i:sP (UTC offset). */
export function toActionDate(v: unknown): string | undefined {
  if (typeof v !== 'string' || !v) return undefined;
  if (/[+-]\d{2}:\d{2}$/.test(v) && /T\d{2}:\d{2}:\d{2}/.test(v)) return v;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? v : d.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}
