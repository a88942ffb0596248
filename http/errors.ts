import type { ErrorRequestHandler, Response } from 'express';
import {
  AppError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  UnauthenticatedError,
  ValidationError,
} from '../src/errors.js';
import { isDatabaseUnavailable } from '../src/db/index.js';
import type { Logger } from '../src/logger.js';

/** Seconds a client is asked to wait while the database is unreachable (a restart takes a few seconds). */
const UNAVAILABLE_RETRY_AFTER = 5;

/** The one table from typed errors to HTTP status codes (bodies follow decisions.md, Laravel style). */
export function statusFor(err: unknown): number {
  if (err instanceof ValidationError) return 422;
  if (err instanceof UnauthenticatedError) return 401;
  if (err instanceof ForbiddenError) return 403;
  if (err instanceof NotFoundError) return 404;
  if (err instanceof ConflictError) return 409;
  if (err instanceof RateLimitedError) return 429;
  if (isDatabaseUnavailable(err)) return 503;
  return 500;
}

export function errorBody(err: unknown): Record<string, unknown> {
  if (err instanceof ValidationError) return { message: err.message, errors: err.errors };
  if (err instanceof AppError) return { message: err.message };
  if (isDatabaseUnavailable(err)) return { message: 'Service temporarily unavailable. Please retry shortly.' };
  return { message: 'Server Error' };
}

export function sendError(res: Response, err: unknown): void {
  const status = statusFor(err);
  if (err instanceof RateLimitedError) res.set('Retry-After', String(err.retryAfterSeconds));
  if (status === 503) res.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER));
  res.status(status).json(errorBody(err));
}

/** Body-parser and other HTTP-level errors carry a status; they are answered as JSON too, never HTML. */
export function jsonErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) return;
    const httpStatus =
      (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode;
    if (!(err instanceof AppError) && httpStatus && httpStatus >= 400 && httpStatus < 500) {
      const type = (err as { type?: string }).type;
      const message =
        type === 'entity.parse.failed'
          ? 'Malformed JSON body.'
          : type === 'entity.too.large'
            ? 'The request body is too large.'
            : httpStatus === 403
              ? 'This action is unauthorized.'
              : (err as Error).message || 'Bad Request';
      res.status(httpStatus).json({ message });
      return;
    }
    if (statusFor(err) === 503)
      logger.warn({ path: req.baseUrl + req.path, err }, 'database unavailable'); // req_id: the request scope's
    else if (statusFor(err) === 500) logger.error({ err, path: req.baseUrl + req.path }, 'unhandled error');
    sendError(res, err);
  };
}
