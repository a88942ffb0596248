import express, { type Router } from 'express';
import type { AppContext } from '../../src/context.js';
import { paginationEnvelope } from '../../src/pagination.js';
import { route } from '../../http/async.js';
import { listPath, methodNotAllowed } from '../../http/route-helpers.js';

/** Lead and order history lists, newest first, filterable by reference and `since` so integrators can poll. */
export function createHistoryRoutes(ctx: AppContext): Router {
  const { histories } = ctx.services;
  const r = express.Router();
  r.get(
    '/lead-histories',
    route(async (req, res) => {
      const page = await histories.listLeadHistories(req.actor!, req.query);
      res.json(
        paginationEnvelope(page, listPath(req), {
          per_page: page.perPage,
          lead_reference: req.query.lead_reference,
          since: req.query.since,
        }),
      );
    }),
  );
  r.all('/lead-histories', methodNotAllowed);
  r.get(
    '/order-histories',
    route(async (req, res) => {
      const page = await histories.listOrderHistories(req.actor!, req.query);
      res.json(
        paginationEnvelope(page, listPath(req), {
          per_page: page.perPage,
          order_reference: req.query.order_reference,
          since: req.query.since,
        }),
      );
    }),
  );
  r.all('/order-histories', methodNotAllowed);
  return r;
}
