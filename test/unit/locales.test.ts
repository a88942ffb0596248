import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { LANGUAGES } from '../../src/accounts/languages.js';
import { translate } from '../../admin/locale-text.js';

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
        [...en.keys()].filter((k) => !words.has(k)),
        `keys missing in ${language}.json`,
      ).to.deep.equal([]);
      expect(
        [...words.keys()].filter((k) => !en.has(k)),
        `keys of ${language}.json not in en.json`,
      ).to.deep.equal([]);
      const empty = [...words].filter(([, v]) => !v.trim()).map(([k]) => k);
      expect(empty, `empty words in ${language}.json`).to.deep.equal([]);
    });

    it(`When ${language}.json fills a placeholder, Then it has en.json's {{placeholders}}, no more, no less`, () => {
      const differ = [...en]
        .filter(([k, v]) => words.has(k) && placeholders(v).join() !== placeholders(words.get(k)!).join())
        .map(([k]) => k);
      expect(differ, `keys whose placeholders differ from en.json in ${language}.json`).to.deep.equal([]);
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

  it('When the server translates, Then it fills placeholders, and falls back to English, then to the key', () => {
    expect(translate('fr', 'components.kpi.lastDays', { count: 7 })).to.equal('7 derniers jours');
    expect(translate('ar', 'site.login.title')).to.equal('تسجيل الدخول');
    expect(translate(null, 'messages.successfullyUpdated')).to.equal('Saved.');
    expect(translate('fr', 'messages.no.such.key')).to.equal('messages.no.such.key');
  });
});
