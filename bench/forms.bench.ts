import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';
import { randomPort, waitFor } from '../test/spawn.js';
import { LeadSource } from '../src/sources/lead-source.model.js';
import { benchAccount } from './setup.js';

/**
 * `npm run bench -- forms [seconds=10]`: one lead per request, side by side on one core count (one web process per
 * core, NODE_ENV=production): a landing-page form submission (urlencoded, public endpoint: source lookup, field rules,
 * the batch insert, the intake log row) against the REST create of one lead (POST /leads with one lead, bearer token).
 * Budgets are lifted; every request carries a new phone. Prints req/s, p50, p99 and the ratio.
 */
const CONNECTIONS = 20;
const ROUNDS = 4;

export async function run(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 10);
  const { ctx, accountId, actor, skus } = await benchAccount();
  const source = await LeadSource.create({
    account_id: accountId,
    kind: 'form',
    name: 'Bench landing',
    public_key: `pk_${crypto.randomBytes(12).toString('hex')}`,
    default_products: [{ sku: skus[0], quantity: 1 }],
  });
  const token = (await ctx.services.tokens.createToken(actor, { name: 'forms bench', scopes: ['CREATE LEADS'] })).token;
  const ports = os.cpus().map(() => randomPort());
  const children = ports.map((port) =>
    spawn(process.execPath, ['--import', 'tsx', 'app/main.ts', '--role', 'web'], {
      stdio: 'ignore',
      env: {
        ...process.env,
        NODE_ENV: 'production',
        SESSION_SECRET: crypto.randomBytes(24).toString('hex'),
        DATABASE_URL: ctx.db.url,
        DATA_DIR: ctx.config.dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
        ...Object.fromEntries(
          ['RATE_LIMIT_PER_MINUTE', 'RATE_LIMIT_ACCOUNT_PER_MINUTE', 'FORM_RATE_PER_IP', 'FORM_RATE_PER_SOURCE'].map(
            (k) => [k, '1000000000'],
          ),
        ),
      },
    }),
  );
  try {
    for (const port of ports)
      if (!(await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).ok, 60_000)))
        throw new Error('a web process did not start');
    let n = 0;
    const phone = () => `+2126${String(++n).padStart(8, '0')}`;
    const measure = async (path: string, headers: Record<string, string>, body: () => string) => {
      const url = ports.map((p) => `http://127.0.0.1:${p}/api/web/1.0${path}`) as unknown as string;
      const opts = { url, method: 'POST' as const, headers, connections: CONNECTIONS };
      const setupRequest = (req: autocannon.Request) => ({ ...req, body: body() });
      await autocannon({ ...opts, duration: 2, requests: [{ setupRequest }] });
      const r = await autocannon({ ...opts, duration: seconds, requests: [{ setupRequest }] });
      if (r.non2xx + r.errors) throw new Error(`${path}: ${r.non2xx + r.errors} failed of ${r.requests.total}`);
      return r;
    };
    const submitForm = () =>
      measure(
        `/intake/forms/${source.public_key}`,
        { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        () => new URLSearchParams({ full_name: 'Bench Visitor', phone: phone(), utm_source: 'bench' }).toString(),
      );
    const createLead = () =>
      measure(
        '/leads',
        { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
        () =>
          JSON.stringify({
            leads: [
              { full_name: 'Bench Visitor', phone: phone(), products: [{ sku: skus[0], quantity: 1, price: 100 }] },
            ],
          }),
      );
    // alternating rounds, so neither side alone meets the fresh tables (autovacuum's first analyze) or a checkpoint
    const forms: autocannon.Result[] = [];
    const rests: autocannon.Result[] = [];
    for (let round = 0; round < ROUNDS; round++)
      for (const side of round % 2 ? ['rest', 'form'] : ['form', 'rest'])
        if (side === 'form') forms.push(await submitForm());
        else rests.push(await createLead());
    const figure = (r: autocannon.Result) =>
      `${Math.round(r.requests.average)} req/s (p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms)`;
    const line = (name: string, rs: autocannon.Result[]) => `  ${name}: ${rs.map(figure).join('; ')}\n`;
    const mean = (rs: autocannon.Result[]) => rs.reduce((sum, r) => sum + r.requests.average, 0) / rs.length;
    process.stdout.write(
      `one lead per request, ${ports.length} web processes, ${CONNECTIONS} connections, ${seconds} s\n` +
        line('form submission (public endpoint)', forms) +
        line('REST POST /leads (one lead)', rests) +
        `  ratio form / REST (means of ${ROUNDS} rounds each) ${(mean(forms) / mean(rests)).toFixed(2)}\n`,
    );
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await ctx.close();
  }
}
