import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { down, up } from '../../migrations/20261203000000-standard-webhooks.js';
import type { AppContext } from '../../src/app-context.js';
import { makeAccount, uid, type TestAccount } from '../factories.js';
import { getCtx } from '../hooks.js';
import { useReceiver, type Received } from '../webhook-receiver.js';

/**
 * Deliveries checked by a client no one here wrote: the receiver verifies each with the `standardwebhooks` library
 * (the Standard Webhooks reference for JavaScript) and refuses what it does not verify, as an integrator's would.
 */
const run = promisify(execFile);
const phone = () => `+2126${String(crypto.randomInt(10_000_000, 99_999_999))}`;

async function deliverAll(ctx: AppContext): Promise<void> {
  while ((await ctx.services.webhooks.deliverDue()) > 0);
}

async function createLead(ctx: AppContext, acc: TestAccount): Promise<string> {
  const products = [{ sku: acc.skus.active[0], quantity: 1, price: 100 }];
  const lead = { phone: phone(), full_name: 'Standard', city: 'Rabat', products };
  return (await ctx.services.leads.createMany(acc.seller.actor, { leads: [lead] })).references[0];
}

/** What the library says of a delivery: 'ok', or the error's message. */
function check(secret: string, r: Pick<Received, 'headers' | 'raw'>): string {
  try {
    new Webhook(secret).verify(r.raw.toString('utf8'), r.headers as Record<string, string>);
    return 'ok';
  } catch (err) {
    return (err as Error).message;
  }
}

async function stateOf(ctx: AppContext, endpointId: number): Promise<string[]> {
  const rows = await ctx.models.WebhookDelivery.findAll({ where: { endpoint_id: endpointId }, order: [['id', 'ASC']] });
  return rows.map((d) => d.state);
}

/** The fenced block of docs/webhooks.md whose first line is `firstLine`, written to a temporary file. */
async function docsBlock(lang: string, firstLine: string, fileName: string): Promise<string> {
  const page = await fs.promises.readFile('docs/webhooks.md', 'utf8');
  const block = new RegExp('```' + lang + '\\n(' + firstLine + '[\\s\\S]*?)```').exec(page);
  expect(block, `docs/webhooks.md has the ${firstLine} block`).to.not.equal(null);
  const file = path.join(os.tmpdir(), `${uid()}-${fileName}`);
  await fs.promises.writeFile(file, block![1]);
  return file;
}

describe('Webhooks: Standard Webhooks signatures, checked by the standardwebhooks library', () => {
  const receiver = useReceiver();
  /** The secret the receiver verifies each path with. */
  const secrets = new Map<string, string>();
  before(() => receiver.answerWith((r) => (check(secrets.get(r.path) ?? 'whsec_', r) === 'ok' ? 200 : 401)));

  /** A new account's endpoint on `path`, a lead, and the delivery its receiver verified. */
  async function oneDelivery(path: string): Promise<{ secret: string; r: Received }> {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const { secret } = await ctx.services.webhooks.create(acc.seller.actor, {
      url: receiver.url(path),
      events: ['lead.created'],
    });
    secrets.set(path, secret);
    await createLead(ctx, acc);
    await deliverAll(ctx);
    const [r] = receiver.at(path);
    expect(check(secret, r)).to.equal('ok');
    return { secret, r };
  }

  it('verifies every delivery; a tampered body, another endpoint’s secret and a stale timestamp fail', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const a = await ctx.services.webhooks.create(acc.seller.actor, {
      url: receiver.url('/a'),
      events: ['lead.created'],
    });
    const b = await ctx.services.webhooks.create(acc.seller.actor, {
      url: receiver.url('/b'),
      events: ['lead.created'],
    });
    expect(a.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.secret.slice(6), 'base64')).to.have.length(32);
    secrets.set('/a', a.secret).set('/b', b.secret);
    await createLead(ctx, acc);
    await deliverAll(ctx);
    expect(await stateOf(ctx, a.endpoint.id)).to.deep.equal(['delivered']);
    expect(await stateOf(ctx, b.endpoint.id)).to.deep.equal(['delivered']);
    const [r] = receiver.at('/a');
    expect(r.headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(check(a.secret, r)).to.equal('ok');
    expect(check(b.secret, r)).to.equal('No matching signature found');
    const tampered = Buffer.from(r.raw.toString('utf8').replace('"Standard"', '"Standarc"'));
    expect(check(a.secret, { headers: r.headers, raw: tampered })).to.equal('No matching signature found');
    const otherId = { ...r.headers, 'webhook-id': crypto.randomUUID() };
    expect(check(a.secret, { headers: otherId, raw: r.raw })).to.equal('No matching signature found');
    const now = Date.now;
    Date.now = () => now() + 6 * 60_000;
    try {
      expect(check(a.secret, r)).to.equal('Message timestamp too old');
    } finally {
      Date.now = now;
    }
  });

  it('after a rotation both secrets verify for the grace period, then only the new one', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const { endpoint, secret: old } = await ctx.services.webhooks.create(acc.seller.actor, {
      url: receiver.url('/rotating'),
      events: ['lead.created'],
    });
    secrets.set('/rotating', old);
    const { secret: fresh } = await ctx.services.webhooks.rotateSecret(acc.seller.actor, endpoint.id);
    // a receiver still holding the old secret accepts the deliveries signed after the rotation
    await createLead(ctx, acc);
    await deliverAll(ctx);
    expect(await stateOf(ctx, endpoint.id)).to.deep.equal(['delivered']);
    const [during] = receiver.at('/rotating');
    expect(check(old, during)).to.equal('ok');
    expect(check(fresh, during)).to.equal('ok');

    await ctx.models.WebhookEndpoint.update(
      { rotation_grace_until: new Date(Date.now() - 1) },
      { where: { id: endpoint.id } },
    );
    await createLead(ctx, acc);
    await deliverAll(ctx);
    // the receiver with the old secret refuses now (the delivery waits for its retry) …
    expect(await stateOf(ctx, endpoint.id)).to.deep.equal(['delivered', 'pending']);
    const refused = receiver.at('/rotating')[1];
    expect(check(old, refused)).to.equal('No matching signature found');
    expect(check(fresh, refused)).to.equal('ok');
    // … and accepts the retry once it holds the new one
    secrets.set('/rotating', fresh);
    await ctx.models.WebhookDelivery.update(
      { next_try_at: new Date() },
      { where: { endpoint_id: endpoint.id, state: 'pending' } },
    );
    await deliverAll(ctx);
    expect(await stateOf(ctx, endpoint.id)).to.deep.equal(['delivered', 'delivered']);
  });

  it('the Python block of docs/webhooks.md verifies a real delivery and refuses a tampered one', async () => {
    const { secret, r } = await oneDelivery('/python');
    const module = await docsBlock('python', '# verify_webhook.py', 'verify_webhook.py');
    const script = [
      'import importlib.util, json, sys',
      `spec = importlib.util.spec_from_file_location("v", ${JSON.stringify(module)})`,
      'v = importlib.util.module_from_spec(spec); spec.loader.exec_module(v)',
      'secret, headers, raw = sys.argv[1], json.loads(sys.argv[2]), sys.stdin.buffer.read()',
      'print(v.verify_webhook(secret, headers, raw), v.verify_webhook(secret, headers, raw + b" "))',
    ].join('\n');
    const headers = JSON.stringify(r.headers);
    const child = run('python3', ['-c', script, secret, headers]);
    child.child.stdin!.end(r.raw);
    expect((await child).stdout.trim()).to.equal('True False');
  });

  it('the PHP block of docs/webhooks.md verifies a real delivery (where php is installed)', async function () {
    if (
      !(await run('php', ['--version']).then(
        () => true,
        () => false,
      ))
    ) {
      console.log('      (skipped: php is not installed on this machine)');
      return this.skip();
    }
    const { secret, r } = await oneDelivery('/php');
    const module = await docsBlock('php', '<\\?php', 'verify_webhook.php');
    const script = `require ${JSON.stringify(module)}; $raw = stream_get_contents(STDIN);
      $h = json_decode($argv[2], true); echo json_encode([verify_webhook($argv[1], $h, $raw),
      verify_webhook($argv[1], $h, $raw . ' ')]);`;
    const child = run('php', ['-r', script, '--', secret, JSON.stringify(r.headers)]);
    child.child.stdin!.end(r.raw);
    expect((await child).stdout.trim()).to.equal('[true,false]');
  });

  it('an endpoint of the first scheme keeps its key across the upgrade: the library verifies it with the new spelling', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const { endpoint } = await ctx.services.webhooks.create(acc.seller.actor, {
      url: receiver.url('/upgraded'),
      events: ['lead.created'],
    });
    const sequelize = ctx.db.sequelize;
    const migration = { name: '20261203000000-standard-webhooks', context: sequelize };
    await down(migration);
    const legacy = `whsec_${crypto.randomBytes(32).toString('base64url')}`;
    await sequelize.query('UPDATE webhook_endpoints SET secret = $1 WHERE id = $2', { bind: [legacy, endpoint.id] });
    await up(migration);
    const spelled = `whsec_${Buffer.from(legacy).toString('base64')}`;
    const stored = await ctx.models.WebhookEndpoint.findByPk(endpoint.id);
    expect(stored!.secret).to.equal(spelled);
    secrets.set('/upgraded', spelled);
    await createLead(ctx, acc);
    await deliverAll(ctx);
    expect(await stateOf(ctx, endpoint.id)).to.deep.equal(['delivered']);
    // a receiver's own code keeps the old text as the key
    const [r] = receiver.at('/upgraded');
    const signed = `${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.raw.toString('utf8')}`;
    const mac = crypto.createHmac('sha256', legacy).update(signed).digest('base64');
    expect(r.headers['webhook-signature']).to.equal(`v1,${mac}`);
    // and back: the first scheme's text again
    await down(migration);
    expect((await ctx.models.WebhookEndpoint.findByPk(endpoint.id, { attributes: ['secret'] }))!.secret).to.equal(
      legacy,
    );
    await up(migration);
  });
});
