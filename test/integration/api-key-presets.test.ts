import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { login } from '../session.js';
import { SCOPE_PRESETS } from '../../src/tokens/scope-presets.js';

/** The dashboard's API key route takes one of the panel's presets instead of scopes (docs/dashboard.md). */
describe('dashboard API keys: a preset instead of scopes', () => {
  const web = useTestServer();

  it('When a seller generates a key with a preset, Then it gets exactly the panel’s scopes of that preset', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    for (const [preset, key] of [
      ['read_only', 'readOnly'],
      ['integrator', 'integrator'],
      ['everything', 'everything'],
    ] as const) {
      const gen = await c.json('POST', '/settings/api-keys/generate', { name: `key ${preset}`, preset });
      expect(gen.status, preset).to.equal(201);
      const row = await getCtx().models.ApiToken.findByPk(gen.body.data.id);
      expect([...(row!.get('scopes') as string[])].sort(), preset).to.deep.equal([...SCOPE_PRESETS[key]].sort());
    }
  });

  it('When both a preset and scopes are given, or an unknown preset, Then 422 says why and no key is made', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const both = await c.json('POST', '/settings/api-keys/generate', {
      name: 'x',
      preset: 'read_only',
      scopes: ['VIEW LEADS'],
    });
    expect(both.status).to.equal(422);
    expect(both.body.errors.preset[0]).to.equal(
      'Give either a preset or scopes, not both: the preset chooses the scopes.',
    );
    const unknown = await c.json('POST', '/settings/api-keys/generate', { name: 'x', preset: 'admin' });
    expect(unknown.status).to.equal(422);
    expect(unknown.body.errors.preset[0]).to.equal(
      "The preset 'admin' is not one of: read_only, integrator, everything.",
    );
    // the panel's own spelling is not the route's, and a list is no preset
    for (const preset of ['readOnly', ['integrator']]) {
      const res = await c.json('POST', '/settings/api-keys/generate', { name: 'x', preset });
      expect(res.status, JSON.stringify(preset)).to.equal(422);
      expect(res.body.errors).to.have.property('preset');
    }
    expect(await getCtx().models.ApiToken.count({ where: { account_id: acc.id } })).to.equal(0);
  });

  it('When scopes are given as before, Then they are kept as given', async () => {
    const acc = await makeAccount(getCtx());
    const c = await login(web.url, acc.seller.email, acc.seller.password);
    const gen = await c.json('POST', '/settings/api-keys/generate', {
      name: 'csv',
      scopes: 'VIEW LEADS, CREATE LEADS',
    });
    expect(gen.status).to.equal(201);
    const row = await getCtx().models.ApiToken.findByPk(gen.body.data.id);
    expect([...(row!.get('scopes') as string[])].sort()).to.deep.equal(['CREATE LEADS', 'VIEW LEADS']);
  });
});
