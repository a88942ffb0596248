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

/** react-select's own English (AdminJS's selects pass it no words): the keys of `components.common` that word them. */
const REACT_SELECT_WORDS: Record<string, string> = {
  'Select...': 'common.selectPlaceholder',
  'No options': 'common.noOptions',
  'Loading...': 'common.loadingOptions',
};

/** Puts react-select's English texts under `root` in the page's words. */
function wordSelects(root: Node, say: (key: string) => string): void {
  // a changed or added text node is the walk's root, which a TreeWalker never returns: walk from its parent
  const from = root.nodeType === Node.TEXT_NODE && root.parentNode ? root.parentNode : root;
  const walker = document.createTreeWalker(from, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const key = REACT_SELECT_WORDS[n.nodeValue ?? ''];
    if (!key) continue;
    // written only when it changes: a write is itself a mutation, and English says "No options" as react-select does
    const said = say(key);
    if (said !== n.nodeValue) n.nodeValue = said;
  }
}

/** Keeps every select's placeholder and notices in the page's language, as React draws them. */
function useSelectWords(say: (key: string) => string, language: string): void {
  useEffect(() => {
    wordSelects(document.body, say);
    const observer = new MutationObserver((changes) => {
      for (const c of changes) {
        if (c.type === 'characterData') wordSelects(c.target, say);
        else c.addedNodes.forEach((n) => wordSelects(n, say));
      }
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [language]);
}

/**
 * In the top bar, in the place of AdminJS's version line (which the panel does not show): AdminJS's language menu
 * (its LanguageSelect, shown since the locale has several languages) only switches the open page; this follows its
 * choice: the page's direction and `lang`, and the user's saved language; and words react-select's "Select..." (its
 * placeholder and notices, which AdminJS leaves in English) in the page's language. Renders nothing.
 */
export default function LanguageSync() {
  const { i18n, translateComponent } = useTranslation();
  useSelectWords(translateComponent, i18n.language);
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
