import { useEffect } from 'react';
import { useTranslation } from 'adminjs';

/** Languages written right to left (admin/locale-text.ts `direction` says the same on the server). */
const RIGHT_TO_LEFT = new Set(['ar']);

/** The page's <html lang dir> for a language: Arabic lays the panel out right to left (admin/panel-rtl.css). */
function markPage(language: string): void {
  document.documentElement.lang = language;
  document.documentElement.dir = RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr';
}

/** Keeps the language on the user (POST /settings/language), so it follows them to another browser. */
async function save(language: string): Promise<void> {
  const headers = { accept: 'application/json' };
  const { token } = (await (await fetch('/csrf-token', { headers })).json()) as { token: string };
  await fetch('/settings/language', {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'x-csrf-token': token },
    body: JSON.stringify({ language }),
  });
}

/**
 * In the top bar, in the place of AdminJS's version line (which the panel does not show): AdminJS's language menu
 * (its LanguageSelect, shown since the locale has several languages) only switches the open page; this follows its
 * choice: the page's direction and `lang`, and the user's saved language. Renders nothing.
 */
export default function LanguageSync() {
  const { i18n } = useTranslation();
  useEffect(() => {
    markPage(i18n.language);
    const changed = (language: string) => {
      markPage(language);
      void save(language);
    };
    i18n.on('languageChanged', changed);
    return () => i18n.off('languageChanged', changed);
  }, [i18n]);
  return null;
}
