import type { ActionContext, ActionRequest, ActionResponse, RecordJSON } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import type { CustomerRecord } from '../../src/customers/customer.repository.js';
import { formatInZone } from '../../src/time-zones.js';
import { actorOf } from './panel-kit.js';
import { viewerOf, zoneOfJson } from './panel-times.js';

/**
 * A customer record as the panel's components draw it (admin/components/customer-record.tsx): the record with its
 * times written by the server in the account's zone (the one formatter of src/time-zones.ts, as every panel time).
 */
export type CustomerView = CustomerRecord & {
  times: { first_seen_at: string; last_seen_at: string; last_order_at: string };
};

export function customerView(record: CustomerRecord | undefined, zone: string, language: string): CustomerView | null {
  if (!record) return null;
  const say = (iso: string | null | undefined) => formatInZone(iso, zone, language);
  return {
    ...record,
    times: {
      first_seen_at: say(record.first_seen_at),
      last_seen_at: say(record.last_seen_at),
      last_order_at: say(record.last_order?.at),
    },
  };
}

type After = (response: ActionResponse, request: ActionRequest, context: ActionContext) => Promise<ActionResponse>;

/**
 * A lead's show page with the customer record of its phone (`customer_record`, a JSON text: `{customer}`, null when
 * the phone has no E.164 form), after the page's own hook. The lead was found in the actor's scope; the lookup is
 * scoped again by the service.
 */
export function withCustomerRecord<A extends { after?: unknown }>(action: A, ctx: AppContext): A {
  const own = action.after as After | undefined;
  const after: After = async (response, request, context) => {
    const answer = own ? await own(response, request, context) : response;
    const record: RecordJSON | undefined = answer.record;
    const id = Number(record?.params?.id);
    if (!record || !id) return answer;
    const found = await ctx.services.customerLookup.ofLeads(actorOf(context), [id]);
    const viewer = viewerOf(context);
    const zone = zoneOfJson(record, 'leads', viewer.zone);
    record.params.customer_record = JSON.stringify({ customer: customerView(found.get(id), zone, viewer.language) });
    return answer;
  };
  return { ...action, after: after as never };
}

/**
 * The customers list and show answers with what each row's record computes (delivery rate, risk and its findings,
 * the block and its reason), looked up per account through the service (one statement per account on the page).
 */
export function customerFiguresAfter(ctx: AppContext): After {
  return async (response, _request, context) => {
    const records: RecordJSON[] = response.records ?? (response.record ? [response.record] : []);
    const byAccount = new Map<number, RecordJSON[]>();
    for (const r of records) {
      const account = Number(r.params?.account_id);
      byAccount.set(account, [...(byAccount.get(account) ?? []), r]);
    }
    for (const [account, rows] of byAccount) {
      const phones = rows.map((r) => String(r.params.phone_normalized));
      const found = await ctx.services.customerLookup.byPhones(actorOf(context), account, phones);
      for (const r of rows) {
        const c = found.get(String(r.params.phone_normalized));
        if (!c) continue;
        r.params.delivery_rate = c.delivery_rate === null ? '' : String(c.delivery_rate);
        r.params.risk = JSON.stringify({ risky: c.risky, findings: c.risk_findings });
        r.params.risky = String(c.risky);
        r.params.blocked = String(c.blocked);
        r.params.block_reason = c.block_reason ?? '';
      }
    }
    return response;
  };
}
