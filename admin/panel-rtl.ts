import type { RequestHandler } from 'express';
import { direction, isLanguage } from './locale-text.js';

/** The panel's own stylesheet (PANEL_CSS), served beside AdminJS's assets and linked from its layout. */
export const PANEL_STYLESHEET = '/admin/frontend/assets/leadflow-panel.css';

/**
 * The panel right to left (Arabic: <html dir="rtl">). AdminJS 7 has no right-to-left support of its own; the page's
 * direction already mirrors its flex rows (the sidebar comes to the right, text starts on the right), and these rules
 * turn around what its styled components fix to one side.
 */
export const PANEL_CSS = `
html[dir='rtl'] body {
  font-family: Tahoma, 'Segoe UI', 'Noto Sans Arabic', Roboto, sans-serif;
}
/* the sidebar's border faces the content */
html[dir='rtl'] [data-css='sidebar'] {
  border-right: none;
  border-left: 1px solid #eeeeef;
}
/* the folded sidebar slides out to the right (AdminJS moves it to left: -width, which in a right-to-left page is
   scrollable overflow: a 1580 px page at 1280 px) */
html[dir='rtl'] [data-css='sidebar'].hidden,
html[dir='rtl'] [data-css='sidebar'].visible {
  left: auto;
  transition: right 0.25s ease-in-out;
}
html[dir='rtl'] [data-css='sidebar'].hidden {
  right: -300px;
}
html[dir='rtl'] [data-css='sidebar'].visible {
  right: 0;
}
/* tables and forms start on the right */
html[dir='rtl'] th,
html[dir='rtl'] td {
  text-align: right;
}
/* arrows and chevrons point the way of reading */
html[dir='rtl'] [data-css='sidebar'] svg.feather-chevron-right,
html[dir='rtl'] [data-css='breadcrumbs'] svg,
html[dir='rtl'] svg.feather-arrow-left,
html[dir='rtl'] svg.feather-arrow-right {
  transform: scaleX(-1);
}
/* an icon beside its label keeps its space towards the label (AdminJS gives icons a right margin or padding, which in
   a right-to-left page faces the edge): buttons lay icon and label out in a row with a gap (an icon alone has none),
   the sidebar's and the action menus' icons take their space on the left */
html[dir='rtl'] .adminjs_Button:has(> .adminjs_Icon) {
  display: inline-flex;
  align-items: center;
  justify-content: center;
  gap: 8px;
}
html[dir='rtl'] .adminjs_Button .adminjs_Icon {
  margin: 0;
}
html[dir='rtl'] .icon-box {
  padding-right: 0;
  padding-left: 16px;
}
html[dir='rtl'] .adminjs_DropDownItem,
html[dir='rtl'] .adminjs_DropDownItemAction {
  text-align: right;
}
html[dir='rtl'] .adminjs_DropDownItem .adminjs_Icon,
html[dir='rtl'] .adminjs_DropDownItemAction .adminjs_Icon {
  padding-right: 0;
  padding-left: 8px;
}
/* identifiers, numbers and addresses stay left to right inside Arabic text */
html[dir='rtl'] input[type='email'],
html[dir='rtl'] input[type='tel'],
html[dir='rtl'] input[name='phone'],
html[dir='rtl'] input[name='email'],
html[dir='rtl'] input[name='url'],
html[dir='rtl'] input[name='sku'] {
  direction: ltr;
  text-align: right;
}
/* the Customers list has eleven columns (twelve for an admin), the Intake log nine for an admin: narrower cells, so
   they fit 1280 px with the menu open */
[data-css='customers-table'] td,
[data-css='customers-table'] th,
[data-css='lead_intake-table'] td,
[data-css='lead_intake-table'] th {
  padding-inline: 6px;
}
`;

/** AdminJS's layout opens with `<html lang=xx>` (adminjs/lib/frontend/layout-template.js). */
const HTML_TAG = /^(\s*<!DOCTYPE html>\s*)<html lang=([\w-]+)>/i;

/** The layout's <html> with the language's direction: `<html lang="ar" dir="rtl">` for Arabic. */
export function withDirection(html: string): string {
  return html.replace(HTML_TAG, (whole, doctype: string, lang: string) =>
    isLanguage(lang) ? `${doctype}<html lang="${lang}" dir="${direction(lang)}">` : whole,
  );
}

/** Marks the panel's HTML pages with their direction (the browser side keeps it when the user switches). */
export const panelDirection: RequestHandler = (_req, res, next) => {
  const send = res.send.bind(res);
  res.send = ((body: unknown) => send(typeof body === 'string' ? withDirection(body) : body)) as typeof res.send;
  next();
};
