import {
  ForbiddenError as AdminForbiddenError, NotFoundError as AdminNotFoundError, ValidationError as AdminValidationError,
  type ActionContext, type ActionRequest, type ActionResponse, type BaseRecord, type CurrentAdmin, type ResourceOptions,
} from 'adminjs';
import { userActor, type Actor, type Role } from '../../src/actor.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../src/errors.js';
import { can, isSystemWide, type Ability, type Resource } from '../../src/policy.js';

/** The panel's currentAdmin, filled from the dashboard session (one login for the whole dashboard). */
export interface PanelAdmin extends CurrentAdmin { id: string; userId: number; email: string; title: string; role: Role; accountId: number }

export function actorOf(context: ActionContext): Actor {
  const a = context.currentAdmin as unknown as PanelAdmin;
  return userActor({ id: a.userId, account_id: a.accountId, role: a.role, name: a.title });
}

/** Service errors shown where the panel shows them: field errors under the fields, the rest as the action's error. */
export function toAdminError(err: unknown): unknown {
  if (err instanceof ValidationError) {
    const fields = Object.fromEntries(Object.entries(err.errors).map(([k, v]) => [k.replace(/^(ids|references)\.\d+$/, 'base'), { message: v[0] }]));
    return new AdminValidationError(fields, { message: err.message, type: 'validation' });
  }
  if (err instanceof ForbiddenError) return new AdminForbiddenError(err.message);
  if (err instanceof NotFoundError) return new AdminNotFoundError(err.message, 'panel');
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
    return can(actor, ability, resource, accountId !== undefined && accountId !== null ? { account_id: Number(accountId) } : undefined);
  };
}

/** Lists and searches of tenant data always carry the actor's account filter, whatever the URL says. */
export function scopeList(request: ActionRequest, context: ActionContext): ActionRequest {
  const actor = actorOf(context);
  if (isSystemWide(actor)) return request;
  return { ...request, query: { ...(request.query ?? {}), 'filters.account_id': String(actor.accountId) } };
}

/** Read and list actions of a tenant resource: scoped lists, record checks on show. */
export function tenantReadActions(resource: Resource): ResourceOptions['actions'] {
  return {
    list: { isAccessible: allow(resource, 'viewAny'), before: scopeList },
    search: { isAccessible: allow(resource, 'viewAny'), before: scopeList },
    show: { isAccessible: allow(resource, 'view') },
  };
}

/** Flattened AdminJS payload → plain object (empty strings dropped; `a.0` keys become arrays). */
export function payloadOf(request: ActionRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(request.payload ?? {})) {
    if (v === '' || v === undefined) continue;
    const m = /^(\w+)\.(\d+)$/.exec(k);
    if (m) ((out[m[1]] ??= []) as unknown[])[Number(m[2])] = v;
    else out[k] = v;
  }
  return out;
}

export async function recordJson(context: ActionContext, id: number | string): Promise<ReturnType<BaseRecord['toJSON']>> {
  const record = await context.resource.findOne(String(id), context);
  if (!record) throw new AdminNotFoundError('The record is gone.', 'panel');
  return record.toJSON(context.currentAdmin);
}

/**
 * new / edit / delete / bulkDelete handlers that call a service instead of writing through the adapter, so the
 * panel obeys exactly the rules of the REST API and the dashboard routes.
 */
export function serviceActions(resource: Resource, ops: {
  create?: (actor: Actor, payload: Record<string, unknown>) => Promise<{ id: number }>;
  update?: (actor: Actor, id: number, payload: Record<string, unknown>) => Promise<unknown>;
  remove?: (actor: Actor, ids: number[]) => Promise<unknown>;
  createdNotice?: (created: { id: number } & Record<string, unknown>) => string;
}): NonNullable<ResourceOptions['actions']> {
  const actions: NonNullable<ResourceOptions['actions']> = {
    new: { isAccessible: ops.create ? allow(resource, 'create') : false },
    edit: { isAccessible: ops.update ? allow(resource, 'update') : false },
    delete: { isAccessible: ops.remove ? allow(resource, 'delete') : false },
    bulkDelete: { isAccessible: ops.remove ? allow(resource, 'delete') : false },
  };
  if (ops.create) {
    actions.new!.handler = async (request, _response, context): Promise<ActionResponse> => {
      if (request.method !== 'post') return {};
      const created = await guarded(() => ops.create!(actorOf(context), payloadOf(request))) as { id: number } & Record<string, unknown>;
      return {
        record: await recordJson(context, created.id),
        redirectUrl: context.h.recordActionUrl({ resourceId: context.resource.id(), recordId: String(created.id), actionName: 'show' }),
        notice: { message: ops.createdNotice ? ops.createdNotice(created) : 'Created.', type: 'success' },
      };
    };
  }
  if (ops.update) {
    actions.edit!.handler = async (request, _response, context): Promise<ActionResponse> => {
      const id = Number(context.record!.id());
      if (request.method !== 'post') return { record: context.record!.toJSON(context.currentAdmin) };
      await guarded(() => ops.update!(actorOf(context), id, payloadOf(request)));
      return {
        record: await recordJson(context, id),
        redirectUrl: context.h.recordActionUrl({ resourceId: context.resource.id(), recordId: String(id), actionName: 'show' }),
        notice: { message: 'Saved.', type: 'success' },
      };
    };
  }
  if (ops.remove) {
    actions.delete!.handler = async (_request, _response, context): Promise<ActionResponse> => {
      const record = context.record!;
      await guarded(() => ops.remove!(actorOf(context), [Number(record.id())]));
      return { record: record.toJSON(context.currentAdmin), redirectUrl: context.h.resourceUrl({ resourceId: context.resource.id() }), notice: { message: 'Deleted.', type: 'success' } };
    };
    actions.bulkDelete!.handler = async (request, _response, context): Promise<ActionResponse> => {
      const records = context.records ?? [];
      if (request.method !== 'post') return { records: records.map((r) => r.toJSON(context.currentAdmin)) };
      try {
        await ops.remove!(actorOf(context), records.map((r) => Number(r.id())));
      } catch (err) {
        if (!(err instanceof ValidationError)) throw toAdminError(err);
        // Bulk results are shown as a notice: the whole batch was refused and nothing was deleted.
        return { records: records.map((r) => r.toJSON(context.currentAdmin)), notice: { message: `Nothing was deleted: ${Object.values(err.errors).flat().join(' ')}`, type: 'error' } };
      }
      return { records: records.map((r) => r.toJSON(context.currentAdmin)), redirectUrl: context.h.resourceUrl({ resourceId: context.resource.id() }), notice: { message: `${records.length} deleted.`, type: 'success' } };
    };
  }
  return actions;
}

/** `2026-12-01T14:30` or an ISO date from a picker → the API's Y-m-d\TH:i:sP (UTC offset). */
export function toActionDate(v: unknown): string | undefined {
  if (typeof v !== 'string' || !v) return undefined;
  if (/[+-]\d{2}:\d{2}$/.test(v) && /T\d{2}:\d{2}:\d{2}/.test(v)) return v;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? v : d.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}
