import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'csv-stringify';
import express, { type Router } from 'express';
import multer from 'multer';
import type { AppContext } from '../../src/context.js';
import { ValidationError } from '../../src/errors.js';
import { importRunView } from '../../src/transfers/import.service.js';
import { escapeCell } from '../../src/transfers/spreadsheet.js';
import { route } from '../../http/async.js';
import { importPage } from '../views/pages.js';
import { respond } from './respond.js';

/** POST /leads/import and /leads/export of the spec, and the runs they create (status, progress, report, download). */
export function createTransferRoutes(ctx: AppContext): Router {
  const { imports, exports } = ctx.services;
  const tmp = path.join(ctx.config.dataDir, 'uploads', 'incoming');
  fs.mkdirSync(tmp, { recursive: true });
  const upload = multer({ dest: tmp, limits: { fileSize: ctx.config.importMaxBytes, files: 1 } }).single('file');
  const r = express.Router();

  r.get('/leads/import', (req, res) => {
    res.type('html').send(importPage());
  });

  r.post(
    '/leads/import',
    (req, res, next) => {
      upload(req, res, (err: unknown) => {
        if (err) {
          const tooBig = (err as { code?: string }).code === 'LIMIT_FILE_SIZE';
          return next(
            ValidationError.single(
              'file',
              tooBig
                ? `The file must not be greater than ${Math.round(ctx.config.importMaxBytes / 1024)} kilobytes.`
                : 'The file could not be uploaded.',
            ),
          );
        }
        next();
      });
    },
    route(async (req, res) => {
      if (!req.file) throw ValidationError.single('file', 'The file field is required.');
      const run = await imports.start(req.actor!, req.file);
      respond(req, res, 202, { message: 'Import queued.', id: run.id, data: run }, '/admin');
    }),
  );

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
