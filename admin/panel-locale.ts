import en from './locales/en.json' with { type: 'json' };

/**
 * The panel's words live in one file per language under admin/locales/ (AdminJS's translation shape: labels,
 * actions, buttons, properties, messages, resources, components), so a translator edits JSON, not code.
 * AdminJS looks a text up under `resources.<id>.<kind>.<name>` first, then `<kind>.<name>`, and otherwise writes the
 * name in start case; en.json names every resource, page, property and action the panel shows, so none is guessed.
 */
export const TRANSLATIONS = { en } as const;

export const LOCALE = {
  language: 'en',
  translations: TRANSLATIONS,
};
