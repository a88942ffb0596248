import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import compression from 'compression';
import type { Request, RequestHandler, Response } from 'express';
import { patchBundle } from './panel-csp.js';
import { PANEL_CSS } from './panel-rtl.js';

const require = createRequire(import.meta.url);
const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/** Where the layout links the panel's assets (AdminJS's rootPath + its assets folder). */
export const ASSETS_PATH = '/admin/frontend/assets/';

/**
 * AdminJS's own browser bundles in their minified (production) build unless NODE_ENV=development names the
 * development one: `npm start` sets no NODE_ENV, and AdminJS's default then sent 26 MB of development bundles to
 * every agent (issue 41). The development build only adds React's warnings, for whoever works on the panel's code.
 */
const MODE = process.env.NODE_ENV === 'development' ? 'development' : 'production';
const adminjsScript = (name: string) =>
  path.join(path.dirname(require.resolve('adminjs')), `lib/frontend/assets/scripts/${name}-bundle.${MODE}.js`);

type Source = { type: string; read: () => Buffer | null; patch?: boolean };

/**
 * The panel's assets by the name the layout links: AdminJS's three bundles (two patched for the CSP, panel-csp.ts),
 * the panel's components bundle (wherever AdminJS's bundler left it: null until it exists) and the panel's
 * stylesheet.
 */
const SOURCES: Record<string, Source> = {
  'global.bundle.js': {
    type: 'application/javascript',
    read: () => fs.readFileSync(adminjsScript('global')),
    patch: true,
  },
  'design-system.bundle.js': {
    type: 'application/javascript',
    read: () =>
      fs.readFileSync(path.join(path.dirname(require.resolve('@adminjs/design-system')), `../bundle.${MODE}.js`)),
    patch: true,
  },
  'app.bundle.js': { type: 'application/javascript', read: () => fs.readFileSync(adminjsScript('app')) },
  'components.bundle.js': { type: 'application/javascript', read: componentsBundle },
  'leadflow-panel.css': { type: 'text/css', read: () => Buffer.from(PANEL_CSS) },
};

function componentsBundle(): Buffer | null {
  const file = path.join(process.env.ADMIN_JS_TMP_DIR ?? '.adminjs', 'bundle.js');
  return fs.existsSync(file) ? fs.readFileSync(file) : null;
}

interface Asset {
  body: Buffer;
  hash: string;
  type: string;
  /** Compressed once, on the first request that accepts it (in libuv's threads, not the event loop). */
  encoded: Partial<Record<'br' | 'gzip', Promise<Buffer>>>;
}

/** Read once per process; the components bundle again when its file changes (AdminJS's bundler in development). */
const assets = new Map<string, { key: string; asset: Asset }>();

function assetOf(name: string): Asset | null {
  const source = Object.hasOwn(SOURCES, name) ? SOURCES[name] : undefined;
  if (!source) return null;
  const key = name === 'components.bundle.js' ? componentsKey() : 'fixed';
  const known = assets.get(name);
  if (known && known.key === key) return known.asset;
  const raw = source.read();
  if (!raw) return null;
  const body = source.patch ? Buffer.from(patchBundle(raw.toString('utf8'))) : raw;
  const hash = crypto.createHash('sha256').update(body).digest('hex').slice(0, 16);
  const asset: Asset = { body, hash, type: source.type, encoded: {} };
  assets.set(name, { key, asset });
  return asset;
}

function componentsKey(): string {
  const file = path.join(process.env.ADMIN_JS_TMP_DIR ?? '.adminjs', 'bundle.js');
  try {
    const stat = fs.statSync(file);
    return `${stat.mtimeMs}:${stat.size}`;
  } catch {
    return 'absent';
  }
}

/** `app.bundle.js` → `app.bundle.<hash>.js`: the name changes with the content, so it can be cached for a year. */
export function hashedName(name: string): string | null {
  const asset = assetOf(name);
  if (!asset) return null;
  const dot = name.lastIndexOf('.');
  return `${name.slice(0, dot)}.${asset.hash}${name.slice(dot)}`;
}

/** The layout's links to the panel's assets, each turned into its content-hashed name (AdminJS's `?date=` too). */
export function linkHashedAssets(html: string): string {
  return html.replace(/(["'])\/admin\/frontend\/assets\/([\w.-]+)(?:\?[^"']*)?\1/g, (whole, quote: string, name) => {
    const hashed = hashedName(name as string);
    return hashed ? `${quote}${ASSETS_PATH}${hashed}${quote}` : whole;
  });
}

/** The encoding the request accepts best among those kept: brotli, then gzip, else none. */
function chosenEncoding(req: Request): 'br' | 'gzip' | null {
  // (acceptsEncodings(a, b) answers the one the browser names first: Chromium names gzip before br)
  const accepted = req.acceptsEncodings();
  return accepted.includes('br') ? 'br' : accepted.includes('gzip') ? 'gzip' : null;
}

function encode(asset: Asset, encoding: 'br' | 'gzip'): Promise<Buffer> {
  const params = {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 9,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: asset.body.length,
  };
  // a failed compression is forgotten, so the next request tries again
  return (asset.encoded[encoding] ??= (
    encoding === 'br' ? brotli(asset.body, { params }) : gzip(asset.body, { level: 9 })
  ).catch((err: unknown) => {
    delete asset.encoded[encoding];
    throw err;
  }));
}

async function send(req: Request, res: Response, asset: Asset, cacheControl: string): Promise<void> {
  const encoding = chosenEncoding(req);
  const body = encoding ? await encode(asset, encoding) : asset.body;
  res.set({
    'Content-Type': `${asset.type}; charset=utf-8`,
    'Cache-Control': cacheControl,
    ETag: `"${asset.hash}${encoding ? `-${encoding}` : ''}"`,
    Vary: 'Accept-Encoding',
  });
  if (encoding) res.set('Content-Encoding', encoding);
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.set('Content-Length', String(body.length));
  res.status(200).end(req.method === 'HEAD' ? undefined : body);
}

/**
 * GET /admin/frontend/assets/<name>: the panel's assets compressed (brotli or gzip, as the browser accepts). A
 * content-hashed name of the current content is cached for a year (`immutable`: a new build has new names); the
 * plain name, and a hash that is no longer current (a page from before a deploy), are the current content
 * revalidated each time. A name that is not a panel asset is AdminJS's (its fonts and images).
 */
export const panelAsset: RequestHandler = (req, res, next) => {
  const file = path.basename(req.path);
  const hashed = /^(.+)\.([0-9a-f]{16})(\.[a-z]+)$/.exec(file);
  const name = hashed ? `${hashed[1]}${hashed[3]}` : file;
  let asset: Asset | null;
  try {
    asset = assetOf(name);
  } catch (err) {
    return next(err);
  }
  if (!asset) return next();
  const current = hashed?.[2] === asset.hash;
  send(req, res, asset, current ? 'public, max-age=31536000, immutable' : 'no-cache').catch(next);
};

/**
 * The panel's HTML pages link its assets by their content-hashed names, and are never kept by a cache (each carries
 * the session's user and a CSP nonce of its own).
 */
export const hashedAssetLinks: RequestHandler = (_req, res, next) => {
  const sendBody = res.send.bind(res);
  res.send = ((body: unknown) => {
    if (typeof body !== 'string' || !String(res.get('Content-Type') ?? 'text/html').startsWith('text/html'))
      return sendBody(body);
    res.set('Cache-Control', 'no-store');
    return sendBody(linkHashedAssets(body));
  }) as typeof res.send;
  next();
};

/**
 * The panel's pages and JSON answers compressed (the compression package: gzip, or brotli where the browser offers
 * it); its assets are compressed once by panelAsset instead. A panel page carries AdminJS's state of every resource
 * in its HTML (683 KB for a seller's leads list, 65 KB gzipped): a repeat visit was 0.69 MB on the wire, mostly that.
 */
export const panelCompression: RequestHandler = compression({
  filter: (req, res) => !req.path.startsWith('/frontend/assets/') && compression.filter(req, res),
});
