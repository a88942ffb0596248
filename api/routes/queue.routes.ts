import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import type { QueueLead } from '../../src/queue/queue.service.js';
import { route } from '../../http/async.js';
import { methodNotAllowed } from '../../http/route-helpers.js';

/** A lead as the REST show answers it: without the internal ids. */
const restLead = <T extends QueueLead>({ id: _id, account_id: _a, city_id: _c, ...lead }: T) => lead;

/**
 * The agent work queue for integrators' own call-centre tools (docs/api.md "Agent work queue"); every rule lives in
 * services.queue. The state-changing routes are POST only: any other method, GET included, is a 405 and claims nothing.
 */
export function createQueueRoutes(ctx: AppContext): Router {
  const queue = ctx.services.queue;
  const r = express.Router();

  r.get(
    '/queue',
    route(async (req, res) => {
      res.json({ data: await queue.counts(req.actor!, req.query) });
    }),
  );
  r.all('/queue', methodNotAllowed);

  r.post(
    '/queue/next',
    route(async (req, res) => {
      const item = await queue.next(req.actor!, req.body);
      if (!item) {
        res.json({ message: 'No lead waits in the queue.', data: null });
        return;
      }
      res.json({ message: `Lead ${item.reference} is yours until ${item.claim_expires_at}.`, data: restLead(item) });
    }),
  );
  r.all('/queue/next', methodNotAllowed);

  r.post(
    '/queue/:reference/outcome',
    route(async (req, res) => {
      const { lead, order_reference } = await queue.outcome(req.actor!, { reference: req.params.reference }, req.body);
      res.json({ message: `Lead ${lead.reference} is now ${lead.status}.`, data: restLead(lead), order_reference });
    }),
  );
  r.all('/queue/:reference/outcome', methodNotAllowed);

  r.post(
    '/queue/:reference/release',
    route(async (req, res) => {
      const { released } = await queue.release(req.actor!, { reference: req.params.reference });
      res.json({ message: released ? 'Lead released.' : 'You held no claim on this lead.', released });
    }),
  );
  r.all('/queue/:reference/release', methodNotAllowed);
  return r;
}
