import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Router } from 'express';
import { NotFoundError } from '../src/errors.js';

/** Where the Swagger UI bundle lies (the swagger-ui-dist package: static files, nothing built or fetched). */
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
/** The only files of the package the page loads. */
const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js'];

/**
 * Starts Swagger UI on the served document. A file of its own, not an inline block: the Content-Security-Policy
 * (http/csp.ts) runs scripts from this origin only. `validatorUrl: null`: the page asks no other host to check the
 * document; requests made with "Try it out" go to this origin.
 */
const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/web/1.0/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    defaultModelExpandDepth: 3,
    displayRequestDuration: true,
    showExtensions: false,
    tryItOutEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;

const PAGE_CSS = `body{margin:0;background:#fafafa}
.lf-bar{background:#1c2430;color:#fff;padding:.6rem 1.25rem;font:15px/1.4 system-ui,sans-serif}
.lf-bar a{color:#9cc3ff}`;

/** The page: Swagger UI's own stylesheet and bundle from this origin, the document from /api/web/1.0/openapi.json. */
export function apiDocsHtml(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>LeadFlow REST API 1.0</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<link rel="stylesheet" href="/api/docs/swagger-ui.css"><style>${PAGE_CSS}</style></head><body>
<div class="lf-bar">LeadFlow REST API 1.0 &middot; machine-readable:
<a href="/api/web/1.0/openapi.json">openapi.json</a> (OpenAPI 3.1)</div>
<div id="swagger-ui"><noscript>This page needs JavaScript; the document itself is
<a href="/api/web/1.0/openapi.json">openapi.json</a>.</noscript></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body></html>`;
}

/** GET /api/docs (the page) and, under /api/docs/, its start script and the two Swagger UI files; nothing else. */
export function apiDocsRouter(): Router {
  const r = express.Router();
  r.get('/api/docs', (_req, res) => {
    res.type('html').send(apiDocsHtml());
  });
  r.get('/api/docs/:file', (req, res, next) => {
    const file = req.params.file;
    if (file === 'init.js') {
      res.type('application/javascript').set('Cache-Control', 'public, max-age=300').send(INIT_JS);
    } else if (ASSETS.includes(file)) {
      res.sendFile(path.join(SWAGGER_UI_DIR, file), { maxAge: '1d' }, (err) => err && next(err));
    } else next(new NotFoundError());
  });
  return r;
}
