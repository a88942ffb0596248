import type { ActionContext, ActionRequest, ActionResponse } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { isSystemWide } from '../../src/policy.js';
import { fieldMessage, knownMessage, pageWords } from '../panel-form-errors.js';
import { actorOf, allow, guarded, type PanelAdmin } from './panel-kit.js';

/**
 * The leads list's "Import file": a page inside the panel (admin/components/import-file.tsx). The file goes to the
 * dashboard's own `POST /leads/import` (session, CSRF, role, the import service); this action only reads: an admin's
 * account choices (a tenant imports into their own account and is offered none).
 */
export function importFileAction(ctx: AppContext, component: string) {
  return {
    actionType: 'resource' as const,
    icon: 'Upload',
    component,
    isAccessible: allow('lead', 'import'),
    handler: async (_request: ActionRequest, _response: ActionResponse, context: ActionContext) => {
      const actor = actorOf(context);
      if (!isSystemWide(actor)) return { accounts: null };
      const accounts = await guarded(() => ctx.services.accounts.listAccounts(actor));
      return { accounts: accounts.map(({ id, name }) => ({ id, name })) };
    },
  };
}

/**
 * What the import page polls after the upload (GET, hidden): the run's state and progress and, once it has ended,
 * its refused rows (`imports.report`). A record action, so the run is first looked up in the actor's scope by the
 * scoped adapter: another account's id, an unknown one or one that is not an id are all "not found".
 */
export function importReportAction(ctx: AppContext) {
  return {
    actionType: 'record' as const,
    component: false as const,
    isVisible: false,
    isAccessible: allow('importRun', 'view'),
    handler: async (_request: ActionRequest, _response: ActionResponse, context: ActionContext) => {
      const record = context.record!;
      const report = await guarded(() => ctx.services.imports.report(actorOf(context), Number(record.id())));
      // the refusals in the user's words where the panel has them (the CSV report keeps the service's English)
      const words = pageWords((context.currentAdmin as PanelAdmin | undefined)?.language);
      const say = (m: string) => (knownMessage(m) ? fieldMessage(m, words) : m);
      const refused = report.refused.map((r) => ({ ...r, message: say(r.message) }));
      return { record: record.toJSON(context.currentAdmin), ...report, refused };
    },
  };
}
