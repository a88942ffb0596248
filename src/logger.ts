import { AsyncLocalStorage } from 'node:async_hooks';
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
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return pretty({ destination: 1, sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l' });
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
