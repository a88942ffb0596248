import Joi from 'joi';
import { pageKeys } from '../pagination.js';

/** The events an endpoint may subscribe to (docs/webhooks.md "Events"; the migration's CHECK lists the same). */
export const WEBHOOK_EVENTS = [
  'lead.created',
  'lead.status_changed',
  'order.created',
  'order.status_changed',
  'import.finished',
  'stock.low',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

const ID_MAX = 2_147_483_647;
const id = () => Joi.number().integer().positive().max(ID_MAX);

const url = Joi.string()
  .trim()
  .uri({ scheme: ['http', 'https'] })
  .max(500);
const events = Joi.array()
  .items(Joi.string().valid(...WEBHOOK_EVENTS))
  .min(1)
  .max(WEBHOOK_EVENTS.length)
  .unique();

/** A new endpoint; an admin names the account (anybody else's account comes from the actor). */
export const endpointCreateSchema = Joi.object({
  account_id: id(),
  url: url.required(),
  events: events.required(),
  active: Joi.boolean().default(true),
});
export interface EndpointCreateInput {
  account_id?: number;
  url: string;
  events: WebhookEvent[];
  active: boolean;
}

/** A change names only what changes. */
export const endpointUpdateSchema = Joi.object({ url, events, active: Joi.boolean() }).min(1);
export type EndpointUpdateInput = Partial<Omit<EndpointCreateInput, 'account_id'>>;

export const endpointListSchema = Joi.object({ ...pageKeys, account_id: id() });
export interface EndpointListInput {
  page: number;
  per_page: number;
  account_id?: number;
}

export const deliveryListSchema = Joi.object({
  ...pageKeys,
  account_id: id(),
  endpoint_id: id(),
  state: Joi.string().valid(...DELIVERY_STATES),
});
export interface DeliveryListInput extends EndpointListInput {
  endpoint_id?: number;
  state?: DeliveryState;
}

/** An endpoint as every answer shows it: never its secret. */
export interface EndpointView {
  id: number;
  account_id: number;
  url: string;
  events: string[];
  active: boolean;
  failing_since: string | null;
  disabled_at: string | null;
  /** Until when the secret a rotation replaced still signs beside the new one; null: one secret signs. */
  rotation_grace_until: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** A delivery of the log (its payload included). */
export interface DeliveryView {
  id: number;
  event_id: string;
  endpoint_id: number;
  account_id: number;
  event: string;
  sequence_key: string;
  state: DeliveryState;
  attempts: number;
  response_code: number | null;
  duration_ms: number | null;
  last_error: string | null;
  next_try_at: string | null;
  delivered_at: string | null;
  resent_from: number | null;
  created_at: string;
  payload: Record<string, unknown>;
}
