import crypto from 'node:crypto';
import http from 'node:http';
import { expect } from 'chai';
import { getCtx } from '../hooks.js';
import { makeAccount } from '../factories.js';
import { makeFormSource } from '../form-sources.js';
import { useTestServer } from '../helpers.js';

/** One request from a loopback address of its own (127.0.0.x), as many anonymous visitors would send. */
function send(url: string, method: string, from: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        localAddress: from,
        headers: { origin: 'https://shop.example', 'content-type': 'application/json', connection: 'close' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Every value of the `route` label on the metrics page. */
async function routeLabels(): Promise<Set<string>> {
  const { body } = await getCtx().metrics.render();
  return new Set([...body.matchAll(/route="([^"]*)"/g)].map((m) => m[1]));
}

/**
 * Issue 40, finding 1: the route label of the HTTP metrics and the access line's `route` came from `req.baseUrl`, which
 * keeps the path values of a router mounted with a parameter (the form intake's error handler): every unknown form key
 * and every refused request on a real key added series, and public keys reached the access log.
 */
describe('metrics labels and access lines: route patterns only', () => {
  const web = useTestServer();

  it('When visitors from several addresses preflight and post to random form keys and refused bodies to a real key, Then no key reaches a label or an access line and the series stop growing', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const source = await makeFormSource(acc.id, { origins: ['https://shop.example'] });
    const lines: Record<string, unknown>[] = [];
    const info = ctx.logger.info.bind(ctx.logger);
    ctx.logger.info = ((obj: unknown, ...rest: unknown[]) => {
      if (obj && typeof obj === 'object' && (obj as { route?: unknown }).route !== undefined)
        lines.push(obj as Record<string, unknown>);
      return (info as (...a: unknown[]) => void)(obj, ...rest);
    }) as typeof ctx.logger.info;
    const keys: string[] = [source.public_key];
    const round = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const key = `pk_${crypto.randomBytes(12).toString('hex')}`;
        keys.push(key);
        const from = `127.0.0.${2 + (i % 20)}`;
        const base = `${web.url}/api/web/1.0/intake/forms`;
        await send(`${base}/${key}`, 'OPTIONS', from);
        await send(`${base}/${key}`, 'POST', from, '{}');
        // a real key, refused: a body that is not JSON, and a method the route does not take
        await send(`${base}/${source.public_key}`, 'POST', from, '{"phone":');
        await send(`${base}/${source.public_key}`, 'DELETE', from);
      }
    };
    try {
      await round(30);
      const after30 = await routeLabels();
      await round(30);
      const after60 = await routeLabels();
      expect(
        [...after60].filter((r) => keys.some((k) => r.includes(k))),
        'labels holding a key',
      ).to.deep.equal([]);
      expect(
        [...after60].filter((r) => !after30.has(r)),
        'series added by 30 more visitors',
      ).to.deep.equal([]);
      expect(after60).to.include('/api/web/1.0/intake/forms/:public_key');
      const logged = lines.map((l) => String(l.route));
      expect(logged.length).to.be.at.least(240);
      expect(
        logged.filter((r) => keys.some((k) => r.includes(k))),
        'access lines holding a key',
      ).to.deep.equal([]);
      expect(JSON.stringify(lines)).to.not.include(source.public_key);
    } finally {
      ctx.logger.info = info;
    }
  });
});
