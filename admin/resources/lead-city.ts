import type { ActionContext, ActionRequest, ActionResponse, ResourceOptions } from 'adminjs';
import type { AppContext } from '../../src/app-context.js';
import { actorOf } from './panel-kit.js';

/**
 * The lead edit form's City select shows the lead's city. A lead that came in with a free-text city (REST, import,
 * forms, the demo data) has `city` but no `city_id`, so AdminJS's select opened empty; when the text names a city of
 * the list, the form starts with that city chosen (params and populated, as AdminJS loads a reference). Saved
 * untouched, the lead gets that city (its name as the list writes it); a text the list does not know stays as it is:
 * the select (admin/components/city-choice.tsx) shows it as "Tiznit Nord (not in the list)", chosen, and the service
 * keeps the free text when no city is chosen.
 */
export function leadCityOnForm(ctx: AppContext) {
  return async (response: ActionResponse, request: ActionRequest, context: ActionContext): Promise<ActionResponse> => {
    const record = response.record as { params?: Record<string, unknown>; populated?: Record<string, unknown> };
    if (request.method !== 'get' || !record?.params || record.params.city_id || !record.params.city) return response;
    const city = await ctx.services.catalogue.cityNamed(actorOf(context), record.params.city);
    if (!city) return response;
    const cities = context._admin.findResource('cities');
    const found = await cities.findOne(String(city.id), context);
    if (!found) return response;
    record.params.city_id = city.id;
    record.populated = { ...record.populated, city_id: found.toJSON(context.currentAdmin) };
    return response;
  };
}

/** The writes' edit action with the lead's free-text city chosen on its form. */
export function withCityOnForm(
  writes: NonNullable<ResourceOptions['actions']>,
  ctx: AppContext,
): NonNullable<ResourceOptions['actions']> {
  return { ...writes, edit: { ...writes.edit, after: leadCityOnForm(ctx) as never } } as typeof writes;
}
