import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'csv-stringify';
import ExcelJS from 'exceljs';
import Joi from 'joi';
import { Op, QueryTypes } from 'sequelize';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { NotFoundError } from '../errors.js';
import { dashboardListQuerySchema, type LeadFilters } from '../leads/lead.schemas.js';
import type { LeadService } from '../leads/lead.service.js';
import { accountScope, authorize } from '../policy.js';
import { validate } from '../validation.js';
import type { ExportRun } from './export-run.model.js';
import { runActor } from './run-actor.js';
import { escapeCell } from './spreadsheet.js';

export const EXPORT_JOB = 'export-leads';
export const CLEANUP_JOB = 'cleanup-exports';
const PAGE = 5000;

/** The list's own filters (paging aside) plus the format. */
const exportSchema = dashboardListQuerySchema.fork(['page', 'perPage'], (s) => s.strip()).keys({ file_extension: Joi.string().valid('xlsx', 'csv').required() });

export const EXPORT_COLUMNS = ['reference', 'status', 'phone', 'full_name', 'city', 'area', 'address', 'sku', 'quantity', 'price', 'products', 'total', 'data', 'action_date', 'created_at'];

export function exportRunView(r: ExportRun) {
  return {
    id: r.id, account_id: r.account_id, status: r.status, file_extension: r.file_extension, filters: r.filters, rows_written: r.rows_written,
    error: r.error, expires_at: r.expires_at?.toISOString() ?? null, created_at: r.created_at.toISOString(), finished_at: r.finished_at?.toISOString() ?? null,
  };
}

interface ExportRow {
  id: number; reference: string; status: string; phone: string; full_name: string; city: string | null; area: string | null; address: string | null;
  total: string; data: unknown; action_date: Date | null; created_at: Date; products: { sku: string; quantity: number; price: string }[] | null;
}

/** One spreadsheet row per lead: the first product in sku/quantity/price (so the file re-imports), all in `products`. */
function cells(r: ExportRow): string[] {
  const products = r.products ?? [];
  const first = products[0];
  return [
    r.reference, r.status, r.phone, r.full_name, r.city, r.area, r.address, first?.sku, first?.quantity, first ? Number(first.price) : '',
    products.map((p) => `${p.sku} x${p.quantity} @ ${Number(p.price)}`).join('; '), Number(r.total),
    Array.isArray(r.data) && r.data.length ? JSON.stringify(r.data) : '', r.action_date ? new Date(r.action_date).toISOString() : '',
    new Date(r.created_at).toISOString(),
  ].map(escapeCell);
}

export function createExportService(core: Core, deps: { leads: LeadService }) {
  const { ExportRun, User } = core.models;
  const { sequelize } = core.db;

  return {
    /** Queues an export (IMPORTANT) of the leads the list would show with these filters. */
    async start(actor: Actor, input: Record<string, unknown>) {
      authorize(actor, 'export', 'lead');
      const { file_extension, ...filters } = input ?? {};
      const v = validate<Record<string, unknown> & { file_extension: 'xlsx' | 'csv' }>(exportSchema, { file_extension, ...filters });
      const { file_extension: ext, ...clean } = v;
      const run = await ExportRun.create({ account_id: actor.accountId, user_id: actor.kind === 'system' ? null : actor.userId, file_extension: ext, filters: clean });
      await core.queue.enqueue(EXPORT_JOB, { runId: run.id }, { priority: 'IMPORTANT', uniqueKey: `export:${run.id}` });
      return exportRunView(run);
    },

    async list(actor: Actor) {
      authorize(actor, 'viewAny', 'exportRun');
      return (await ExportRun.findAll({ where: accountScope(actor), order: [['created_at', 'DESC'], ['id', 'DESC']], limit: 100 })).map(exportRunView);
    },

    /** The file of a finished export of the actor's account; an expired one is gone (410 at the route). */
    async file(actor: Actor, id: number): Promise<{ path: string; name: string } | 'expired'> {
      authorize(actor, 'view', 'exportRun');
      const run = Number.isSafeInteger(Number(id)) ? await ExportRun.findOne({ where: { id, ...accountScope(actor) } }) : null;
      if (!run || (run.status !== 'completed' && run.status !== 'expired')) throw new NotFoundError();
      if (run.status === 'expired' || (run.expires_at && run.expires_at <= new Date()) || !run.file_path || !fs.existsSync(run.file_path)) return 'expired';
      return { path: run.file_path, name: `leads-${run.id}.${run.file_extension}` };
    },

    /** The job: keyset pages (created_at, id) through the list's own filter SQL, streamed into the file. */
    async run(runId: number): Promise<void> {
      const run = await ExportRun.findByPk(runId);
      if (!run || run.status === 'completed' || run.status === 'expired') return;
      const actor = await runActor(run, User, 'export');
      if (!actor) return;
      const dir = path.join(core.config.dataDir, 'exports', String(run.account_id));
      await fs.promises.mkdir(dir, { recursive: true });
      const file = path.join(dir, `${run.id}.${run.file_extension}`);
      await run.update({ status: 'running', started_at: new Date(), file_path: file });
      try {
        const filters = { ...(run.filters as LeadFilters), account_id: run.account_id };
        const { where, params } = deps.leads.listQuery(actor, filters);
        const writer = await openWriter(file, run.file_extension);
        let count = 0;
        let cursor: { created_at: Date; id: number } | null = null;
        for (;;) {
          const n = params.length;
          const keyset = cursor ? `AND (l.created_at, l.id) < ($${n + 1}, $${n + 2})` : '';
          const rows: ExportRow[] = await sequelize.query<ExportRow>(
            `SELECT l.id, l.reference, l.status, l.phone, l.full_name, l.city, l.area, l.address, l.total, l.data, l.action_date, l.created_at,
                    (SELECT json_agg(json_build_object('sku', p.sku, 'quantity', p.quantity, 'price', p.price) ORDER BY p.position)
                       FROM lead_products p WHERE p.lead_id = l.id) AS products
               FROM leads l WHERE ${where} ${keyset} ORDER BY l.created_at DESC, l.id DESC LIMIT ${PAGE}`,
            { bind: cursor ? [...params, cursor.created_at, cursor.id] : params, type: QueryTypes.SELECT },
          );
          for (const r of rows) await writer.write(cells(r));
          count += rows.length;
          if (rows.length < PAGE) break;
          const last: ExportRow = rows[rows.length - 1];
          cursor = { created_at: last.created_at, id: last.id };
          await run.update({ rows_written: count });
        }
        await writer.close();
        await run.update({ status: 'completed', rows_written: count, finished_at: new Date(), expires_at: new Date(Date.now() + core.config.exportTtlDays * 86_400_000) });
      } catch (err) {
        core.logger.error({ err, runId }, 'export failed');
        await fs.promises.rm(file, { force: true });
        await run.update({ status: 'failed', error: (err as Error).message.slice(0, 1000), finished_at: new Date() });
      }
    },

    /** Deletes the files of exports past their expiry (daily job). */
    async removeExpired(): Promise<number> {
      const expired = await ExportRun.findAll({ where: { status: 'completed', expires_at: { [Op.lte]: new Date() } } });
      for (const r of expired) {
        if (r.file_path) await fs.promises.rm(r.file_path, { force: true });
        await r.update({ status: 'expired' });
      }
      return expired.length;
    },
  };
}
export type ExportService = ReturnType<typeof createExportService>;

/** CSV through csv-stringify, xlsx through exceljs's streaming writer (no shared strings, no styles). */
async function openWriter(file: string, ext: 'csv' | 'xlsx'): Promise<{ write(cells: string[]): Promise<void>; close(): Promise<void> }> {
  if (ext === 'csv') {
    const out = fs.createWriteStream(file);
    const csv = stringify({ bom: true });
    csv.pipe(out);
    csv.write(EXPORT_COLUMNS);
    return {
      async write(c) {
        if (!csv.write(c)) await new Promise((r) => csv.once('drain', r));
      },
      close: () => new Promise<void>((resolve, reject) => {
        out.once('finish', resolve).once('error', reject);
        csv.end();
      }),
    };
  }
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false, useStyles: false });
  const ws = wb.addWorksheet('Leads');
  ws.addRow(EXPORT_COLUMNS).commit();
  return {
    async write(c) {
      ws.addRow(c).commit();
    },
    async close() {
      ws.commit();
      await wb.commit();
    },
  };
}
