import { expect } from 'chai';
import pg from 'pg';
import { LISTENER_NAME } from '../../src/db/notifications.js';
import { TOKENS_CHANGED } from '../../src/tokens/token-auth.js';
import { getCtx } from '../hooks.js';
import { makeAccount, makeAdmin, type TestAccount } from '../factories.js';
import { adminUrl, exited, randomPort, runMain, waitFor } from '../processes.js';

/**
 * A web process remembers the tokens it resolved (src/tokens/token-auth.ts). These tests run a second process on the
 * suite's database and change tokens from this one, through the services every entry point uses: what refuses a
 * token must refuse it in the other process at once.
 */
describe('token cache across processes', function () {
  this.timeout(120_000);
  let other: ReturnType<typeof runMain>;
  let base = '';
  let acc: TestAccount;

  before(async () => {
    await makeAdmin(getCtx()); // the second process then finds the database seeded and seeds nothing
    acc = await makeAccount(getCtx());
    const port = randomPort();
    // an application_name of the operator's own in the URL must not hide the process's listener
    const url = `${getCtx().db.url}?application_name=leadflow-web`;
    other = runMain({ DATABASE_URL: url, HOST: '127.0.0.1', PORT: String(port) }, ['--role', 'web']);
    base = `http://127.0.0.1:${port}`;
    const up = await waitFor(async () => (await fetch(`${base}/health/ready`)).ok, 60_000);
    expect(up, other.output.text).to.equal(true);
    expect(await waitFor(listening, 10_000), 'the other process listens for token changes').to.equal(true);
  });
  after(async () => {
    other.kill('SIGTERM');
    await exited(other);
  });

  // the listener takes its name once it listens
  const listening = async () =>
    (
      await superuser((c) =>
        c.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [`${LISTENER_NAME} ${other.pid}`]),
      )
    ).rowCount! > 0;
  const list = async (token: string) =>
    (await fetch(`${base}/api/web/1.0/leads`, { headers: { authorization: `Bearer ${token}` } })).status;
  const newToken = async () =>
    getCtx().services.tokens.createToken(acc.seller.actor, { name: 'cached', scopes: ['VIEW LEADS'] });
  const superuser = async <T>(fn: (c: pg.Client) => Promise<T>) => {
    const c = new pg.Client({ connectionString: adminUrl() });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };

  it('serves a token it has resolved without looking it up again', async () => {
    const t = await newToken();
    expect(await list(t.token)).to.equal(200);
    // A change made with triggers off (replica mode) sends no notification: only a remembered token still works.
    await superuser(async (c) => {
      await c.query("SET session_replication_role = 'replica'");
      await c.query("UPDATE api_tokens SET token_hash = repeat('0', 64) WHERE id = $1", [t.id]);
    });
    expect(await list(t.token)).to.equal(200);
    await getCtx().services.tokens.revokeToken(acc.seller.actor, t.id);
  });

  it('refuses a token revoked here on the very next request there, every time', async () => {
    for (let i = 0; i < 10; i++) {
      const t = await newToken();
      expect(await list(t.token)).to.equal(200);
      expect(await list(t.token)).to.equal(200);
      await getCtx().services.tokens.revokeToken(acc.seller.actor, t.id);
      expect(await list(t.token), `round ${i}`).to.equal(401);
    }
  });

  it('refuses a token at once when its owner is deactivated, and serves it again when reactivated', async () => {
    const agent = acc.agent;
    const t = await getCtx().services.tokens.createToken(acc.seller.actor, {
      name: 'agent key',
      scopes: ['VIEW LEADS'],
      user_id: agent.id,
    });
    expect(await list(t.token)).to.equal(200);
    await getCtx().services.accounts.updateUser(acc.seller.actor, agent.id, { active: false });
    expect(await list(t.token)).to.equal(401);
    await getCtx().services.accounts.updateUser(acc.seller.actor, agent.id, { active: true });
    expect(await list(t.token)).to.equal(200);
  });

  it('refuses a token whose owner moved to another account, and an id no token can have, without an error', async () => {
    const t = await newToken();
    expect(await list(t.token)).to.equal(200);
    const elsewhere = await makeAccount(getCtx());
    await superuser((c) => c.query('UPDATE users SET account_id = $1 WHERE id = $2', [elsewhere.id, acc.seller.id]));
    // a change made by hand in SQL is not waited for as the services' changes are: wait until every process has heard
    await getCtx().notifications.settle(TOKENS_CHANGED);
    try {
      expect(await list(t.token)).to.equal(401);
    } finally {
      await superuser((c) => c.query('UPDATE users SET account_id = $1 WHERE id = $2', [acc.id, acc.seller.id]));
    }
    expect(await list(`2147483648|${'a'.repeat(40)}`)).to.equal(401);
    expect(await list(`9999999999|${'a'.repeat(40)}`)).to.equal(401);
  });

  it('forgets what it remembered when its listening connection is cut, so a revocation meanwhile still counts', async () => {
    const t = await newToken();
    expect(await list(t.token)).to.equal(200);
    const cut = await superuser(
      async (c) =>
        (
          await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
            `${LISTENER_NAME} ${other.pid}`,
          ])
        ).rowCount,
    );
    expect(cut).to.be.greaterThan(0);
    await getCtx().services.tokens.revokeToken(acc.seller.actor, t.id);
    expect(await list(t.token)).to.equal(401);
    // and it listens again: a new token is remembered, and a revocation reaches it
    const again = await newToken();
    expect(await waitFor(listening, 10_000)).to.equal(true);
    expect(await list(again.token)).to.equal(200);
    await getCtx().services.tokens.revokeToken(acc.seller.actor, again.id);
    expect(await list(again.token)).to.equal(401);
  });
});
