import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { paginationEnvelope } from '../../src/pagination.js';
import { route } from '../../http/async.js';
import { listPath, methodNotAllowed } from '../../http/route-helpers.js';

/** Lead and order history lists, newest first, filterable by reference and `since` so integrators can poll. */
export function createHistoryRoutes(ctx: AppContext): Router {
  const { histories } = ctx.services;
  const r = express.Router();
  const lists = [
    ['/lead-histories', 'lead_reference', histories.listLeadHistories],
    ['/order-histories', 'order_reference', histories.listOrderHistories],
  ] as const;
  for (const [path, refKey, list] of lists) {
    r.get(
      path,
      route(async (req, res) => {
        const page = await list(req.actor!, req.query);
        const query = { per_page: page.perPage, [refKey]: req.query[refKey], since: req.query.since };
        res.json(paginationEnvelope(page, listPath(req), query));
      }),
    );
    r.all(path, methodNotAllowed);
  }
  return r;
}
