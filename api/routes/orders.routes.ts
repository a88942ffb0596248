import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { paginationEnvelope } from '../../src/pagination.js';
import { route } from '../../http/async.js';
import { listPath, methodNotAllowed } from '../../http/route-helpers.js';
import { answerOnce } from '../idempotent.js';
import { counted } from '../../http/counted.js';

/** The 201 of a bulk create; with an Idempotency-Key it is also the answer a retry gets again. */
const createdOrders = ({ references }: { references: string[] }) => ({
  status: 201,
  body: { message: `${counted(references.length, 'order')} created.`, references },
});

const queuedMessage = (queued: number) => `${counted(queued, 'order')} queued for the shipping company.`;

/** Orders over REST (ORDERS scopes); every rule lives in services.orders. */
export function createOrderRoutes(ctx: AppContext): Router {
  const orders = ctx.services.orders;
  const r = express.Router();
  r.post(
    '/orders',
    route(async (req, res) => {
      await answerOnce(req, res, 'POST /orders', createdOrders, {
        plain: () => orders.createMany(req.actor!, req.body),
        once: (option) => orders.createManyOnce(req.actor!, req.body, option),
      });
    }),
  );
  r.get(
    '/orders',
    route(async (req, res) => {
      const page = await orders.list(req.actor!, req.query);
      const data = page.data.map(({ id: _i, account_id: _a, ...o }) => o);
      res.json(
        paginationEnvelope({ ...page, data }, listPath(req), {
          per_page: page.perPage,
          search_by: req.query.search_by,
          keyWord: req.query.keyWord,
          status: req.query.status,
        }),
      );
    }),
  );
  r.put(
    '/orders',
    route(async (req, res) => {
      const { updated } = await orders.updateStatuses(req.actor!, req.body);
      res.json({ message: `${counted(updated, 'order')} updated.`, updated });
    }),
  );
  r.delete(
    '/orders',
    route(async (req, res) => {
      const { deleted } = await orders.deleteMany(req.actor!, req.body);
      res.json({ message: `${counted(deleted, 'order')} deleted.`, deleted });
    }),
  );
  r.all('/orders', methodNotAllowed);
  r.post(
    '/orders/push',
    route(async (req, res) => {
      const { queued, skipped } = await orders.push(req.actor!, req.body);
      res.status(202).json({ message: queuedMessage(queued), queued, skipped });
    }),
  );
  r.all('/orders/push', methodNotAllowed);
  r.get(
    '/orders/:reference/show',
    route(async (req, res) => {
      const { id: _i, account_id: _a, ...data } = await orders.show(req.actor!, { reference: req.params.reference });
      res.json({ data });
    }),
  );
  r.all('/orders/:reference/show', methodNotAllowed);
  return r;
}
