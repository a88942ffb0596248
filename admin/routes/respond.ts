import type { Request, Response } from 'express';
import { wantsJson } from '../auth.js';

/** JSON clients get the body; HTML form posts are redirected to the page that shows the result. */
export function respond(req: Request, res: Response, status: number, body: unknown, redirectTo: string): void {
  if (wantsJson(req)) res.status(status).json(body);
  else res.redirect(303, redirectTo);
}
