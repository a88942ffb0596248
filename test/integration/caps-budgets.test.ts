import { expect } from 'chai';
import { statusFor } from '../../http/errors.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeUser } from '../factories.js';
import { startTestServer } from '../helpers.js';
import { redisOrSkip, twoWebProcesses } from '../redis.js';
import { restClient } from '../rest-client.js';
import { login } from '../session.js';

describe('Caps and budgets', () => {
  describe('API tokens per user', () => {
    it('When a user holds the most API keys allowed, then the next is refused with 422 on every entry point', async function () {
      this.timeout(60_000);
      const ctx = getCtx();
      const cap = ctx.config.apiTokensPerUser;
      expect(cap, 'the documented default').to.equal(20);
      const acc = await makeAccount(ctx);
      const web = await startTestServer();
      try {
        const c = await login(web.url, acc.seller.email, acc.seller.password);
        for (let i = 1; i <= cap; i++) {
          const res = await c.json('POST', '/settings/api-keys/generate', { name: `key ${i}`, scopes: ['VIEW LEADS'] });
          expect(res.status, `key ${i}`).to.equal(201);
        }
        const refused = await c.json('POST', '/settings/api-keys/generate', {
          name: 'one more',
          scopes: ['VIEW LEADS'],
        });
        expect(refused.status).to.equal(422);
        expect(refused.body.message).to.match(/already has 20 API keys/);
        const panel = await c.fetch('/admin/api/resources/api_tokens/actions/new', {
          method: 'POST',
          json: { name: 'from the panel', scopes: ['VIEW LEADS'] },
          headers: { origin: web.url },
        });
        expect(JSON.stringify(await panel.json())).to.match(/already has 20 API keys/);
        expect(await ctx.models.ApiToken.count({ where: { user_id: acc.seller.id } })).to.equal(cap);

        // an expired key does not count: revoking one frees a place too
        const [first] = await ctx.models.ApiToken.findAll({ where: { user_id: acc.seller.id }, limit: 1 });
        await ctx.models.ApiToken.update({ expires_at: new Date(Date.now() - 1000) }, { where: { id: first.id } });
        const again = await c.json('POST', '/settings/api-keys/generate', {
          name: 'after expiry',
          scopes: ['VIEW LEADS'],
        });
        expect(again.status).to.equal(201);
      } finally {
        await web.close();
      }
    });

    it('When many keys are generated at once for one user, then no more than the cap are created', async function () {
      this.timeout(60_000);
      const ctx = getCtx();
      const acc = await makeAccount(ctx);
      const owner = await makeUser(ctx, acc.id, 'seller');
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) =>
          ctx.services.tokens.createToken(acc.seller.actor, {
            name: `race ${i}`,
            scopes: ['VIEW LEADS'],
            user_id: owner.id,
          }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(ctx.config.apiTokensPerUser);
      for (const r of results) if (r.status === 'rejected') expect(statusFor(r.reason), String(r.reason)).to.equal(422);
      expect(await ctx.models.ApiToken.count({ where: { user_id: owner.id } })).to.equal(ctx.config.apiTokensPerUser);
    });
  });

  describe('REST budget per account', () => {
    it('When 10 tokens of one account are used at once, then together they get no more than the account budget', async function () {
      this.timeout(60_000);
      const ctx = getCtx();
      const config = { ...ctx.config, rateLimitPerMinute: 5, rateLimitAccountPerMinute: 12 };
      const web = await startTestServer({ ...ctx, config });
      try {
        const acc = await makeAccount(ctx);
        const calls = await Promise.all(Array.from({ length: 10 }, async () => restClient(web.url, await acc.token())));
        const statuses: number[] = [];
        let accountRefusal: Awaited<ReturnType<(typeof calls)[0]>> | null = null;
        for (const call of calls)
          for (let i = 0; i < 5; i++) {
            const res = await call('GET', '/leads?per_page=1');
            statuses.push(res.status);
            if (res.status === 429 && !accountRefusal) accountRefusal = res;
          }
        expect(statuses.filter((s) => s === 200)).to.have.length(12);
        expect(statuses.filter((s) => s === 429)).to.have.length(50 - 12);
        expect(accountRefusal!.body).to.deep.equal({ message: 'Too Many Attempts.' });
        expect(Number(accountRefusal!.headers.get('retry-after'))).to.be.within(1, 60);
        // the headers stay the token's: its own budget of 5, of which this was its first request
        expect(accountRefusal!.headers.get('x-ratelimit-limit')).to.equal('5');

        const other = await makeAccount(ctx);
        expect((await restClient(web.url, await other.token())('GET', '/leads')).status, 'another account').to.equal(
          200,
        );
      } finally {
        await web.close();
      }
    });
  });

  it('When two web processes share Redis, then the account budget is one across them', async function () {
    this.timeout(30_000);
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const redisUrl = await redisOrSkip(this, `rl:rest-account:account:${acc.id}`);
    const web = await twoWebProcesses({ ...ctx, config: { ...ctx.config, redisUrl, rateLimitAccountPerMinute: 3 } });
    try {
      const callA = restClient(web.urls[0], await acc.token());
      const callB = restClient(web.urls[1], await acc.token());
      const statuses = [];
      for (const call of [callA, callB, callA, callB]) statuses.push((await call('GET', '/leads')).status);
      expect(statuses).to.deep.equal([200, 200, 200, 429]);
    } finally {
      await web.close();
    }
  });

  describe('session routes', () => {
    it('When a signed-in user exceeds the session budget, then 429 JSON with Retry-After, and other users are served', async function () {
      this.timeout(60_000);
      const ctx = getCtx();
      expect(ctx.config.sessionRatePerMinute, 'the documented default').to.equal(600);
      const acc = await makeAccount(ctx);
      const web = await startTestServer({ ...ctx, config: { ...ctx.config, sessionRatePerMinute: 6 } });
      try {
        const seller = await login(web.url, acc.seller.email, acc.seller.password);
        const agent = await login(web.url, acc.agent.email, acc.agent.password);
        const statuses: number[] = [];
        for (let i = 0; i < 3; i++) statuses.push((await seller.fetch('/leads')).status);
        for (let i = 0; i < 3; i++)
          statuses.push((await seller.fetch('/admin/api/resources/leads/actions/list')).status);
        expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 200]);
        const limited = await seller.json('GET', '/leads');
        expect(limited.status).to.equal(429);
        expect(limited.body).to.deep.equal({ message: 'Too Many Attempts.' });
        const panel = await seller.fetch('/admin/api/resources/leads/actions/list');
        expect(panel.status).to.equal(429);
        expect(Number(panel.headers.get('retry-after'))).to.be.within(1, 60);
        expect((await agent.fetch('/leads')).status, 'another user').to.equal(200);
      } finally {
        await web.close();
      }
    });
  });
});
