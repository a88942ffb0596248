import React from 'react';
import { FormGroup, FormMessage, Label, SelectAsync } from '@adminjs/design-system';
import { ApiClient, useTranslation, type EditPropertyProps } from 'adminjs';

const api = new ApiClient();

interface Choice {
  value: string;
  label: string;
  record?: unknown;
}

/**
 * A lead's City on its edit form: AdminJS's searchable select of the city list (the `cities` resource), which also
 * shows a city the lead came in with that the list does not know (`city` without `city_id`, after
 * admin/resources/lead-city.ts chose the city a text names): an extra option "Tiznit Nord (not in the list)", chosen.
 * Kept chosen (or the select cleared), the form sends no city and the service keeps the typed name; a city of the list
 * links the lead to it.
 */
export default function CityChoice({ property, record, onChange }: EditPropertyProps) {
  const { translateComponent, translateProperty, translateMessage } = useTranslation();
  const path = property.path;
  const params = record?.params ?? {};
  const chosenId = params[path] ? String(params[path]) : '';
  const typed = typeof params.city === 'string' ? params.city.trim() : '';
  const typedChoice: Choice | null = typed
    ? { value: '', label: `${typed} ${translateComponent('cityChoice.notInList')}` }
    : null;
  const populated = record?.populated?.[path] as { id?: unknown; title?: string } | undefined;
  const chosenTitle = populated && String(populated.id) === chosenId ? populated.title : typed;
  const value: Choice | null = chosenId ? { value: chosenId, label: chosenTitle ?? chosenId } : typedChoice;

  const loadOptions = async (input: string): Promise<Choice[]> => {
    const found = await api.searchRecords({ resourceId: property.reference ?? 'cities', query: input });
    const listed = found.map((r) => ({ value: String(r.id), label: r.title, record: r }));
    const matches = typedChoice && (!input || typed.toLowerCase().includes(input.trim().toLowerCase()));
    return matches ? [typedChoice, ...listed] : listed;
  };
  const choose = (c: Choice | null) =>
    c?.value ? onChange(path, c.value, c.record as never) : onChange(path, null as never);
  const error = record?.errors?.[path];

  return (
    <FormGroup error={Boolean(error)}>
      <Label htmlFor={path}>{translateProperty(property.label, property.resourceId)}</Label>
      <SelectAsync
        inputId={path}
        cacheOptions
        defaultOptions
        value={value}
        loadOptions={loadOptions}
        onChange={choose}
        isClearable
        isDisabled={property.isDisabled}
      />
      <FormMessage>{error?.message ? translateMessage(error.message, property.resourceId) : null}</FormMessage>
    </FormGroup>
  );
}
