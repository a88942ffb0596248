import type { Request, RequestHandler } from 'express';

/** Absolute path of the list being answered, for the paginator links. */
export function listPath(req: Request): string {
  return `${req.protocol}://${req.get('host')}${req.baseUrl}${req.path}`;
}

export const methodNotAllowed: RequestHandler = (_req, res) => {
  res.status(405).json({ message: 'The method is not supported for this route.' });
};
