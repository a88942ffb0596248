import { expect } from 'chai';
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { cleanupIdempotencyKeysJob } from '../../jobs/idempotency.job.js';
import type { JobDefinition } from '../../jobs/job.js';
import { getCtx } from '../hooks.js';
import { makeAccount, type TestAccount } from '../factories.js';
import { useTestServer } from '../helpers.js';
import { restClient } from '../rest-client.js';
import { ageKeys, countOf, item, keysOf, rawPost } from '../idempotency-fixtures.js';

/** Idempotency-Key: refused keys, POST /orders, failures that keep no key, and the cleanup job (docs/api.md). */
describe('Idempotency-Key: keys, orders, failures and cleanup', () => {
  const web = useTestServer();
  const newKey = () => crypto.randomUUID();

  async function client(acc?: TestAccount) {
    const a = acc ?? (await makeAccount(getCtx()));
    const token = await a.token();
    const call = restClient(web.url, token);
    const post = (path: string, body: unknown, key?: string) =>
      call('POST', path, body, key === undefined ? {} : { 'Idempotency-Key': key });
    return { acc: a, token, post };
  }

  describe('refused keys', () => {
    const refusals: [string, string, string][] = [
      ['an empty key', '', 'The Idempotency-Key must not be empty.'],
      ['a key of spaces', '   ', 'The Idempotency-Key must not be empty.'],
      ['a key of 300 characters', 'k'.repeat(300), 'The Idempotency-Key must not be longer than 255 characters.'],
      ['a non-ASCII key', 'clé-1', 'The Idempotency-Key may only contain printable ASCII characters.'],
    ];
    for (const [what, key, message] of refusals) {
      it(`When ${what} is sent, Then 422 under Idempotency-Key and nothing is written`, async () => {
        const { acc, post } = await client();

        const res = await post('/leads', { leads: [item(acc)] }, key);

        expect(res.status).to.equal(422);
        expect(res.body).to.deep.equal({ message, errors: { 'Idempotency-Key': [message] } });
        expect(await countOf('leads', acc.id)).to.equal(0);
        expect(await keysOf(acc.id)).to.deep.equal([]);
      });
    }

    it('When a token without CREATE LEADS sends an unfit key, Then 403 as without a key: the scope is checked first', async () => {
      const acc = await makeAccount(getCtx());
      const call = restClient(web.url, await acc.token(['VIEW LEADS']));

      const res = await call('POST', '/leads', { leads: [item(acc)] }, { 'Idempotency-Key': 'k'.repeat(300) });

      expect(res.status).to.equal(403);
      expect(await countOf('leads', acc.id)).to.equal(0);
    });

    it('When a key holds a NUL byte, Then the request is refused with a 400, never a 500, and nothing is written', async () => {
      const { acc, token } = await client();
      const body = JSON.stringify({ leads: [item(acc)] });

      const res = await rawPost(web.url, '/leads', [`Authorization: Bearer ${token}`, 'Idempotency-Key: a\0b'], body);

      expect(res.status).to.equal(400);
      expect(await countOf('leads', acc.id)).to.equal(0);
    });

    it('When the header is sent twice, Then 422 "send one" and nothing is written', async () => {
      const { acc, token } = await client();
      const body = JSON.stringify({ leads: [item(acc)] });
      const lines = [`Authorization: Bearer ${token}`, 'Idempotency-Key: one', 'Idempotency-Key: two'];

      const res = await rawPost(web.url, '/leads', lines, body);

      expect(res.status).to.equal(422);
      expect(JSON.parse(res.body).errors).to.deep.equal({
        'Idempotency-Key': ['Send one Idempotency-Key header, not several.'],
      });
      expect(await countOf('leads', acc.id)).to.equal(0);
    });

    it('When a key of 255 characters is sent quoted and then bare, Then both are one key: one lead', async () => {
      const { acc, post } = await client();
      const key = `${'x'.repeat(250)}-${crypto.randomBytes(2).toString('hex')}`;
      const body = { leads: [item(acc)] };

      const quoted = await post('/leads', body, `"${key}"`);
      const bare = await post('/leads', body, key);

      expect(quoted.status).to.equal(201);
      expect(bare.body).to.deep.equal(quoted.body);
      expect(bare.headers.get('idempotent-replayed')).to.equal('true');
      expect((await keysOf(acc.id)).map((k) => k.key)).to.deep.equal([key]);
    });
  });

  describe('POST /orders', () => {
    it('When an order is sent twice with one key, Then one order and the first answer again', async () => {
      const { acc, post } = await client();
      const body = { orders: [item(acc), item(acc)] };
      const key = newKey();

      const first = await post('/orders', body, key);
      const again = await post('/orders', body, key);

      expect(first.status).to.equal(201);
      expect(first.body.references).to.have.length(2);
      expect(again.body).to.deep.equal(first.body);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(await countOf('orders', acc.id)).to.equal(2);
    });

    it('When five orders requests with one key arrive at once, Then the orders are written once', async () => {
      const { acc, post } = await client();
      const body = { orders: Array.from({ length: 10 }, () => item(acc)) };
      const key = newKey();

      const answers = await Promise.all(Array.from({ length: 5 }, () => post('/orders', body, key)));

      expect(answers.map((a) => a.status)).to.deep.equal([201, 201, 201, 201, 201]);
      for (const a of answers) expect(a.body).to.deep.equal(answers[0].body);
      expect(await countOf('orders', acc.id)).to.equal(10);
    });

    it('When the same key comes with another orders body, Then 422 and nothing is written', async () => {
      const { acc, post } = await client();
      const key = newKey();
      await post('/orders', { orders: [item(acc)] }, key);

      const other = await post('/orders', { orders: [item(acc, { full_name: 'Someone Else' })] }, key);

      expect(other.status).to.equal(422);
      expect(other.body.errors).to.have.property('Idempotency-Key');
      expect(await countOf('orders', acc.id)).to.equal(1);
    });

    it('When one key is used on POST /leads and on POST /orders, Then each endpoint writes its own', async () => {
      const { acc, post } = await client();
      const key = newKey();

      const lead = await post('/leads', { leads: [item(acc)] }, key);
      const order = await post('/orders', { orders: [item(acc)] }, key);

      expect([lead.status, order.status]).to.deep.equal([201, 201]);
      expect(order.headers.get('idempotent-replayed')).to.equal(null);
      expect(order.body.references[0]).to.match(/^OR/);
      expect(await countOf('leads', acc.id)).to.equal(1);
      expect(await countOf('orders', acc.id)).to.equal(1);
      expect((await keysOf(acc.id)).map((k) => k.endpoint)).to.deep.equal(['POST /leads', 'POST /orders']);
    });
  });

  describe('a request that fails after its leads were written', () => {
    // the key's answer cannot be stored (as if the database or the process went away at the last step)
    const sql = (text: string) => getCtx().db.sequelize.query(text);
    before(async () => {
      await sql(`
        CREATE OR REPLACE FUNCTION test_idem_explode() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the answer cannot be stored'; END $$;
        CREATE TRIGGER test_idem_explode BEFORE UPDATE ON idempotency_keys FOR EACH ROW
          WHEN (NEW.key LIKE 'explode-%') EXECUTE FUNCTION test_idem_explode();
        ALTER TABLE idempotency_keys ENABLE ALWAYS TRIGGER test_idem_explode;`);
    });
    after(async () => {
      await sql(`DROP TRIGGER test_idem_explode ON idempotency_keys; DROP FUNCTION test_idem_explode();`);
    });

    it('When the answer cannot be stored, Then 500, neither the leads nor the key remain, and the key can be retried', async () => {
      const { acc, post } = await client();
      const body = { leads: [item(acc), item(acc)] };
      const key = `explode-${newKey()}`;

      const failed = await post('/leads', body, key);
      expect(failed.status).to.equal(500);
      expect(failed.body).to.deep.equal({ message: 'Server Error' });
      expect(await countOf('leads', acc.id)).to.equal(0);
      expect(await keysOf(acc.id)).to.deep.equal([]);
      await sql(`ALTER TABLE idempotency_keys DISABLE TRIGGER test_idem_explode`);
      const retried = await post('/leads', body, key);
      await sql(`ALTER TABLE idempotency_keys ENABLE ALWAYS TRIGGER test_idem_explode`);

      expect(retried.status).to.equal(201);
      expect(retried.headers.get('idempotent-replayed')).to.equal(null);
      expect(await countOf('leads', acc.id)).to.equal(2);
    });
  });

  describe('a request whose connection is killed while another waits on its key', () => {
    // the answer's UPDATE sleeps for keys named slow-…, so the first request is caught holding its uncommitted key
    const sql = (text: string) => getCtx().db.sequelize.query(text);
    before(async () => {
      await sql(`
        CREATE OR REPLACE FUNCTION test_idem_slow() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_sleep(1.5); RETURN NEW; END $$;
        CREATE TRIGGER test_idem_slow BEFORE UPDATE ON idempotency_keys FOR EACH ROW
          WHEN (NEW.key LIKE 'slow-%') EXECUTE FUNCTION test_idem_slow();
        ALTER TABLE idempotency_keys ENABLE ALWAYS TRIGGER test_idem_slow;`);
    });
    after(async () => {
      await sql(`DROP TRIGGER test_idem_slow ON idempotency_keys; DROP FUNCTION test_idem_slow();`);
    });
    /** The pid of the backend running `like` (as pg_stat_activity shows it), waiting for it to appear. */
    async function backendOf(like: string, waiting: boolean): Promise<number> {
      for (let i = 0; i < 200; i++) {
        const [row] = await getCtx().db.sequelize.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
              AND state = 'active' AND query LIKE $1 AND (wait_event_type = 'Lock') = $2`,
          { bind: [like, waiting], type: QueryTypes.SELECT },
        );
        if (row) return row.pid;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no backend running ${like}`);
    }

    it('When the first request dies holding its key, Then the waiting one takes the key and writes once', async () => {
      const { acc, post } = await client();
      const body = { leads: [item(acc), item(acc)] };
      const key = `slow-${newKey()}`;

      const first = post('/leads', body, key);
      const holder = await backendOf('UPDATE idempotency_keys SET status_code%', false);
      const second = post('/leads', body, key);
      await backendOf('INSERT INTO idempotency_keys%', true);
      await sql(`SELECT pg_terminate_backend(${holder})`);
      const [died, wrote] = await Promise.all([first, second]);

      expect(died.status).to.be.at.least(500);
      expect(wrote.status).to.equal(201);
      expect(wrote.headers.get('idempotent-replayed')).to.equal(null);
      expect(await countOf('leads', acc.id)).to.equal(2);
      expect((await keysOf(acc.id)).map((k) => [k.key, k.response])).to.deep.equal([[key, wrote.body]]);
    });
  });

  describe('the cleanup job', () => {
    const run = (job: JobDefinition) => job.handler(getCtx(), {}, {} as never);

    it('When keys are older than 24 hours, Then the job removes them and keeps the younger ones of every account', async () => {
      const a = await client();
      const b = await client();
      await a.post('/leads', { leads: [item(a.acc)] }, 'old-key');
      await ageKeys(a.acc.id, '25 hours');
      await a.post('/leads', { leads: [item(a.acc)] }, 'young-key');
      await b.post('/leads', { leads: [item(b.acc)] }, 'old-key');

      await run(cleanupIdempotencyKeysJob);

      expect((await keysOf(a.acc.id)).map((k) => k.key)).to.deep.equal(['young-key']);
      expect((await keysOf(b.acc.id)).map((k) => k.key)).to.deep.equal(['old-key']);
      expect(await countOf('leads', a.acc.id), 'the leads stay; only their keys go').to.equal(2);
    });

    it('When the job runs with nothing to remove, Then it removes nothing', async () => {
      const a = await client();
      await a.post('/leads', { leads: [item(a.acc)] }, 'fresh');

      await run(cleanupIdempotencyKeysJob);

      expect((await keysOf(a.acc.id)).map((k) => k.key)).to.deep.equal(['fresh']);
    });
  });
});
