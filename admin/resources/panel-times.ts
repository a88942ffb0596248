import type { Action, ActionContext, ActionResponse, PropertyOptions, RecordJSON, ResourceWithOptions } from 'adminjs';
import type { ModelStatic, Model } from 'sequelize';
import { datePartsInZone, FALLBACK_ZONE, formatInZone, wallTime, wallTimeToUtc } from '../../src/time-zones.js';
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

/** The viewer's zone and language (currentAdmin; the language once users carry one, else English). */
export function viewerOf(context: { currentAdmin?: unknown }): { zone: string; language: string } {
  const admin = (context.currentAdmin ?? {}) as Partial<PanelAdmin> & { language?: string };
  return { zone: admin.timeZone ?? FALLBACK_ZONE, language: admin.language ?? 'en' };
}

/** The zone of a record as AdminJS answers it: an account's own, its account's (populated), else the viewer's. */
export function zoneOfJson(record: RecordJSON, resourceId: string, viewerZone: string): string {
  if (resourceId === 'accounts' && record.params?.time_zone) return String(record.params.time_zone);
  return String(record.populated?.account_id?.params?.time_zone ?? viewerZone);
}

/**
 * Writes the texts of a record's times on the server (the browsers' own zone data differ: Chromium here reads
 * Africa/Casablanca as UTC+0), for admin/components/zoned-time.tsx: `zoned_times` = {path: {text, wall, date, time}}
 * (`date` and `time` apart for a list cell's two lines).
 */
function annotate(record: RecordJSON | undefined, paths: string[], resourceId: string, context: ActionContext) {
  if (!record?.params) return;
  const viewer = viewerOf(context);
  const zone = zoneOfJson(record, resourceId, viewer.zone);
  const times: Record<string, { text: string; wall: string; date?: string; time?: string }> = {};
  for (const path of paths) {
    const value = record.params[path];
    if (value === undefined) continue;
    const when = value ? new Date(String(value)) : null;
    const ok = when && !Number.isNaN(when.getTime());
    const text = formatInZone(ok ? when : null, zone, viewer.language);
    times[path] = {
      text,
      wall: ok ? wallTime(when, zone) : '',
      ...datePartsInZone(ok ? when : null, zone, viewer.language),
    };
  }
  // a refused form's answer has no values: the form keeps the texts it was shown
  if (Object.keys(times).length) record.params.zoned_times = JSON.stringify({ zone, times });
}

/** The list, show and edit answers carry their times written in the zone (annotate); a resource's own hook first. */
function withTimeTexts(action: Partial<Action<ActionResponse>> | undefined, paths: string[], resourceId: string) {
  const own = action?.after as
    ((r: ActionResponse, q: unknown, c: ActionContext) => Promise<ActionResponse>) | undefined;
  const after = async (response: ActionResponse, request: unknown, context: ActionContext) => {
    const answer = own ? await own(response, request, context) : response;
    annotate(answer.record, paths, resourceId, context);
    for (const record of answer.records ?? []) annotate(record, paths, resourceId, context);
    return answer;
  };
  return { ...(action ?? {}), after } as Partial<Action<ActionResponse>>;
}

/**
 * Gives every date-time property the zoned component (admin/components/zoned-time.tsx) for list, show, filter and
 * edit, unless the resource chose its own for that place, and the answers that show records their times' texts.
 */
export function zonedTimes(resources: ResourceWithOptions[], component: string): ResourceWithOptions[] {
  return resources.map((r) => {
    const properties: Record<string, PropertyOptions> = { ...(r.options.properties ?? {}) };
    const paths = dateTimePaths(r);
    for (const path of paths) {
      const own = properties[path] ?? {};
      const components = { list: component, show: component, filter: component, edit: component };
      properties[path] = { ...own, type: 'datetime', components: { ...components, ...(own.components ?? {}) } };
    }
    properties.zoned_times = { type: 'string', isVisible: false };
    const resourceId = (r.options.id as string | undefined) ?? (r.resource as { tableName?: string }).tableName ?? '';
    const actions = { ...(r.options.actions ?? {}) } as Record<string, Partial<Action<ActionResponse>>>;
    // edit only where the resource opened it (an action named here would otherwise exist, unclosed by lockDown)
    for (const name of ['list', 'show', 'edit'].filter((n) => n !== 'edit' || actions.edit))
      actions[name] = withTimeTexts(actions[name], paths, resourceId);
    return { ...r, options: { ...r.options, properties, actions } };
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
  const { zoned_times: _shown, ...out } = payload; // the texts the form was shown, not a field
  for (const path of paths) {
    const value = out[path];
    const utc = typeof value === 'string' ? wallTimeToUtc(value, zone) : null;
    if (utc && /T/.test(String(value))) out[path] = utc.toISOString().replace(/\.\d{3}Z$/, '+00:00');
  }
  return out;
}
