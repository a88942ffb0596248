import { expect } from 'chai';
import { ESLint } from 'eslint';

/** The one-way dependency rule of docs/architecture.md is an ESLint rule; these inputs show it fails when broken. */
describe('architecture: the layer rule fails lint when broken', () => {
  const eslint = new ESLint();
  const problems = async (filePath: string, code: string) =>
    (await eslint.lintText(code, { filePath }))[0].messages.map((m) => m.ruleId);

  const cases: [string, string, string][] = [
    [
      'src/leads/zz-probe.ts',
      "import { route } from '../../http/async.js';\nexport const x = route;\n",
      'no-restricted-imports',
    ],
    ['src/zz-probe.ts', "import express from 'express';\nexport const x = express;\n", 'no-restricted-imports'],
    [
      'api/routes/zz-probe.ts',
      "import { mountDashboard } from '../../admin/router.js';\nexport const x = mountDashboard;\n",
      'no-restricted-imports',
    ],
    [
      'admin/routes/zz-probe.ts',
      "import { createRestRouter } from '../../api/routes/index.js';\nexport const x = createRestRouter;\n",
      'no-restricted-imports',
    ],
    [
      'jobs/zz-probe.ts',
      "import { createApp } from '../app/web.js';\nexport const x = createApp;\n",
      'no-restricted-imports',
    ],
  ];
  for (const [file, code, rule] of cases) {
    it(`refuses ${file.split('/')[0]}/ importing ${/from '([^']+)'/.exec(code)![1]}`, async function () {
      this.timeout(30_000);
      expect(await problems(file, code)).to.include(rule);
    });
  }

  it('allows what the layers may import', async function () {
    this.timeout(30_000);
    expect(
      await problems(
        'api/routes/zz-probe.ts',
        "import { route } from '../../http/async.js';\nexport const x = route;\n",
      ),
    ).to.deep.equal([]);
  });
});
