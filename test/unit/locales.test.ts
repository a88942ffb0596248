import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { LANGUAGES } from '../../src/languages.js';
import { translate } from '../../admin/locale-text.js';
import { pluralCategories } from '../../src/locale-format.js';

const LOCALES = path.resolve('admin/locales');
const COMPONENTS = path.resolve('admin/components');

type Tree = { [key: string]: string | Tree };

/** A locale file as `key.path → words`. */
function flat(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(tree))
    if (typeof v === 'string') out.set(prefix + k, v);
    else for (const [kk, vv] of flat(v, `${prefix}${k}.`)) out.set(kk, vv);
  return out;
}

const load = (language: string) =>
  flat(JSON.parse(fs.readFileSync(path.join(LOCALES, `${language}.json`), 'utf8')) as Tree);
const placeholders = (words: string) => [...words.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();
/** `messages.ordersQueued_one` → `messages.ordersQueued`: a plural form of a key (i18next's, also translate()'s). */
const pluralOf = (key: string) => /^(.+)_(zero|one|two|few|many|other)$/.exec(key)?.[1];

describe('admin/locales: one file per language, the same keys in each', () => {
  const files = fs.readdirSync(LOCALES).filter((f) => f.endsWith('.json'));
  const en = load('en');

  it('When the panel offers a language, Then admin/locales has its file, and no file is left out of the offer', () => {
    expect(files.map((f) => f.replace(/\.json$/, '')).sort()).to.deep.equal([...LANGUAGES].sort());
  });

  for (const language of LANGUAGES) {
    const words = load(language);
    it(`When ${language}.json is read, Then it has every key of en.json and no other, none empty`, () => {
      expect(
        [...en.keys()].filter((k) => !pluralOf(k) && !words.has(k)),
        `keys missing in ${language}.json`,
      ).to.deep.equal([]);
      // a plural form is a language's own (Arabic has six, English two): its key is one of en.json's
      expect(
        [...words.keys()].filter((k) => !en.has(pluralOf(k) ?? k)),
        `keys of ${language}.json not in en.json`,
      ).to.deep.equal([]);
      const empty = [...words].filter(([, v]) => !v.trim()).map(([k]) => k);
      expect(empty, `empty words in ${language}.json`).to.deep.equal([]);
    });

    it(`When ${language}.json fills a placeholder, Then it has en.json's {{placeholders}}, no more, no less`, () => {
      const differ = [...en]
        .filter(([k]) => !pluralOf(k) && words.has(k))
        .filter(([k, v]) => placeholders(v).join() !== placeholders(words.get(k)!).join())
        .map(([k]) => k);
      expect(differ, `keys whose placeholders differ from en.json in ${language}.json`).to.deep.equal([]);
    });

    it(`When ${language}.json words a count in plural forms, Then it has every form of its language, none strange`, () => {
      const forms = pluralCategories(language);
      const plural = new Set([...words.keys()].map(pluralOf).filter((k): k is string => !!k));
      const missing = [...plural].flatMap((k) => forms.filter((c) => !words.has(`${k}_${c}`)).map((c) => `${k}_${c}`));
      expect(missing, `plural forms missing in ${language}.json (it has ${forms.join(', ')})`).to.deep.equal([]);
      const strange = [...words.keys()].filter((k) => pluralOf(k) && !forms.some((c) => k.endsWith(`_${c}`)));
      expect(strange, `plural forms ${language} does not have`).to.deep.equal([]);
      // a form may leave the count out ("سجل واحد": one record) but names no placeholder the key does not have
      const extra = [...words]
        .filter(([k]) => pluralOf(k))
        .filter(([k, v]) => placeholders(v).some((p) => !placeholders(en.get(pluralOf(k)!)!).includes(p)))
        .map(([k]) => k);
      expect(extra, `plural forms with placeholders of their own in ${language}.json`).to.deep.equal([]);
    });
  }

  it('When a component looks words up by key, Then en.json has the key (components.* and messages.*)', () => {
    const used: string[] = [];
    for (const file of fs.readdirSync(COMPONENTS).filter((f) => /\.tsx?$/.test(f))) {
      const source = fs.readFileSync(path.join(COMPONENTS, file), 'utf8');
      for (const m of source.matchAll(/\btranslate(Component|Message)\(\s*'([^'$]+)'/g))
        used.push(`${m[1] === 'Component' ? 'components' : 'messages'}.${m[2]}`);
      // keys kept in a table of the component ('kpi.leads' in the KPI page's FIGURES)
      for (const m of source.matchAll(/'((?:kpi|queue|dashboard|records|common)\.\w+)'/g))
        used.push(`components.${m[1]}`);
    }
    expect(used.length).to.be.greaterThan(50);
    expect([...new Set(used.filter((k) => !en.has(k)))], 'keys the components use that en.json lacks').to.deep.equal(
      [],
    );
  });

  it('When the Arabic panel names its menu, Then no English word is left (acronyms such as API aside)', () => {
    const ar = load('ar');
    // the menu: navigation groups and resource names (labels.*), each resource's list title, the pages
    const menu = [...ar]
      .filter(([k]) => /^labels\.[^.]+$/.test(k) || /^resources\.[^.]+\.actions\.list$/.test(k) || /^pages\./.test(k))
      .map(([k, v]) => [k, v.replace(/\{\{[^}]*\}\}/g, '')] as const)
      .filter(([, v]) => /\b[A-Za-z]*[a-z][A-Za-z]*\b/.test(v));
    expect(menu.map(([k, v]) => `${k}: ${v}`)).to.deep.equal([]);
    expect(ar.get('labels.webhooks')).to.equal('خطافات الويب');
  });

  it('When the server translates, Then it fills placeholders, and falls back to English, then to the key', () => {
    expect(translate('fr', 'components.kpi.lastDays', { count: 7 })).to.equal('7 derniers jours');
    expect(translate('ar', 'site.login.title')).to.equal('تسجيل الدخول');
    expect(translate(null, 'messages.successfullyUpdated')).to.equal('Saved.');
    expect(translate('fr', 'messages.no.such.key')).to.equal('messages.no.such.key');
  });

  it('When the server translates a count, Then it takes the plural form of the language, as i18next does', () => {
    expect(translate('en', 'messages.ordersQueued', { count: 1, company: 'Amana' })).to.equal(
      '1 order queued for Amana.',
    );
    expect(translate('en', 'messages.ordersQueued', { count: 3, company: 'Amana' })).to.equal(
      '3 orders queued for Amana.',
    );
    expect(translate('fr', 'messages.deletedCount', { count: 1 })).to.equal('1 enregistrement supprimé.');
    expect(translate('fr', 'messages.deletedCount', { count: 0 })).to.equal('0 enregistrement supprimé.');
    expect(translate('fr', 'messages.deletedCount', { count: 2 })).to.equal('2 enregistrements supprimés.');
    const ar = [0, 1, 2, 3, 11, 100].map((count) => translate('ar', 'messages.deletedCount', { count }));
    expect(ar).to.deep.equal([
      'لم يُحذف أي سجل.',
      'تم حذف سجل واحد.',
      'تم حذف سجلين.',
      'تم حذف 3 سجلات.',
      'تم حذف 11 سجلًا.',
      'تم حذف 100 سجل.',
    ]);
    // a text count is no count: the plain key's words
    expect(translate('en', 'messages.deletedCount', { count: '1' })).to.equal('1 records deleted.');
  });
});
