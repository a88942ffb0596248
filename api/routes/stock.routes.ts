import express, { type Request, type Router } from 'express';
import type { Actor } from '../../src/actor.js';
import type { AppContext } from '../../src/app-context.js';
import { paginationEnvelope, type Page } from '../../src/pagination.js';
import { route } from '../../http/async.js';
import { listPath, methodNotAllowed } from '../../http/route-helpers.js';

/** The filters a list's links carry on: the ones it knows, as the strings they came as. */
const kept = (query: Request['query'], keys: string[]) =>
  Object.fromEntries(keys.filter((k) => typeof query[k] === 'string').map((k) => [k, query[k]]));

/**
 * Stock (docs/stock.md); scope MANAGE STOCK. Queries and bodies go to services.stock as they came: its validation
 * and tenancy answer bad or foreign ones.
 */
export function createStockRoutes(ctx: AppContext): Router {
  const r = express.Router();
  const { stock } = ctx.services;
  const list = <T>(path: string, keys: string[], read: (actor: Actor, query: unknown) => Promise<Page<T>>) =>
    r.get(
      path,
      route(async (req, res) => {
        const page = await read(req.actor!, req.query);
        res.json(paginationEnvelope(page, listPath(req), { ...kept(req.query, keys), per_page: page.perPage }));
      }),
    );
  list('/stock', ['sku', 'warehouse', 'low'], stock.list);
  list('/stock/movements', ['sku', 'warehouse', 'kind', 'order_reference', 'since'], stock.movements);
  r.post(
    '/stock/movements',
    route(async (req, res) => {
      const { movements } = await stock.record(req.actor!, req.body);
      res.status(201).json({ message: `${movements} stock movement(s) recorded.`, movements });
    }),
  );
  r.get(
    '/warehouses',
    route(async (req, res) => {
      res.json({ data: await stock.warehouses(req.actor!, req.query) });
    }),
  );
  r.post(
    '/warehouses',
    route(async (req, res) => {
      res.status(201).json({ message: 'Warehouse created.', data: await stock.createWarehouse(req.actor!, req.body) });
    }),
  );
  list('/products', ['sku'], stock.products);
  r.put(
    '/products/:sku',
    route(async (req, res) => {
      const data = await stock.setThreshold(req.actor!, req.params.sku, req.body);
      res.json({ message: 'Product updated.', data });
    }),
  );
  for (const path of ['/stock', '/stock/movements', '/warehouses', '/products', '/products/:sku'])
    r.all(path, methodNotAllowed);
  return r;
}
