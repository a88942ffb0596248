import path from 'node:path';
import { stringify } from 'csv-stringify';
import express, { type RequestHandler, type Router } from 'express';
import multer from 'multer';
import type { Actor } from '../../src/actor.js';
import type { AppContext } from '../../src/app-context.js';
import type { UploadedFile } from '../../src/uploads.js';
import { ValidationError } from '../../src/errors.js';
import { privateDirSync } from '../../src/private-files.js';
import { importRunView } from '../../src/transfers/import.service.js';
import { escapeCell } from '../../src/formula-cells.js';
import { route } from '../../http/async.js';
import { sendErrorPage } from '../../http/errors.js';
import { requestLanguage } from '../locale-text.js';
import { notAllowedPage } from '../views/pages.js';
import { respond } from './respond.js';

/** The panel's import page (admin/resources/import-page.ts), where GET /leads/import leads. */
export const IMPORT_PAGE = '/admin/resources/leads/actions/importFile';

/** POST /leads/import and /leads/export of the spec, and the runs they create (status, progress, report, download). */
export function createTransferRoutes(ctx: AppContext): Router {
  const { imports, exports } = ctx.services;
  const r = express.Router();

  // The import page is the panel's (the leads' "Import file"); the old address leads there, so no link to it breaks.
  addUploadRoutes(r, ctx, {
    path: '/leads/import',
    page: IMPORT_PAGE,
    done: '/admin',
    message: 'Import queued.',
    authorize: (actor) => imports.authorizeStart(actor),
    start: (actor, file, accountId) => imports.start(actor, file, { account_id: accountId }),
  });

  r.post(
    '/leads/export',
    route(async (req, res) => {
      const run = await exports.start(req.actor!, req.body ?? {});
      respond(req, res, 202, { message: 'Export queued.', id: run.id, data: run }, '/admin');
    }),
  );

  addRunRoutes(r, ctx);
  return r;
}

/** What an upload route needs: where it is, where its page is, who may, and what starts the run. */
export interface UploadRoute {
  path: string;
  /** The panel page with the form: GET of `path` leads there. */
  page: string;
  /** Where an HTML form's post goes once the run is queued. */
  done: string;
  message: string;
  authorize: (actor: Actor) => void;
  start: (actor: Actor, file: UploadedFile, accountId: unknown) => Promise<{ id: number }>;
}

/**
 * An import's two dashboard routes (the leads' and the stock count's): GET leads to the panel's page, or answers a
 * role that may not import with the 403 page (no form to fill in and then be refused); POST checks the role before a
 * byte of the body is read (session and CSRF were checked by the router), then reads the one file and starts the run:
 * 202 with it.
 */
export function addUploadRoutes(r: Router, ctx: AppContext, u: UploadRoute): void {
  const upload = spreadsheetUpload(ctx);
  r.get(
    u.path,
    route(async (req, res) => {
      try {
        u.authorize(req.actor!);
      } catch (refusal) {
        sendErrorPage(res, refusal, notAllowedPage({ title: 'site.import.title', lang: requestLanguage(req) }));
        return;
      }
      res.redirect(303, u.page);
    }),
  );
  r.post(
    u.path,
    route(async (req, _res, next) => {
      u.authorize(req.actor!);
      next();
    }),
    upload,
    route(async (req, res) => {
      if (!req.file) throw ValidationError.single('file', 'The file field is required.');
      const run = await u.start(req.actor!, req.file, req.body?.account_id);
      respond(req, res, 202, { message: u.message, id: run.id, data: run }, u.done);
    }),
  );
}

/**
 * Reads an import's one file (the `file` field) into DATA_DIR/uploads/incoming, 0700 (tenants' data,
 * src/private-files.ts); a refusal is answered in the documented shape. Mounted after the route's role check.
 */
export function spreadsheetUpload(ctx: AppContext): RequestHandler {
  const tmp = path.join(ctx.config.dataDir, 'uploads', 'incoming');
  privateDirSync(tmp);
  const upload = multer({ dest: tmp, limits: uploadLimits(ctx.config.importMaxBytes) }).single('file');
  return (req, res, next) => {
    upload(req, res, (err: unknown) => next(err ? uploadRefusal(err, ctx.config.importMaxBytes) : undefined));
  };
}

/**
 * The import form sends one file and at most a CSRF token: anything beyond is refused while streaming, so a body of
 * huge or countless text fields is never held in memory (multer's defaults allow any number of 1 MB fields).
 */
function uploadLimits(fileSize: number) {
  return { fileSize, files: 1, fields: 4, fieldSize: 4096, fieldNameSize: 100, parts: 5, headerPairs: 20 };
}

/** multer's refusals in the documented shape: a body over a bound is 413, a wrong form 422; its temp file is gone. */
function uploadRefusal(err: unknown, maxBytes: number): Error {
  const code = (err as { code?: string }).code;
  if (code === 'LIMIT_FILE_SIZE')
    return ValidationError.single(
      'file',
      `The file must not be greater than ${Math.round(maxBytes / 1024)} kilobytes.`,
    );
  if (code === 'LIMIT_FIELD_VALUE' || code === 'LIMIT_FIELD_COUNT' || code === 'LIMIT_PART_COUNT')
    return Object.assign(new Error('The request body is too large.'), { status: 413, type: 'entity.too.large' });
  if (code === 'LIMIT_UNEXPECTED_FILE' || code === 'LIMIT_FILE_COUNT')
    return ValidationError.single('file', 'Send one file, in the file field.');
  return ValidationError.single('file', 'The file could not be uploaded.');
}

/** The runs: list, status and progress, an import's report of refused rows, an export's file. */
function addRunRoutes(r: Router, ctx: AppContext) {
  const { imports, exports } = ctx.services;
  r.get(
    '/imports',
    route(async (req, res) => {
      res.json({ data: await imports.list(req.actor!) });
    }),
  );
  r.get(
    '/imports/:id',
    route(async (req, res) => {
      res.json({ data: importRunView(await imports.show(req.actor!, Number(req.params.id))) });
    }),
  );
  r.get(
    '/imports/:id/report',
    route(async (req, res) => {
      const rows = await imports.errors(req.actor!, Number(req.params.id));
      res.type('text/csv').attachment(`import-${req.params.id}-errors.csv`);
      const csv = stringify({ header: true, columns: ['row', 'column', 'message'] });
      csv.pipe(res);
      for (const e of rows) csv.write([e.row_number, e.column_name, escapeCell(e.message)]);
      csv.end();
    }),
  );

  r.get(
    '/exports',
    route(async (req, res) => {
      res.json({ data: await exports.list(req.actor!) });
    }),
  );
  r.get(
    '/exports/:id',
    route(async (req, res) => {
      res.json({ data: await exports.show(req.actor!, Number(req.params.id)) });
    }),
  );
  r.get(
    '/exports/:id/download',
    route(async (req, res) => {
      const file = await exports.file(req.actor!, Number(req.params.id));
      res.download(file.path, file.name);
    }),
  );
}
