import type { RequestHandler, Router } from 'express';
import type { SourceService } from '../src/sources/source.service.js';
import { paginationEnvelope } from '../src/pagination.js';
import { route } from './async.js';
import { listPath } from './route-helpers.js';

/** What differs: the REST API updates with PUT and answers 405 to other methods; the dashboard PATCHes too. */
export interface SourceRouteOptions {
  update: readonly ('put' | 'patch')[];
  otherMethods?: RequestHandler;
}

/**
 * The lead source routes of the REST API (/api/web/1.0/sources, scope MANAGE SOURCES) and of the dashboard (session
 * + CSRF), written once so their paths and answers cannot drift apart. Ids, bodies and queries go to services.sources
 * as they came; its validation and tenancy answer bad or foreign ones. The secret never leaves (a hint only).
 */
export function addSourceRoutes(r: Router, sources: SourceService, options: SourceRouteOptions): void {
  const refuseOthers = (path: string) => options.otherMethods && r.all(path, options.otherMethods);
  r.get(
    '/sources',
    route(async (req, res) => {
      const page = await sources.list(req.actor!, req.query);
      res.json(paginationEnvelope(page, listPath(req), { per_page: page.perPage }));
    }),
  );
  r.post(
    '/sources',
    route(async (req, res) => {
      res.status(201).json({ message: 'Lead source created.', data: await sources.create(req.actor!, req.body) });
    }),
  );
  refuseOthers('/sources');
  r.get(
    '/sources/:id',
    route(async (req, res) => {
      res.json({ data: await sources.show(req.actor!, req.params.id) });
    }),
  );
  for (const method of options.update)
    r[method](
      '/sources/:id',
      route(async (req, res) => {
        const data = await sources.update(req.actor!, req.params.id, req.body);
        res.json({ message: 'Lead source updated.', data });
      }),
    );
  r.delete(
    '/sources/:id',
    route(async (req, res) => {
      const { deleted } = await sources.remove(req.actor!, req.params.id);
      res.json({ message: 'Lead source deleted.', deleted });
    }),
  );
  refuseOthers('/sources/:id');
  r.get(
    '/sources/:id/intake',
    route(async (req, res) => {
      const page = await sources.intake(req.actor!, req.params.id, req.query);
      res.json(paginationEnvelope(page, listPath(req), { per_page: page.perPage, outcome: req.query.outcome }));
    }),
  );
  refuseOthers('/sources/:id/intake');
}
