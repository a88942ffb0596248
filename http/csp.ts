import crypto from 'node:crypto';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * The Content-Security-Policy of every answer (docs/operations.md, "Content-Security-Policy"): scripts and styles
 * from this origin only, plus inline blocks that are either the server's own fixed ones (allowed by their SHA-256,
 * computed at start from the rendered pages, so a template change needs no hand-kept list) or those of the panel's
 * layout, which carries per-response data and gets the response's nonce (admin/panel-csp.ts). Nothing else inline
 * runs: no injected <script>, no inline event handler, no javascript: URL; style attributes only in the panel (its
 * React components set them). No plugins, no framing, no <base>, forms post to this origin only.
 */

/** The response's nonce, for the panel's layout to mark its own inline blocks. */
export function cspNonce(res: { locals: Record<string, unknown> }): string {
  return res.locals.cspNonce as string;
}

/** `'sha256-…'` of each inline <script> and <style> block of these (server-rendered, fixed) pages. */
export function inlineHashes(pages: string[]): { scripts: string[]; styles: string[] } {
  const hashesOf = (tag: 'script' | 'style') => {
    const found = new Set<string>();
    for (const html of pages)
      for (const m of html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g')))
        found.add(`'sha256-${crypto.createHash('sha256').update(m[1]).digest('base64')}'`);
    return [...found];
  };
  return { scripts: hashesOf('script'), styles: hashesOf('style') };
}

const panelPath = (req: unknown) => /^\/admin(\/|$|\?)/.test((req as { originalUrl: string }).originalUrl);

export function contentSecurityPolicy(fixedPages: string[]): RequestHandler[] {
  const { scripts, styles } = inlineHashes(fixedPages);
  const nonce: RequestHandler = (_req, res, next) => {
    res.locals.cspNonce = crypto.randomBytes(16).toString('base64');
    next();
  };
  const withNonce = (_req: unknown, res: unknown) => `'nonce-${cspNonce(res as { locals: Record<string, unknown> })}'`;
  const policy = helmet.contentSecurityPolicy({
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'", withNonce, ...scripts],
      scriptSrcAttr: ["'none'"],
      styleSrc: ["'self'", withNonce, ...styles],
      // The panel's React components set style attributes; elsewhere none is allowed. (An attribute cannot select
      // other elements, so it cannot read a page the way an injected <style> could.)
      styleSrcAttr: [(req) => (panelPath(req) ? "'unsafe-inline'" : "'none'")],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  });
  return [nonce, policy];
}
