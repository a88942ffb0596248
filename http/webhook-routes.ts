import type { RequestHandler, Router } from 'express';
import type { WebhookService } from '../src/webhooks/webhook.service.js';
import { paginationEnvelope } from '../src/pagination.js';
import { route } from './async.js';
import { listPath } from './route-helpers.js';

/** What differs: the REST API updates with PUT and answers 405 to other methods; the dashboard PATCHes. */
export interface WebhookRouteOptions {
  update: 'put' | 'patch';
  otherMethods?: RequestHandler;
}

/**
 * The webhook routes of the REST API (/api/web/1.0/webhooks) and of the dashboard (session + CSRF), written once so
 * their paths and answers cannot drift apart: endpoints (the secret only in the create and rotate answers), the
 * delivery log and resend. Ids, bodies and queries go to services.webhooks as they came; its validation and tenancy
 * answer bad or foreign ones. The delivery routes come first: `/webhooks/deliveries` is not an endpoint id.
 */
export function addWebhookRoutes(r: Router, webhooks: WebhookService, options: WebhookRouteOptions): void {
  addDeliveryRoutes(r, webhooks, options.otherMethods);
  addEndpointRoutes(r, webhooks, options);
}

function addDeliveryRoutes(r: Router, webhooks: WebhookService, otherMethods?: RequestHandler): void {
  const refuseOthers = (path: string) => otherMethods && r.all(path, otherMethods);
  r.get(
    '/webhooks/deliveries',
    route(async (req, res) => {
      const page = await webhooks.deliveries(req.actor!, req.query);
      const query = { per_page: page.perPage, endpoint_id: req.query.endpoint_id, state: req.query.state };
      res.json(paginationEnvelope(page, listPath(req), query));
    }),
  );
  refuseOthers('/webhooks/deliveries');
  r.get(
    '/webhooks/deliveries/:id',
    route(async (req, res) => {
      res.json({ data: await webhooks.showDelivery(req.actor!, req.params.id) });
    }),
  );
  refuseOthers('/webhooks/deliveries/:id');
  r.post(
    '/webhooks/deliveries/:id/resend',
    route(async (req, res) => {
      const copy = await webhooks.resend(req.actor!, req.params.id);
      res.status(202).json({ message: `Delivery ${copy.id} queued.`, data: copy });
    }),
  );
  refuseOthers('/webhooks/deliveries/:id/resend');
}

function addEndpointRoutes(r: Router, webhooks: WebhookService, options: WebhookRouteOptions): void {
  const refuseOthers = (path: string) => options.otherMethods && r.all(path, options.otherMethods);
  r.get(
    '/webhooks',
    route(async (req, res) => {
      const page = await webhooks.list(req.actor!, req.query);
      res.json(paginationEnvelope(page, listPath(req), { per_page: page.perPage }));
    }),
  );
  r.post(
    '/webhooks',
    route(async (req, res) => {
      const { endpoint, secret } = await webhooks.create(req.actor!, req.body);
      res.status(201).json({ message: 'Webhook endpoint created.', data: endpoint, secret });
    }),
  );
  refuseOthers('/webhooks');
  r.get(
    '/webhooks/:id',
    route(async (req, res) => {
      res.json({ data: await webhooks.show(req.actor!, req.params.id) });
    }),
  );
  r[options.update](
    '/webhooks/:id',
    route(async (req, res) => {
      const endpoint = await webhooks.update(req.actor!, req.params.id, req.body);
      res.json({ message: 'Webhook endpoint updated.', data: endpoint });
    }),
  );
  r.delete(
    '/webhooks/:id',
    route(async (req, res) => {
      const { deleted } = await webhooks.remove(req.actor!, req.params.id);
      res.json({ message: 'Webhook endpoint deleted.', deleted });
    }),
  );
  refuseOthers('/webhooks/:id');
  r.post(
    '/webhooks/:id/rotate-secret',
    route(async (req, res) => {
      const { endpoint, secret } = await webhooks.rotateSecret(req.actor!, req.params.id);
      res.json({ message: 'Webhook secret rotated.', data: endpoint, secret });
    }),
  );
  refuseOthers('/webhooks/:id/rotate-secret');
}
