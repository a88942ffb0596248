import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';
import { startTestServer } from '../helpers.js';
import { redisOrSkip, twoWebProcesses } from '../redis.js';
import { restClient } from '../rest-client.js';

describe('REST rate limit', () => {
  it('answers the 61st request of a minute with 429, Retry-After and the spec body', async function () {
    this.timeout(30_000);
    const web = await startTestServer();
    try {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token());
      for (let i = 1; i <= 60; i++) {
        const res = await call('GET', '/leads?per_page=1');
        expect(res.status).to.equal(200);
        expect(res.headers.get('x-ratelimit-limit')).to.equal('60');
        expect(res.headers.get('x-ratelimit-remaining')).to.equal(String(60 - i));
      }
      const limited = await call('GET', '/leads');
      expect(limited.status).to.equal(429);
      expect(limited.body).to.deep.equal({ message: 'Too Many Attempts.' });
      const retry = Number(limited.headers.get('retry-after'));
      expect(retry).to.be.within(1, 60);
      const otherToken = restClient(web.url, await acc.token());
      expect((await otherToken('GET', '/leads')).status).to.equal(200);
    } finally {
      await web.close();
    }
  });

  it('counts requests without a valid token per client IP', async function () {
    this.timeout(30_000);
    const ctx = getCtx();
    const web = await startTestServer({ ...ctx, config: { ...ctx.config, rateLimitPerMinute: 3 } });
    try {
      const call = restClient(web.url);
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await call('GET', '/leads')).status);
      expect(statuses).to.deep.equal([401, 401, 401, 429]);
    } finally {
      await web.close();
    }
  });

  it('shares one budget between web processes through Redis', async function () {
    this.timeout(30_000);
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const token = await acc.token();
    const tokenId = token.split('|')[0];
    const redisUrl = await redisOrSkip(this, `rl:rest:token:${tokenId}`);
    const web = await twoWebProcesses({ ...ctx, config: { ...ctx.config, redisUrl, rateLimitPerMinute: 4 } });
    try {
      const callA = restClient(web.urls[0], token);
      const callB = restClient(web.urls[1], token);
      const statuses = [
        (await callA('GET', '/leads')).status,
        (await callB('GET', '/leads')).status,
        (await callA('GET', '/leads')).status,
        (await callB('GET', '/leads')).status,
      ];
      expect(statuses).to.deep.equal([200, 200, 200, 200]);
      const fifth = await callA('GET', '/leads');
      expect(fifth.status).to.equal(429);
      expect((await callB('GET', '/leads')).headers.get('x-ratelimit-remaining')).to.equal('0');
    } finally {
      await web.close();
    }
  });
});
