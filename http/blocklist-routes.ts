import type { RequestHandler, Router } from 'express';
import type { BlocklistService } from '../src/blocklist/blocklist.service.js';
import { paginationEnvelope } from '../src/pagination.js';
import { route } from './async.js';
import { listPath } from './route-helpers.js';

/**
 * The blocklist routes of the REST API (/api/web/1.0/blocklist, scope MANAGE BLOCKLIST) and of the dashboard (session
 * + CSRF), written once so their paths and answers cannot drift apart. Ids, bodies and queries go to
 * services.blocklist as they came; its validation and tenancy answer bad or foreign ones. An entry is unblocked by its
 * id, the one the list and the block answer show (a phone typed another way would name the same entry ambiguously).
 */
export function addBlocklistRoutes(r: Router, blocklist: BlocklistService, otherMethods?: RequestHandler): void {
  const refuseOthers = (path: string) => otherMethods && r.all(path, otherMethods);
  r.get(
    '/blocklist',
    route(async (req, res) => {
      const page = await blocklist.list(req.actor!, req.query);
      res.json(paginationEnvelope(page, listPath(req), { per_page: page.perPage, phone: req.query.phone }));
    }),
  );
  r.post(
    '/blocklist',
    route(async (req, res) => {
      const entry = await blocklist.block(req.actor!, req.body);
      res.status(201).json({ message: 'Phone blocked.', data: entry });
    }),
  );
  refuseOthers('/blocklist');
  r.get(
    '/blocklist/:id',
    route(async (req, res) => {
      res.json({ data: await blocklist.show(req.actor!, req.params.id) });
    }),
  );
  r.delete(
    '/blocklist/:id',
    route(async (req, res) => {
      const { deleted } = await blocklist.unblock(req.actor!, req.params.id);
      res.json({ message: 'Phone unblocked.', deleted });
    }),
  );
  refuseOthers('/blocklist/:id');
}
