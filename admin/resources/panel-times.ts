import type { ActionContext, PropertyOptions, ResourceWithOptions } from 'adminjs';
import type { ModelStatic, Model } from 'sequelize';
import { FALLBACK_ZONE, wallTimeToUtc } from '../../src/time-zones.js';
import type { PanelAdmin } from './panel-kit.js';

/*
 * Times in the panel (docs/decisions.md, "Time zones"): stored in UTC, shown and typed in the account's zone. Applied
 * to the whole resource list, so a date-time column added later is written with its zone too.
 */

/** The date-time properties of a resource: its model's DATE columns and the options' `datetime` properties. */
export function dateTimePaths({ resource, options }: ResourceWithOptions): string[] {
  const attrs = (resource as ModelStatic<Model>).getAttributes?.() ?? {};
  const columns = Object.entries(attrs)
    .filter(([, a]) => (a.type as { key?: string }).key === 'DATE')
    .map(([path]) => path);
  const declared = Object.entries(options.properties ?? {})
    .filter(([, p]) => p.type === 'datetime')
    .map(([path]) => path);
  return [...new Set([...columns, ...declared])];
}

/**
 * Gives every date-time property the zoned component (admin/components/zoned-time.tsx) for list, show, filter and
 * edit, unless the resource chose its own for that place.
 */
export function zonedTimes(resources: ResourceWithOptions[], component: string): ResourceWithOptions[] {
  return resources.map((r) => {
    const properties: Record<string, PropertyOptions> = { ...(r.options.properties ?? {}) };
    for (const path of dateTimePaths(r)) {
      const own = properties[path] ?? {};
      const components = { list: component, show: component, filter: component, edit: component };
      properties[path] = { ...own, type: 'datetime', components: { ...components, ...(own.components ?? {}) } };
    }
    return { ...r, options: { ...r.options, properties } };
  });
}

/** The zone a record's times are typed in: the account's own, its account's, else the viewer's account's. */
export function recordZone(context: ActionContext): string {
  const viewer = (context.currentAdmin as PanelAdmin | undefined)?.timeZone ?? FALLBACK_ZONE;
  const record = context.record;
  if (!record) return viewer;
  if (context.resource.id() === 'accounts') return String(record.param('time_zone') ?? viewer);
  const account = record.populated?.account_id;
  return String(account?.param('time_zone') ?? viewer);
}

/**
 * The form's date-time fields, typed as wall times of the record's zone (`2026-12-01T14:30`), as the UTC instants
 * the services take (`2026-12-01T13:30:00+00:00`). Anything else is left for the service to judge.
 */
export function zonedPayload(payload: Record<string, unknown>, context: ActionContext): Record<string, unknown> {
  const paths = new Set(
    context.resource
      .decorate()
      .getProperties({ where: 'edit' })
      .filter((p) => p.type() === 'datetime')
      .map((p) => p.propertyPath),
  );
  const zone = recordZone(context);
  const out = { ...payload };
  for (const path of paths) {
    const value = out[path];
    const utc = typeof value === 'string' ? wallTimeToUtc(value, zone) : null;
    if (utc && /T/.test(String(value))) out[path] = utc.toISOString().replace(/\.\d{3}Z$/, '+00:00');
  }
  return out;
}
