import fs from 'node:fs';
import path from 'node:path';
import { Transform, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import ExcelJS from 'exceljs';
import Joi from 'joi';
import { Op } from 'sequelize';
import type { Actor } from '../actor.js';
import type { Core } from '../context.js';
import { isDatabaseUnavailable, withPgClient } from '../db/index.js';
import { NotFoundError } from '../errors.js';
import { dashboardListQuerySchema, type LeadFilters } from '../leads/lead.schemas.js';
import { EXPORT_COLUMNS, leadExport, type ExportSlice } from '../leads/lead-export.repository.js';
import { accountScope, authorize } from '../policy.js';
import { isRowId } from '../query.js';
import { validate } from '../validation.js';
import type { ExportRun } from './export-run.model.js';
import { runActor } from './run-actor.js';

export const EXPORT_JOB = 'export-leads';
export const CLEANUP_JOB = 'cleanup-exports';

/** The list's own filters (paging aside) plus the format. */
const exportSchema = dashboardListQuerySchema
  .fork(['page', 'perPage'], (s) => s.strip())
  .keys({ file_extension: Joi.string().valid('xlsx', 'csv').required() });

export function exportRunView(r: ExportRun) {
  return {
    id: r.id,
    account_id: r.account_id,
    status: r.status,
    file_extension: r.file_extension,
    filters: r.filters,
    rows_written: r.rows_written,
    error: r.error,
    expires_at: r.expires_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
    finished_at: r.finished_at?.toISOString() ?? null,
  };
}

export function createExportService(core: Core) {
  const { ExportRun, User } = core.models;
  const { sequelize } = core.db;

  /**
   * The CSV in two halves, newer and older than the middle of the rows' created_at span, formatted at once by two
   * connections that share one snapshot (formatting is PostgreSQL's work, so this puts both cores on it); the newer
   * half goes straight into the file, the older one into a second file appended after it.
   */
  async function csvInHalves(
    query: ReturnType<typeof leadExport>,
    file: string,
    progress: { rows: number },
  ): Promise<number> {
    return withPgClient(sequelize, (a) =>
      withPgClient(sequelize, async (b) => {
        await a.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const [{ snapshot }] = (await a.query('SELECT pg_export_snapshot() AS snapshot')).rows;
        await b.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        await b.query(`SET TRANSACTION SNAPSHOT ${pg.escapeLiteral(snapshot)}`);
        const [{ middle }] = (await a.query(query.middle.sql, query.middle.params)).rows as { middle: string | null }[];
        const half = (client: pg.Client, slice: ExportSlice, header: boolean) => {
          const select = query.rows(slice);
          return client.query(copyTo(`COPY (${select}) TO STDOUT WITH (FORMAT csv${header ? ', HEADER' : ''})`));
        };
        const rest = `${file}.older`;
        try {
          const out = fs.createWriteStream(file);
          out.write('\uFEFF');
          const newer = half(a, middle === null ? 'all' : { after: middle }, true);
          const older = middle === null ? null : half(b, { upTo: middle }, false);
          await Promise.all([
            pipeline(newer, csvRecordCounter(progress, true), out),
            older && pipeline(older, csvRecordCounter(progress, false), fs.createWriteStream(rest)),
          ]);
          if (older) await pipeline(fs.createReadStream(rest), fs.createWriteStream(file, { flags: 'a' }));
          await Promise.all([a.query('COMMIT'), b.query('COMMIT')]);
          return newer.rowCount + (older?.rowCount ?? 0);
        } finally {
          await fs.promises.rm(rest, { force: true });
        }
      }),
    );
  }

  return {
    /** Queues an export (IMPORTANT) of the leads the list would show with these filters. */
    async start(actor: Actor, input: Record<string, unknown>) {
      authorize(actor, 'export', 'lead');
      const { file_extension, ...filters } = input ?? {};
      const v = validate<Record<string, unknown> & { file_extension: 'xlsx' | 'csv' }>(exportSchema, {
        file_extension,
        ...filters,
      });
      const { file_extension: ext, ...clean } = v;
      const run = await ExportRun.create({
        account_id: actor.accountId,
        user_id: actor.kind === 'system' ? null : actor.userId,
        file_extension: ext,
        filters: clean,
      });
      await core.queue.enqueue(EXPORT_JOB, { runId: run.id }, { priority: 'IMPORTANT', uniqueKey: `export:${run.id}` });
      return exportRunView(run);
    },

    async list(actor: Actor) {
      authorize(actor, 'viewAny', 'exportRun');
      return (
        await ExportRun.findAll({
          where: accountScope(actor),
          order: [
            ['created_at', 'DESC'],
            ['id', 'DESC'],
          ],
          limit: 100,
        })
      ).map(exportRunView);
    },

    /** The file of a finished export of the actor's account; an expired one is gone (410 at the route). */
    async file(actor: Actor, id: number): Promise<{ path: string; name: string } | 'expired'> {
      authorize(actor, 'view', 'exportRun');
      const run = isRowId(Number(id)) ? await ExportRun.findOne({ where: { id, ...accountScope(actor) } }) : null;
      if (!run || (run.status !== 'completed' && run.status !== 'expired')) throw new NotFoundError();
      if (
        run.status === 'expired' ||
        (run.expires_at && run.expires_at <= new Date()) ||
        !run.file_path ||
        !fs.existsSync(run.file_path)
      )
        return 'expired';
      return { path: run.file_path, name: `leads-${run.id}.${run.file_extension}` };
    },

    /**
     * The job: the list's own filter SQL, formatted by one SELECT and streamed out of PostgreSQL with COPY (one
     * snapshot, nothing held in memory): as CSV straight into the file (csvInHalves), in COPY's text format through
     * copyTextRows into exceljs's streaming writer for xlsx. rows_written is updated every two seconds while it runs.
     */
    async run(runId: number): Promise<void> {
      const run = await ExportRun.findByPk(runId);
      if (!run || run.status === 'completed' || run.status === 'expired') return;
      const actor = await runActor(run, User, 'export');
      if (!actor) return;
      const dir = path.join(core.config.dataDir, 'exports', String(run.account_id));
      await fs.promises.mkdir(dir, { recursive: true });
      const file = path.join(dir, `${run.id}.${run.file_extension}`);
      await run.update({ status: 'running', started_at: new Date(), file_path: file });
      const progress = { rows: 0 };
      const timer = setInterval(() => {
        ExportRun.update({ rows_written: progress.rows }, { where: { id: run.id, status: 'running' } }).catch(() => {});
      }, 2000);
      try {
        // The list's own scope: a seller's export is their account whatever the filters say; an admin's is the account
        // chosen in the filters (or every account), like the admin's list.
        const query = leadExport(actor, run.filters as LeadFilters);
        const count =
          run.file_extension === 'csv'
            ? await csvInHalves(query, file, progress)
            : await withPgClient(sequelize, async (client) => {
                const source = client.query(copyTo(`COPY (${query.rows('all')}) TO STDOUT`));
                await pipeline(source, copyTextRows(), xlsxSink(file, progress));
                return source.rowCount;
              });
        await run.update({
          status: 'completed',
          rows_written: count,
          finished_at: new Date(),
          expires_at: new Date(Date.now() + core.config.exportTtlDays * 86_400_000),
        });
        core.metrics.transferRows.inc({ kind: 'export', outcome: 'exported' }, count ?? 0);
      } catch (err) {
        await fs.promises.rm(file, { force: true }).catch(() => {});
        // An outage is not the export's fault: the job waits for the database and writes the file again.
        if (isDatabaseUnavailable(err)) throw err;
        core.logger.error({ err, runId }, 'export failed');
        await run.update({ status: 'failed', error: (err as Error).message.slice(0, 1000), finished_at: new Date() });
      } finally {
        clearInterval(timer);
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

/**
 * Counts the CSV records passing through (a newline outside double quotes ends one; a header, if any, counts as none).
 * Two cached indexOf positions per chunk keep it linear.
 */
export function csvRecordCounter(progress: { rows: number }, withHeader = true): Transform {
  let quoted = false;
  let header = withHeader;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      let i = 0;
      let q = -2;
      let nl = -2;
      for (;;) {
        if (q !== -1 && q < i) q = chunk.indexOf(0x22, i);
        if (quoted) {
          if (q < 0) break;
          quoted = false;
          i = q + 1;
          continue;
        }
        if (nl !== -1 && nl < i) nl = chunk.indexOf(0x0a, i);
        if (nl < 0 && q < 0) break;
        if (q >= 0 && (nl < 0 || q < nl)) {
          quoted = true;
          i = q + 1;
        } else {
          if (header) header = false;
          else progress.rows++;
          i = nl + 1;
        }
      }
      done(null, chunk);
    },
  });
}

/** Cells of COPY's text format: `\N` is NULL, a backslash escapes the next character (b f n r t v name controls). */
const COPY_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
const copyCell = (s: string): string | null =>
  s === '\\N' ? null : s.includes('\\') ? s.replace(/\\(.)/g, (_, c: string) => COPY_ESCAPES[c] ?? c) : s;

/**
 * Rows of `COPY … TO STDOUT` in text format, as arrays of cells, one array of rows per chunk. Every row is one line
 * (newlines in values arrive escaped) and cells are tab-separated, so a split does the parsing.
 */
export function copyTextRows(): Transform {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  const rows = (lines: string[]) => (lines.length ? lines.map((l) => l.split('\t').map(copyCell)) : undefined);
  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _enc, done) {
      const lines = (rest + decoder.write(chunk)).split('\n');
      rest = lines.pop()!;
      done(null, rows(lines));
    },
    flush(done) {
      const tail = rest + decoder.end();
      done(null, rows(tail ? [tail] : []));
    },
  });
}

/** Export columns written as numbers in xlsx. */
const NUMERIC = new Set(['quantity', 'price', 'total'].map((c) => EXPORT_COLUMNS.indexOf(c)));

/**
 * exceljs's streaming writer: no shared strings, no styles; empty cells left out, amounts as numbers. Its sheet
 * stream pushes into the zip's deflate stream without backpressure, so rows wait while more than 1 MB of sheet XML
 * is queued there (memory stays flat).
 */
function xlsxSink(file: string, progress: { rows: number }): Writable {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false, useStyles: false });
  const ws = wb.addWorksheet('Leads');
  ws.addRow(EXPORT_COLUMNS).commit();
  const backlog = () => {
    const dest = (
      ws as unknown as { stream?: { pipes?: (NodeJS.EventEmitter & { _writableState?: { length: number } })[] } }
    ).stream?.pipes?.[0];
    return dest && (dest._writableState?.length ?? 0) > 1 << 20 ? dest : null;
  };
  return new Writable({
    objectMode: true,
    write(rows: (string | null)[][], _enc, done) {
      for (const row of rows) {
        ws.addRow(row.map((v, i) => (v === null || v === '' ? undefined : NUMERIC.has(i) ? Number(v) : v))).commit();
      }
      progress.rows += rows.length;
      const dest = backlog();
      if (!dest) return done();
      // the zip stream either drains or fails; waiting on 'drain' alone would hang the job on a failure
      const drained = () => {
        dest.off('error', failed);
        done();
      };
      const failed = (err: Error) => {
        dest.off('drain', drained);
        done(err);
      };
      dest.once('drain', drained).once('error', failed);
    },
    final(done) {
      ws.commit();
      wb.commit().then(() => done(), done);
    },
  });
}
