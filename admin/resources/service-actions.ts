import {
  NotFoundError as AdminNotFoundError,
  type ActionContext,
  type ActionRequest,
  type ActionResponse,
  type BaseRecord,
  type ResourceOptions,
} from 'adminjs';
import type { Actor } from '../../src/actor.js';
import { ConflictError, ForbiddenError, ValidationError, type FieldErrors } from '../../src/errors.js';
import type { Resource } from '../../src/policy.js';
import { addError, isPrototypeName } from '../../src/validation.js';
import { fieldMessage, knownMessage, pageWords, refusedForm } from '../panel-form-errors.js';
import type { ComponentName } from '../panel-components.js';
import {
  actorOf,
  allow,
  guarded,
  panelText,
  toAdminError,
  type Handler,
  type PanelAdmin,
  type PanelText,
} from './panel-kit.js';
import { zonedPayload } from './panel-times.js';

/**
 * The panel's writes: AdminJS's built-in new / edit / delete / bulk delete, each a service call with the actor, its
 * refusals shown on the form as typed (admin/panel-form-errors.ts). `lockDown` (panel-kit.ts) makes them POST-only.
 */

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

/** A secret a service answers once (an API key, a signing secret): the panel shows it in a dialog, never a notice. */
export type ShownOnce = { kind: 'apiKey' | 'webhookSecret' | 'hmacSecret'; value: string };

type ServiceOps = {
  create?: (actor: Actor, payload: Record<string, unknown>) => Promise<{ id: number }>;
  update?: (actor: Actor, id: number, payload: Record<string, unknown>) => Promise<unknown>;
  remove?: (actor: Actor, ids: number[]) => Promise<unknown>;
  /** The notice after a create, in the user's words (`t`: panelText for this action). */
  createdNotice?: (created: { id: number } & Record<string, unknown>, t: PanelText) => string;
  /** A service's field name → the form's, where they differ (the lead's `name` is the form's `phone`). */
  aliases?: Record<string, string>;
  /** The secret the create answers once, for admin/components/create-form.tsx's dialog. */
  createdSecret?: (created: { id: number } & Record<string, unknown>) => ShownOnce | null;
  /** The service's defaults of optional fields: what the create form starts filled with. */
  defaults?: Record<string, string>;
};

/**
 * A form's write: its date-time fields read in the record's zone, then the service; a refusal answers the form as
 * typed, every error under its field (admin/panel-form-errors.ts), and nothing is saved.
 */
async function formWrite(
  request: ActionRequest,
  context: ActionContext,
  ops: ServiceOps,
  write: (payload: Record<string, unknown>) => Promise<unknown>,
): Promise<{ done: unknown } | { refused: ActionResponse }> {
  try {
    return { done: await write(zonedPayload(payloadOf(request), context)) };
  } catch (err) {
    if (err instanceof ValidationError) return { refused: refusedForm(err, context, ops.aliases) };
    throw toAdminError(err, (context.currentAdmin as PanelAdmin | undefined)?.language);
  }
}

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
    const result = await formWrite(request, context, ops, (p) => create(actorOf(context), p));
    if ('refused' in result) return result.refused;
    const created = result.done as { id: number } & Record<string, unknown>;
    const secret = ops.createdSecret?.(created);
    const t: PanelText = (key, params) => panelText(context, key, params);
    const answer = await showRecord(
      context,
      created.id,
      ops.createdNotice?.(created, t) ?? t('messages.successfullyCreated'),
    );
    return secret ? { ...answer, secret } : answer;
  };
}

function editHandler(ops: ServiceOps, update: NonNullable<ServiceOps['update']>): Handler {
  return async (request, _response, context) => {
    const id = Number(context.record!.id());
    const result = await formWrite(request, context, ops, (p) => update(actorOf(context), id, p));
    if ('refused' in result) return result.refused;
    return showRecord(context, id, panelText(context, 'messages.successfullyUpdated'));
  };
}

function deleteHandler(remove: NonNullable<ServiceOps['remove']>): Handler {
  return async (_request, _response, context) => {
    const record = context.record!;
    await guarded(() => remove(actorOf(context), [Number(record.id())]));
    return {
      record: record.toJSON(context.currentAdmin),
      redirectUrl: context.h.resourceUrl({ resourceId: context.resource.id() }),
      notice: { message: panelText(context, 'messages.successfullyDeleted'), type: 'success' },
    };
  };
}

/** The words of a service's refusal, or null for an error that is not one (a bug, a lost database). */
function refusalOf(err: unknown, context: ActionContext): string | null {
  if (err instanceof ValidationError) {
    const words = pageWords((context.currentAdmin as { language?: string } | undefined)?.language);
    const say = (m: string) => (knownMessage(m) ? fieldMessage(m, words) : m);
    return Object.values(err.errors).flat().map(say).join(' ');
  }
  if (err instanceof ConflictError || err instanceof ForbiddenError) return err.message;
  return null;
}

function bulkDeleteHandler(remove: NonNullable<ServiceOps['remove']>): Handler {
  return async (_request, _response, context) => {
    const records = context.records ?? [];
    const json = records.map((r) => r.toJSON(context.currentAdmin));
    const ids = records.map((r) => Number(r.id()));
    try {
      await remove(actorOf(context), ids);
    } catch (err) {
      // A refusal (an invalid id, one's own login, a higher role): the whole batch was refused, nothing was deleted.
      const refused = refusalOf(err, context);
      if (refused === null) throw toAdminError(err);
      // `refused`: the drawer (admin/components/bulk-delete.tsx) says nothing was removed and why
      const message = panelText(context, 'messages.nothingDeleted', { reasons: refused });
      return { records: json, refused, notice: { message, type: 'error' } };
    }
    return {
      records: json,
      redirectUrl: context.h.resourceUrl({ resourceId: context.resource.id() }),
      notice: { message: panelText(context, 'messages.deletedCount', { count: records.length }), type: 'success' },
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
      ? {
          isAccessible: allow(resource, 'create'),
          handler: createHandler(ops, ops.create),
          ...(ops.createdSecret || ops.defaults
            ? { component: 'CreateForm' satisfies ComponentName, custom: { defaults: ops.defaults ?? {} } }
            : {}),
        }
      : { isAccessible: false },
    edit: ops.update
      ? { isAccessible: allow(resource, 'update'), handler: editHandler(ops, ops.update) }
      : { isAccessible: false },
    delete: ops.remove
      ? { isAccessible: allow(resource, 'delete'), handler: deleteHandler(ops.remove) }
      : { isAccessible: false },
    bulkDelete: ops.remove
      ? { isAccessible: allow(resource, 'delete'), handler: bulkDeleteHandler(ops.remove) }
      : { isAccessible: false },
  };
}
