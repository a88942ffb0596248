import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { ValidationError } from '../../src/errors.js';
import { importRunView } from '../../src/transfers/import.service.js';
import { route } from '../../http/async.js';
import { sendErrorPage } from '../../http/errors.js';
import { requestLanguage } from '../locale-text.js';
import { notAllowedPage } from '../views/pages.js';
import { respond } from './respond.js';
import { spreadsheetUpload } from './transfers.routes.js';

/** The panel's Stock page, where the count is uploaded and followed. */
export const STOCK_PAGE = '/admin/pages/stock';

/**
 * POST /stock/import: a stock count file (sku, warehouse, quantity) for the account, read after the role check like
 * the lead import; 202 with the run (an import of kind `stock`: GET /imports/{id} and its report follow it).
 */
export function createDashboardStockRoutes(ctx: AppContext): Router {
  const { stock } = ctx.services;
  const upload = spreadsheetUpload(ctx);
  const r = express.Router();
  const mayCount = (req: express.Request) => stock.authorizeCount(req.actor!);

  r.get(
    '/stock/import',
    route(async (req, res) => {
      try {
        mayCount(req);
      } catch (refusal) {
        sendErrorPage(res, refusal, notAllowedPage({ title: 'site.import.title', lang: requestLanguage(req) }));
        return;
      }
      res.redirect(303, STOCK_PAGE);
    }),
  );

  r.post(
    '/stock/import',
    route(async (req, _res, next) => {
      mayCount(req);
      next();
    }),
    upload,
    route(async (req, res) => {
      if (!req.file) throw ValidationError.single('file', 'The file field is required.');
      const run = importRunView(await stock.startCount(req.actor!, req.file, { account_id: req.body?.account_id }));
      respond(req, res, 202, { message: 'Stock count queued.', id: run.id, data: run }, STOCK_PAGE);
    }),
  );
  return r;
}
