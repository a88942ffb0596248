import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { paginationEnvelope } from '../../src/pagination.js';
import { route } from '../../http/async.js';
import { listPath, methodNotAllowed } from '../../http/route-helpers.js';

/**
 * Cash (docs/cash.md); scope MANAGE CASH. Queries and bodies go to services.cash as they came: its validation and
 * tenancy answer bad or foreign ones.
 */
export function createCashRoutes(ctx: AppContext): Router {
  const r = express.Router();
  const { cash } = ctx.services;
  r.post(
    '/remittances',
    route(async (req, res) => {
      const { remittance } = await cash.recordRemittance(req.actor!, req.body);
      // the same statement again answers the first result, unchanged (docs/cash.md)
      res.status(201).json({ message: `Statement ${remittance!.statement_number} recorded.`, data: remittance });
    }),
  );
  r.get(
    '/remittances',
    route(async (req, res) => {
      const page = await cash.remittances(req.actor!, req.query);
      res.json(paginationEnvelope(page, listPath(req), { per_page: page.perPage }));
    }),
  );
  r.get(
    '/remittances/:id',
    route(async (req, res) => {
      res.json({ data: await cash.remittance(req.actor!, Number(req.params.id)) });
    }),
  );
  r.get(
    '/cash/outstanding',
    route(async (req, res) => {
      res.json(await cash.outstanding(req.actor!, req.query));
    }),
  );
  for (const path of ['/remittances', '/remittances/:id', '/cash/outstanding']) r.all(path, methodNotAllowed);
  return r;
}
