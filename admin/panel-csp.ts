import type { RequestHandler } from 'express';
import { cspNonce } from '../http/csp.js';

/** The end of the inline script that opens AdminJS 7's layout (adminjs/lib/frontend/layout-template.js). */
const STATE_END = 'window.AdminJS = { Components: {} };';

/**
 * AdminJS's layout page with the response's CSP nonce on its own inline blocks, and only on those: the state script
 * at the top of <head> (the session's user, the resources), the reset <style> and the script at the top of <body>
 * that mounts the application. The state script is the one place with data in it; every `<` inside it is written
 * `\u003c` (the same character to JavaScript), so no value can close it and open a tag of its own, and everything
 * after it is AdminJS's fixed template. It also hands the nonce to styled-components (`__webpack_nonce__`), which
 * then marks the <style> elements it creates. A page of another shape is sent unmarked: the policy then blocks its
 * inline code rather than trusting it.
 */
export function markPanelLayout(html: string, nonce: string): string {
  const head = html.indexOf('<head>');
  const open = head < 0 ? -1 : html.indexOf('<script>', head);
  const end = html.lastIndexOf(STATE_END);
  if (open < 0 || end < open) return html;
  const close = html.indexOf('</script>', end);
  const headEnd = html.indexOf('</head>', end);
  const style = html.indexOf('<style>', end);
  const mount = html.indexOf('<script>', headEnd);
  if (close < 0 || headEnd < 0 || style < 0 || style > headEnd || mount < 0) return html;
  const state = html.slice(open + '<script>'.length, close).replace(/</g, '\\u003c');
  const attr = ` nonce="${nonce}"`;
  return (
    html.slice(0, open) +
    `<script${attr}>window.__webpack_nonce__ = ${JSON.stringify(nonce)};${state}` +
    html.slice(close, style) +
    `<style${attr}>` +
    html.slice(style + '<style>'.length, mount) +
    `<script${attr}>` +
    html.slice(mount + '<script>'.length)
  );
}

/** Marks the panel's HTML pages (see markPanelLayout); JSON and assets pass untouched. */
export const panelCsp: RequestHandler = (_req, res, next) => {
  const send = res.send.bind(res);
  res.send = ((body: unknown) => {
    const html = String(res.get('Content-Type') ?? 'text/html').startsWith('text/html');
    return send(html && typeof body === 'string' ? markPanelLayout(body, cspNonce(res)) : body);
  }) as typeof res.send;
  next();
};

/**
 * Two fixes to AdminJS's browser bundles, made as they are served (admin/panel-assets.ts; the rest is AdminJS's file
 * as it is, and a version without the pattern is served unchanged, which the browser test would then report):
 * - the design-system bundle finds the global object with `new Function("return this")()` (a webpack shim in a
 *   try/catch): without 'unsafe-eval' the browser refuses it and reports a violation on every page; `globalThis` is
 *   the same object in every browser the panel supports;
 * - emotion (react-select's styles, in both bundles) creates its <style> elements with the nonce of its options,
 *   which AdminJS never sets: it takes the page's (`__webpack_nonce__`, set by markPanelLayout) when none is given.
 */
const EMOTION_NONCE = /this\.nonce ?= ?(\w+)\.nonce([,;])/g;

export function patchBundle(source: string): string {
  return source
    .split('new Function("return this")()')
    .join('globalThis')
    .replace(EMOTION_NONCE, 'this.nonce = $1.nonce !== undefined ? $1.nonce : globalThis.__webpack_nonce__$2');
}
