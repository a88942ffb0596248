import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { paginationEnvelope } from '../../src/pagination.js';
import { route } from '../../http/async.js';
import { listPath, methodNotAllowed } from '../../http/route-helpers.js';
import { answerOnce } from '../idempotent.js';
import { counted } from '../../http/counted.js';

/** The 201 of a bulk create; with an Idempotency-Key it is also the answer a retry gets again. */
const createdLeads = ({ references }: { references: string[] }) => ({
  status: 201,
  body: { message: `${counted(references.length, 'lead')} created.`, references },
});

/** The spec's lead endpoints; every rule lives in services.leads. */
export function createLeadRoutes(ctx: AppContext): Router {
  const leads = ctx.services.leads;
  const r = express.Router();

  r.post(
    '/leads',
    route(async (req, res) => {
      await answerOnce(req, res, 'POST /leads', createdLeads, {
        plain: () => leads.createMany(req.actor!, req.body),
        once: (option) => leads.createManyOnce(req.actor!, req.body, option),
      });
    }),
  );

  r.get(
    '/leads',
    route(async (req, res) => {
      const page = await leads.list(req.actor!, req.query, 'rest');
      // the spec's six fields, in its order
      const data = page.data.map(({ id: _id, account_id: _a, ...item }) => item);
      res.json(
        paginationEnvelope({ ...page, data }, listPath(req), {
          per_page: page.perPage,
          search_by: page.query.search_by,
          keyWord: page.query.keyWord,
          source_id: page.query.source_id,
        }),
      );
    }),
  );

  r.put(
    '/leads',
    route(async (req, res) => {
      const { updated, orders } = await leads.updateStatuses(req.actor!, req.body);
      res.json({ message: `${counted(updated, 'lead')} updated.`, updated, orders });
    }),
  );

  r.delete(
    '/leads',
    route(async (req, res) => {
      const { deleted } = await leads.deleteMany(req.actor!, req.body, 'references');
      res.json({ message: `${counted(deleted, 'lead')} deleted.`, deleted });
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
