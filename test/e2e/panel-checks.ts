import type { BrowserContext, Page } from 'playwright-core';

/**
 * What a screen of the panel must never show (issue 32), checked in the page itself by `problemsOn`. Each check answers
 * sentences naming what it saw, so a failing walk reads as a list of "page: check: text".
 */
export interface ScreenFacts {
  /** English texts that the language being checked words differently (empty for English itself). */
  english: string[];
  /** Labels AdminJS would make from a name the locale lacks (`finished_at` → "Finished At"), on this page's resource. */
  fallbacks: string[];
  /** How AdminJS names an array's size before it (`properties.length`: "Length", in the language being checked). */
  lengthWords: string[];
  /** Names of the panel's resources, singular and plural ("User", "Users"): `User 2` is a reference shown raw. */
  resourceNames: string[];
  /** Texts people typed that look like a reference ("Customer 0", a buyer's name in the test data): data, not raw. */
  typedNames?: string[];
}

/**
 * tsx (esbuild's keepNames) wraps the named functions of a test file in `__name(...)`; a function Playwright runs in
 * the page is sent as its source, so the page needs the helper too.
 */
export async function allowCompiledFunctions(context: BrowserContext): Promise<void> {
  await context.addInitScript('window.__name = (fn) => fn;');
}

/** The problems of the screen on show in `page`, one sentence each. */
export function problemsOn(page: Page, facts: ScreenFacts): Promise<string[]> {
  return page.evaluate(screenProblems, facts);
}

/** Runs in the browser: every check on the visible texts and the layout of the current document. */
function screenProblems(facts: ScreenFacts): string[] {
  const problems: string[] = [];
  const clip = (s: string) => (s.length > 80 ? `${s.slice(0, 77)}…` : s);
  const visible = (el: Element) => {
    const box = (el as HTMLElement).getClientRects();
    const style = getComputedStyle(el);
    return box.length > 0 && style.visibility !== 'hidden' && style.display !== 'none';
  };
  // Visible texts, one per text node, with the placeholders and values the user reads in the form's fields.
  const texts: string[] = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = (n.textContent ?? '').replace(/\s+/g, ' ').trim();
    const parent = n.parentElement;
    if (!text || !parent || ['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(parent.tagName) || !visible(parent)) continue;
    texts.push(text);
  }
  for (const el of document.querySelectorAll('input[placeholder], textarea[placeholder], [aria-label]')) {
    if (!visible(el)) continue;
    const words = el.getAttribute('placeholder') ?? el.getAttribute('aria-label');
    if (words) texts.push(words.trim());
  }
  const body = document.body.innerText;

  const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const length = new RegExp(`(?:${facts.lengthWords.map(escape).join('|')}):\\s*\\d*`).exec(body);
  if (length) problems.push(`an array shown raw: "${length[0].trim()}"`);

  if (facts.resourceNames.length) {
    const names = facts.resourceNames.map(escape).join('|');
    const typed = new Set(facts.typedNames ?? []);
    const pattern = new RegExp(`(?:^|[^\\p{L}\\p{N}_-])((?:${names}) #?\\d+)(?![\\p{L}\\p{N}_-])`, 'gu');
    const raw = [...body.matchAll(pattern)].find((m) => !typed.has(m[1]));
    if (raw) problems.push(`a reference shown raw: "${raw[1]}"`);
  }

  const keyLike = /(?:^|[^\w.])((?:resources|properties|components|messages|labels|actions|buttons)\.[\w.-]+)/;
  for (const text of texts) {
    const key = keyLike.exec(text);
    if (key && !/^https?:/.test(text)) problems.push(`an untranslated key: "${clip(key[1])}"`);
  }
  const english = new Set(facts.english);
  const fallbacks = new Set(facts.fallbacks);
  for (const text of new Set(texts)) {
    const bare = text.replace(/[:*]+$/, '').trim();
    if (english.has(bare)) problems.push(`an untranslated text (English): "${clip(bare)}"`);
    if (fallbacks.has(bare)) problems.push(`an untranslated key (a column name start-cased): "${clip(bare)}"`);
  }

  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth + 1)
    problems.push(`a horizontal scrollbar: the page is ${root.scrollWidth} px wide in ${root.clientWidth} px`);
  // A table wider than the box it sits in (a scroll container or the card around it) is cut off or spills out of it.
  for (const table of document.querySelectorAll('table')) {
    if (!visible(table)) continue;
    const tableWidth = Math.ceil(table.getBoundingClientRect().width);
    for (let box = table.parentElement; box && box !== document.documentElement; box = box.parentElement) {
      const style = getComputedStyle(box);
      const inner = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      if (style.display === 'inline' || tableWidth <= inner + 1) continue;
      const head = [...table.querySelectorAll('thead th, thead td')]
        .map((th) => th.textContent?.trim())
        .filter(Boolean);
      problems.push(
        `a table wider than its box: ${tableWidth} px in ${Math.floor(inner)} px (columns ${head.join(', ')})`,
      );
      break;
    }
  }

  // A time of day the reader cannot place: HH:MM not followed by a zone (UTC, GMT+1, Z, +01:00, Africa/Casablanca, WET).
  // Read on the rendered text, where a zone in its own element follows the time it qualifies.
  const zone =
    /^(?::\d\d)?(?:\.\d+)?\s*\(?\s*(?:Z\b|UTC|GMT|[+\-\u2212]\d{1,2}(?::?\d\d)?\b|[A-Z][A-Za-z_]+\/[A-Za-z_/-]+|(?:WES?T|CES?T|EES?T|BST)\b)/;
  for (const m of body.matchAll(/(?<![\d:+\-\u2212.])(?:[01]?\d|2[0-3]):[0-5]\d(?!\d)/g)) {
    if (zone.test(body.slice(m.index! + m[0].length))) continue;
    const line = body.slice(body.lastIndexOf('\n', m.index!) + 1).split('\n')[0];
    problems.push(`a time without its zone: "${clip(line.trim())}"`);
  }
  return [...new Set(problems)];
}
