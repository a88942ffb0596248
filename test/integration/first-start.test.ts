import { expect } from 'chai';
import pg from 'pg';
import { DEMO_LEADS } from '../../src/seed-demo.js';
import { exited, freshDatabase, randomPort, runCli, runMain, waitFor } from '../processes.js';
import { login } from '../session.js';

const records = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string });

/** The first start's printed logins (admin, and the demo seller and agent when the demo was created). */
function logins(text: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const m of text.matchAll(/^ {2}(Admin|Demo seller|Demo agent): +(\S+) \/ (\S+)$/gm)) found[m[2]] = m[3];
  return found;
}

async function counts(url: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const n = async (sql: string) => Number((await client.query(sql)).rows[0].n);
    return {
      accounts: await n('SELECT count(*) AS n FROM accounts'),
      users: await n('SELECT count(*) AS n FROM users'),
      admins: await n("SELECT count(*) AS n FROM users WHERE role = 'admin'"),
      products: await n('SELECT count(*) AS n FROM products'),
      cities: await n('SELECT count(*) AS n FROM cities'),
      leads: await n('SELECT count(*) AS n FROM leads'),
      statuses: await n('SELECT count(DISTINCT status) AS n FROM leads'),
      orders: await n('SELECT count(*) AS n FROM orders'),
      orderStatuses: await n('SELECT count(DISTINCT status) AS n FROM orders'),
      leadHistory: await n('SELECT count(*) AS n FROM lead_histories'),
      orderHistory: await n('SELECT count(*) AS n FROM order_histories'),
      kpiRows: await n('SELECT count(*) AS n FROM kpi_daily'),
    };
  } finally {
    await client.end();
  }
}

describe('first start', function () {
  this.timeout(180_000);

  it('When the first start gets SIGTERM in the middle of its seed, Then nothing of the seed is kept, it was never ready, and the next start seeds everything and prints the logins', async () => {
    const db = await freshDatabase('first_start');
    const port = randomPort();
    const env = { DATABASE_URL: db.url, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', NODE_ENV: 'test' };
    const first = runMain({ ...env, TEST_SEED_PAUSE_MS: '60000' });
    let second: ReturnType<typeof runMain> | null = null;
    try {
      const paused = await waitFor(async () => {
        if (first.exitCode !== null) throw new Error(first.output.text);
        return first.output.text.includes('first-start seed paused midway');
      }, 60_000);
      expect(paused, first.output.text).to.equal(true);
      // listening, not ready: the seed (admin and demo seller so far) has not committed
      expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).to.equal(503);
      const at = Date.now();
      first.kill('SIGTERM');
      expect(await exited(first), first.output.text).to.equal(0);
      expect(Date.now() - at).to.be.below(10_000);
      expect(first.output.text).not.to.include('These passwords are shown once');
      expect(
        records(first.output.text).filter((r) => r.level >= 40),
        'a requested stop writes no warning or error',
      ).to.deep.equal([]);
      expect(records(first.output.text).at(-1)?.msg).to.equal('stopped');
      expect(await counts(db.url)).to.include({ accounts: 0, users: 0, products: 0, leads: 0 });

      second = runMain(env);
      expect(
        await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200, 60_000),
        second.output.text,
      ).to.equal(true);
      // ready only once the seed has committed: its logins are printed by then
      const shown = logins(second.output.text);
      expect(Object.keys(shown)).to.deep.equal(['admin@example.com', 'seller@demo.test', 'agent@demo.test']);
      expect(await counts(db.url)).to.include({ admins: 1, users: 3, products: 6, leads: DEMO_LEADS });
      for (const [email, password] of Object.entries(shown)) await login(`http://127.0.0.1:${port}`, email, password);
      expect(second.output.text).not.to.include('password was never shown');
    } finally {
      for (const c of [first, second]) if (c && c.exitCode === null) c.kill('SIGKILL');
      if (second) await exited(second);
      await db.drop();
    }
  });

  it('When the logins of a committed seed were never shown (a start killed before printing them), Then every later start says in one line how to set a password, until one is set', async () => {
    const db = await freshDatabase('unshown');
    const env = { DATABASE_URL: db.url, HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    const start = async () => {
      const port = randomPort();
      const app = runMain({ ...env, PORT: String(port) });
      expect(
        await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200, 60_000),
        app.output.text,
      ).to.equal(true);
      app.kill('SIGTERM');
      expect(await exited(app)).to.equal(0);
      return app.output.text;
    };
    try {
      expect(await start()).to.include('These passwords are shown once');
      // what a kill between the seed's commit and its print leaves behind
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      await client.query(
        "INSERT INTO unshown_logins (user_id, password_hash) SELECT id, password_hash FROM users WHERE role = 'admin'",
      );
      await client.end();
      const hint = records(await start()).filter((r) => /never shown/.test(r.msg));
      expect(hint.map((r) => r.msg)).to.deep.equal([
        'The admin login admin@example.com was created but its password was never shown (the first start was ' +
          'interrupted): set one with "npm run -s cli -- user:password --email admin@example.com"',
      ]);
      const set = await runCli(env, ['user:password', '--email', 'admin@example.com']);
      expect(set.password).to.be.a('string');
      expect(await start()).not.to.include('never shown');
    } finally {
      await db.drop();
    }
  });

  it('When NODE_ENV=production starts on an empty database, Then only the admin is created and no demo password is printed', async () => {
    const db = await freshDatabase('production');
    const port = randomPort();
    const app = runMain({
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
      PORT: String(port),
      NODE_ENV: 'production',
      SESSION_SECRET: 'production-test-secret-0123456789abcdef',
    });
    try {
      expect(
        await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200, 60_000),
        app.output.text,
      ).to.equal(true);
      expect(Object.keys(logins(app.output.text))).to.deep.equal(['admin@example.com']);
      expect(app.output.text).not.to.match(/demo/i);
      expect(await counts(db.url)).to.include({ accounts: 1, users: 1, admins: 1, products: 0, leads: 0, cities: 0 });
    } finally {
      app.kill('SIGTERM');
      await exited(app);
      await db.drop();
    }
  });

  it('When the demo account is created (the default outside production), Then it has sample leads in several statuses, orders along the carrier way, histories and a day of KPI figures; SEED_DEMO=false leaves it out', async () => {
    const demo = await freshDatabase('demo');
    const none = await freshDatabase('no_demo');
    try {
      const seeded = await runCli({ DATABASE_URL: demo.url }, ['seed']);
      expect(seeded).to.have.keys('created', 'admin', 'demo');
      const c = await counts(demo.url);
      expect(c.leads).to.equal(DEMO_LEADS).and.to.be.within(24, 60);
      expect(c.statuses).to.be.at.least(6);
      expect(c.orders).to.equal(12);
      expect(c.orderStatuses).to.be.at.least(5);
      expect(c.leadHistory).to.be.above(c.leads);
      expect(c.orderHistory).to.be.above(c.orders);
      expect(c.kpiRows).to.be.above(0);
      const bare = await runCli({ DATABASE_URL: none.url, SEED_DEMO: 'false' }, ['seed']);
      expect(bare).to.have.keys('created', 'admin');
      expect(await counts(none.url)).to.include({ accounts: 1, users: 1, leads: 0 });
    } finally {
      await demo.drop();
      await none.drop();
    }
  });
});
