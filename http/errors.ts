import type { ErrorRequestHandler, Response } from 'express';
import {
  AppError,
  BadRequestError,
  ConflictError,
  GoneError,
  MethodNotAllowedError,
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
  if (err instanceof BadRequestError) return 400;
  if (err instanceof UnauthenticatedError) return 401;
  if (err instanceof ForbiddenError) return 403;
  if (err instanceof NotFoundError) return 404;
  if (err instanceof MethodNotAllowedError) return 405;
  if (err instanceof ConflictError) return 409;
  if (err instanceof GoneError) return 410;
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

/** The headers a refusal carries: Retry-After for a rate limit that knows its wait, and while the database is away. */
function setErrorHeaders(res: Response, err: unknown): void {
  if (err instanceof RateLimitedError && err.retryAfterSeconds !== undefined)
    res.set('Retry-After', String(err.retryAfterSeconds));
  if (statusFor(err) === 503) res.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER));
}

export function sendError(res: Response, err: unknown): void {
  setErrorHeaders(res, err);
  res.status(statusFor(err)).json(errorBody(err));
}

/** A refusal answered to a browser as an HTML page (a form shown again with the message), status from the table. */
export function sendErrorPage(res: Response, err: unknown, html: string): void {
  setErrorHeaders(res, err);
  res.status(statusFor(err)).type('html').send(html);
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
