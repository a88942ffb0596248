import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { paginationEnvelope } from '../../src/pagination.js';
import { route } from '../../http/async.js';
import { listPath } from '../../http/route-helpers.js';
import { respond } from './respond.js';
import { counted } from '../../http/counted.js';

/** The spec's dashboard lead routes (session); the rules are those of services.leads, as for the REST API. */
export function createDashboardLeadRoutes(ctx: AppContext): Router {
  const leads = ctx.services.leads;
  const r = express.Router();

  r.get(
    '/leads',
    route(async (req, res) => {
      const { query: _query, ...page } = await leads.list(req.actor!, req.query, 'dashboard');
      res.json(paginationEnvelope(page, listPath(req), { ...req.query, perPage: page.perPage }));
    }),
  );

  r.post(
    '/leads/store',
    route(async (req, res) => {
      const lead = await leads.createOne(req.actor!, req.body);
      respond(
        req,
        res,
        201,
        { message: 'Lead created.', data: lead },
        `/admin/resources/leads/records/${lead.id}/show`,
      );
    }),
  );

  r.get(
    '/leads/:lead/show',
    route(async (req, res) => {
      res.json({ data: await leads.show(req.actor!, { id: Number(req.params.lead) }) });
    }),
  );

  r.patch(
    '/leads/:lead/update',
    route(async (req, res) => {
      const lead = await leads.update(req.actor!, Number(req.params.lead), req.body);
      respond(
        req,
        res,
        200,
        { message: 'Lead updated.', data: lead },
        `/admin/resources/leads/records/${lead.id}/show`,
      );
    }),
  );

  r.delete(
    '/leads/delete',
    route(async (req, res) => {
      const { deleted } = await leads.deleteMany(req.actor!, { ids: req.body?.ids }, 'ids');
      respond(req, res, 200, { message: `${counted(deleted, 'lead')} deleted.`, deleted }, '/admin/resources/leads');
    }),
  );

  return r;
}
