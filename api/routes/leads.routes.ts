import express, { type Router } from 'express';
import type { AppContext } from '../../src/context.js';
import { restListQuerySchema } from '../../src/leads/lead.schemas.js';
import { paginationEnvelope } from '../../src/pagination.js';
import { authorize } from '../../src/policy.js';
import { validate } from '../../src/validation.js';
import { route } from '../../http/async.js';
import { listPath, methodNotAllowed } from '../../http/route-helpers.js';

/** The spec's lead endpoints; every rule lives in services.leads. */
export function createLeadRoutes(ctx: AppContext): Router {
  const leads = ctx.services.leads;
  const r = express.Router();

  r.post(
    '/leads',
    route(async (req, res) => {
      const { references } = await leads.createMany(req.actor!, req.body);
      res.status(201).json({ message: `${references.length} leads created.`, references });
    }),
  );

  r.get(
    '/leads',
    route(async (req, res) => {
      authorize(req.actor!, 'viewAny', 'lead');
      const q = validate<{ page: number; per_page: number; search_by?: 'reference'; keyWord?: string }>(
        restListQuerySchema,
        req.query,
        { allowUnknown: true, stripUnknown: true },
      );
      const page = await leads.list(req.actor!, { ...q, perPage: q.per_page });
      const data = page.data.map(({ reference, full_name, phone, city, status, created_at }) => ({
        reference,
        full_name,
        phone,
        city,
        status,
        created_at,
      }));
      res.json(
        paginationEnvelope({ ...page, data }, listPath(req), {
          per_page: q.per_page,
          search_by: q.search_by,
          keyWord: q.keyWord,
        }),
      );
    }),
  );

  r.put(
    '/leads',
    route(async (req, res) => {
      const { updated } = await leads.updateStatuses(req.actor!, req.body);
      res.json({ message: `${updated} leads updated.`, updated });
    }),
  );

  r.delete(
    '/leads',
    route(async (req, res) => {
      const { deleted } = await leads.deleteMany(req.actor!, req.body, 'references');
      res.json({ message: `${deleted} leads deleted.`, deleted });
    }),
  );
  r.all('/leads', methodNotAllowed);

  r.get(
    '/leads/:reference/show',
    route(async (req, res) => {
      const {
        id: _id,
        account_id: _a,
        city_id: _c,
        ...data
      } = await leads.show(req.actor!, { reference: req.params.reference });
      res.json({ data });
    }),
  );
  r.all('/leads/:reference/show', methodNotAllowed);
  return r;
}
