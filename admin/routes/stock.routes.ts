import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { importRunView } from '../../src/transfers/import.service.js';
import { addUploadRoutes } from './transfers.routes.js';

/** The panel's Stock page, where the count is uploaded and followed. */
export const STOCK_PAGE = '/admin/pages/stock';

/**
 * GET and POST /stock/import: a stock count file (sku, warehouse, quantity) for the account, read after the role check
 * like the lead import; 202 with the run (an import of kind `stock`: GET /imports/{id} and its report follow it).
 */
export function createDashboardStockRoutes(ctx: AppContext): Router {
  const { stock } = ctx.services;
  const r = express.Router();
  addUploadRoutes(r, ctx, {
    path: '/stock/import',
    page: STOCK_PAGE,
    done: STOCK_PAGE,
    message: 'Stock count queued.',
    authorize: (actor) => stock.authorizeCount(actor),
    start: async (actor, file, accountId) =>
      importRunView(await stock.startCount(actor, file, { account_id: accountId })),
  });
  return r;
}
