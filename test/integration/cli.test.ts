import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { getCtx } from '../hooks.js';

/** Runs the operator CLI against the test database (the same one the suite uses). */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const url = getCtx().db.url;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', ...args], {
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent', PASSWORD_HASH_COST: 'fast' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('operator CLI', function () {
  this.timeout(60_000);

  it('creates an account, a seller, a product and a token, each as one JSON object', async () => {
    const name = `Cli Shop ${Date.now()}`;
    const acc = await cli(['account:create', '--name', name, '--json']);
    expect(acc.code).to.equal(0);
    const { id } = JSON.parse(acc.stdout);
    const email = `cli-${Date.now()}@test.local`;
    const user = await cli([
      'user:create',
      '--account',
      String(id),
      '--role',
      'seller',
      '--email',
      email,
      '--password',
      'cli-password-1',
      '--name',
      'Cli Seller',
      '--json',
    ]);
    expect(JSON.parse(user.stdout)).to.include({ account_id: id, role: 'seller', email });
    const product = await cli([
      'product:create',
      '--account',
      String(id),
      '--sku',
      'CLI-1',
      '--name',
      'Cli Product',
      '--price',
      '120',
      '--inactive',
      '--json',
    ]);
    expect(JSON.parse(product.stdout)).to.include({ sku: 'CLI-1', price: 120, active: false });
    const token = await cli([
      'token:create',
      '--email',
      email,
      '--name',
      'shop',
      '--scopes',
      'CREATE LEADS,VIEW LEADS',
      '--json',
    ]);
    const t = JSON.parse(token.stdout);
    expect(t.token).to.match(/^\d+\|[A-Za-z0-9_-]{40}$/);
    expect(t.scopes).to.deep.equal(['CREATE LEADS', 'VIEW LEADS']);
    expect(await getCtx().services.tokens.authenticate(t.token)).to.include({ accountId: id, kind: 'token' });
  });

  it('checks the kept list totals against count(*) and answers exact', async () => {
    const res = await cli(['counts:check', '--json']);
    expect(res.code, res.stderr).to.equal(0);
    expect(JSON.parse(res.stdout)).to.deep.equal({ exact: true, differing: [], repaired: false });
  });

  it('answers a bad command with one clear line and a non-zero exit', async () => {
    const dup = await cli(['account:create', '--json']);
    expect(dup.code).to.equal(1);
    expect(JSON.parse(dup.stdout)).to.deep.equal({ error: 'name: The name field is required.' });
    const unknown = await cli(['no:such']);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr.trim()).to.equal('Unknown command "no:such". Run: npm run cli -- help');
  });
});
