import type { Request, RequestHandler } from 'express';
import { MethodNotAllowedError } from '../src/errors.js';

/** Absolute path of the list being answered, for the paginator links. */
export function listPath(req: Request): string {
  return `${req.protocol}://${req.get('host')}${req.baseUrl}${req.path}`;
}

export const methodNotAllowed: RequestHandler = (_req, _res, next) => next(new MethodNotAllowedError());
