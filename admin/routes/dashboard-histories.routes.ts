import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { paginationEnvelope } from '../../src/pagination.js';
import { route } from '../../http/async.js';
import { listPath } from '../../http/route-helpers.js';

/** History lists and per-record timelines of the dashboard (spec paths, including `orders-histories`). */
export function createDashboardHistoryRoutes(ctx: AppContext): Router {
  const { histories } = ctx.services;
  const r = express.Router();
  r.get(
    '/orders-histories',
    route(async (req, res) => {
      const page = await histories.listOrderHistories(req.actor!, req.query);
      res.json(paginationEnvelope(page, listPath(req), { ...req.query }));
    }),
  );
  r.get(
    '/orders-histories/:order/show',
    route(async (req, res) => {
      res.json({ data: await histories.orderTimeline(req.actor!, Number(req.params.order)) });
    }),
  );
  r.get(
    '/lead-histories',
    route(async (req, res) => {
      const page = await histories.listLeadHistories(req.actor!, req.query);
      res.json(paginationEnvelope(page, listPath(req), { ...req.query }));
    }),
  );
  r.get(
    '/lead-histories/:lead/show',
    route(async (req, res) => {
      res.json({ data: await histories.leadTimeline(req.actor!, Number(req.params.lead)) });
    }),
  );
  return r;
}
