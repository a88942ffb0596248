import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { expect } from 'chai';
import { withoutLoader } from '../build.js';
import { makeAccount } from '../factories.js';
import { getCtx } from '../hooks.js';
import { useTestServer } from '../helpers.js';
import { lastResetToken, runResetJobs } from '../reset-jobs.js';
import { restClient } from '../rest-client.js';
import { login, sessionClient } from '../session.js';

/** Runs the operator CLI against the test database (the same one the suite uses); `input` is its standard input. */
function cli(args: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const url = getCtx().db.url;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', ...args], {
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent', PASSWORD_HASH_COST: 'fast' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A shell command line as an operator types it (npm and its banner included), on the test database. */
function shell(command: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = withoutLoader({ ...process.env, DATABASE_URL: getCtx().db.url, PASSWORD_HASH_COST: 'fast' });
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

/** The README's CLI lines (in its code blocks) that ask for JSON. */
function readmeJsonCommands(): string[] {
  const blocks = [...fs.readFileSync('README.md', 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  return blocks
    .flatMap((b) => b.split('\n'))
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => /\bcli\b.*--json/.test(l));
}

describe('operator CLI', function () {
  this.timeout(180_000); // each case spawns the CLI (tsx loads the sources): minutes on a loaded 2-core machine
  const web = useTestServer();

  it("prints one parseable JSON object on stdout through the README's own command line (npm's banner included)", async () => {
    const lines = readmeJsonCommands();
    expect(lines.length, 'the README shows a --json command').to.be.above(0);
    for (const line of lines) {
      const res = await shell(line);
      expect(res.code, `${line}\n${res.stderr}`).to.equal(0);
      expect(() => JSON.parse(res.stdout), `${line} printed:\n${res.stdout}`).not.to.throw();
    }
  });

  it('user:password without a terminal generates a password, prints it once, and ends the sessions, API tokens and reset links of the login', async () => {
    const ctx = getCtx();
    const acc = await makeAccount(ctx);
    const email = acc.seller.email;
    const session = await login(web.url, email, acc.seller.password);
    const token = await acc.token();
    const rest = restClient(web.url, token);
    expect((await rest('GET', '/leads')).status).to.equal(200);
    const anonymous = sessionClient(web.url);
    anonymous.csrf = (await anonymous.json('GET', '/csrf-token')).body.token;
    expect((await anonymous.json('POST', '/reset-password', { email })).status).to.equal(200);
    expect(await runResetJobs(ctx, email)).to.deep.equal(['sent']);
    const link = lastResetToken(email);
    expect(await ctx.services.passwordResets.isValid(link)).to.equal(true);

    const res = await shell(`npm run -s cli -- user:password --email ${email} --json`);
    expect(res.code, res.stderr).to.equal(0);
    const out = JSON.parse(res.stdout);
    expect(out).to.include({ email, active: true });
    expect(out.password).to.match(/^[A-Za-z0-9_-]{24}$/);
    expect(res.stderr).not.to.include(out.password);

    expect(await ctx.services.accounts.verifyCredentials(email, acc.seller.password)).to.equal(null);
    expect(await ctx.services.accounts.verifyCredentials(email, out.password)).to.not.equal(null);
    expect((await session.json('GET', '/leads')).status, 'the old session').to.equal(401);
    expect((await rest('GET', '/leads')).status, 'the API token').to.equal(401);
    expect(await ctx.services.passwordResets.isValid(link), 'the reset link').to.equal(false);
    await login(web.url, email, out.password);
    // a password on the command line would stay in the shell history: refused
    const typed = await shell(`npm run -s cli -- user:password --email ${email} --password long-password-1`);
    expect(typed.code).to.equal(1);
    expect(typed.stderr).to.include('--generate');
  });

  it('user:password on a terminal asks twice without echoing what is typed', async function () {
    const acc = await makeAccount(getCtx());
    const email = acc.seller.email;
    // `script` gives the command a terminal; each answer is typed once its question is on the screen
    const env = withoutLoader({ ...process.env, DATABASE_URL: getCtx().db.url, PASSWORD_HASH_COST: 'fast' });
    const child = spawn('script', ['-qec', `npm run -s cli -- user:password --email ${email}`, '/dev/null'], { env });
    const res = { stdout: '', stderr: '', code: null as number | null };
    let answered = 0;
    child.stderr.on('data', (d) => (res.stderr += d));
    child.stdout.on('data', (d) => {
      res.stdout += d;
      const asked = (res.stdout.match(/New password|The same again/g) ?? []).length;
      for (; answered < asked; answered++) child.stdin.write('typed-password-1\r');
    });
    res.code = await new Promise((r) => child.on('exit', r));
    expect(res.code, res.stdout + res.stderr).to.equal(0);
    expect(res.stdout).to.include('New password').and.to.include('The same again');
    expect(res.stdout).not.to.include('typed-password-1');
    expect(await getCtx().services.accounts.verifyCredentials(email, 'typed-password-1')).to.not.equal(null);
  });

  it('user:create takes no --password (process list, shell history): refused in one line; without a terminal the password is generated and printed once (--password-stdin: the next test)', async () => {
    const acc = await makeAccount(getCtx());
    const create = (email: string, ...more: string[]) => [
      ...['user:create', '--account', String(acc.id), '--role', 'agent'],
      ...['--email', email, '--name', 'Cli Agent', ...more],
    ];
    const seen = `cli-seen-${Date.now()}@test.local`;
    const typed = await cli(create(seen, '--password', 'visible-password-1'));
    expect(typed.code, typed.stdout).to.equal(1);
    expect(typed.stderr.trim().split('\n'), typed.stderr).to.deep.equal([
      'user:create takes no --password (it would show in the process list and stay in the shell history): ' +
        'type it when asked, pipe it with --password-stdin, or use --generate',
    ]);
    expect(await getCtx().services.accounts.findUserByEmail(seen), 'no login made').to.equal(null);

    const made = `cli-made-${Date.now()}@test.local`;
    const generated = await cli(create(made, '--json'));
    expect(generated.code, generated.stderr).to.equal(0);
    const out = JSON.parse(generated.stdout);
    expect(out.password).to.match(/^[A-Za-z0-9_-]{24}$/);
    expect(await getCtx().services.accounts.verifyCredentials(made, out.password)).to.not.equal(null);
  });

  it('creates an account, a seller, a product and a token, each as one JSON object', async () => {
    const name = `Cli Shop ${Date.now()}`;
    const acc = await cli(['account:create', '--name', name, '--json']);
    expect(acc.code).to.equal(0);
    const { id } = JSON.parse(acc.stdout);
    const email = `cli-${Date.now()}@test.local`;
    const user = await cli(
      [
        'user:create',
        '--account',
        String(id),
        '--role',
        'seller',
        '--email',
        email,
        '--password-stdin',
        '--name',
        'Cli Seller',
        '--json',
      ],
      'cli-password-1\n',
    );
    expect(JSON.parse(user.stdout)).to.include({ account_id: id, role: 'seller', email });
    expect(JSON.parse(user.stdout)).not.to.have.property('password');
    expect(await getCtx().services.accounts.verifyCredentials(email, 'cli-password-1')).to.not.equal(null);
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
    expect(unknown.stderr.trim()).to.equal('Unknown command "no:such". Run: npm run -s cli -- help');
  });
});
