import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import pino from 'pino';

export type Logger = pino.Logger;

/** The longest message or stack a log record keeps; a record stays a few KB whatever failed. */
const MAX_TEXT = 1000;
const cut = (v: unknown) =>
  typeof v === 'string' && v.length > MAX_TEXT ? `${v.slice(0, MAX_TEXT)}… (${v.length} characters)` : v;

/**
 * What a log record keeps of an error: its type, code, message and the top of its stack. Never the statement and its
 * bound parameters (a Sequelize error carries every value of a failed batch: customers' phones and names), nor a
 * database error's detail line, which quotes the row.
 */
export function errorRecord(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: cut(String(err)) };
  const e = err as Error & { code?: unknown; parent?: { code?: unknown } };
  return {
    type: e.name,
    ...((e.code ?? e.parent?.code) ? { code: String(e.code ?? e.parent?.code) } : {}),
    message: cut(e.message),
    stack: cut(e.stack?.split('\n').slice(0, 8).join('\n')),
  };
}

const requestScope = new AsyncLocalStorage<{ reqId: string }>();

/**
 * Runs `fn` (an HTTP request's handling) in the scope of its request id: every log record written meanwhile, by a route
 * or by a service several calls down, carries `req_id`, without a logger being passed along.
 */
export function inRequestScope<T>(reqId: string, fn: () => T): T {
  return requestScope.run({ reqId }, fn);
}

/**
 * Where records go: JSON lines on standard output, or, when standard output is a terminal, the same records made
 * readable by pino-pretty (loaded only then: a service under a supervisor never loads it).
 */
function destination(): pino.DestinationStream {
  if (!process.stdout.isTTY) return pino.destination({ dest: 1, sync: true });
  return terminalStream(1, true);
}

/**
 * Records made readable on a terminal, one line each; an access record (http/observe.ts) as one short line,
 * `12:00:01.234 GET /admin/resources/{id} 200 12.3 ms` (seven lines each before: a panel page's requests pushed the
 * first start's logins off the screen, issue 41).
 */
export function terminalStream(dest: number | NodeJS.WritableStream, colorize: boolean): pino.DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  const out = typeof dest === 'number' ? null : dest;
  const others = pretty({
    destination: dest as never,
    sync: true,
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
  });
  return {
    write(line: string) {
      const rec = accessRecord(line);
      if (!rec) return others.write(line);
      const time = new Date(rec.time).toTimeString().slice(0, 8) + new Date(rec.time).toISOString().slice(19, 23);
      const text = `${time} ${rec.method} ${rec.route} ${rec.status} ${rec.duration_ms} ms\n`;
      if (out) out.write(text);
      else fs.writeSync(dest as number, text);
    },
  };
}

type AccessRecord = { time: string; method: string; route: string; status: number; duration_ms: number };

function accessRecord(line: string): AccessRecord | null {
  if (!line.includes('"msg":"request"')) return null;
  try {
    const rec = JSON.parse(line) as AccessRecord & { msg?: string };
    return rec.msg === 'request' && typeof rec.method === 'string' ? rec : null;
  } catch {
    return null;
  }
}

/**
 * Records are written to standard output synchronously: an asynchronous destination let a line written with
 * process.stdout.write (the first start's logins, the ready line) land inside a pending record, and grew without
 * bound behind a stalled reader (docs/performance.md, tried and left out). `time` is ISO 8601 (UTC).
 */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: () => {
        const scope = requestScope.getStore();
        return scope ? { req_id: scope.reqId } : {};
      },
      redact: ['req.headers.authorization', 'req.headers.cookie', 'password', 'token'],
      serializers: { err: errorRecord },
    },
    destination(),
  );
}
