import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { chromiumAvailable, launch, loginAs } from '../e2e/browser.js';
import { COMPILED_CLI, COMPILED_MAIN, PANEL_BUNDLE, ensureBuild, withoutLoader } from '../build.js';
import { exited, randomPort, waitFor } from '../spawn.js';
import { login } from '../session.js';
import { restClient } from '../rest-client.js';

/** Every module specifier in a compiled file: static imports and re-exports, import() and require(). */
const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;

function compiledFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return compiledFiles(file);
    return entry.name.endsWith('.js') ? [file] : [];
  });
}

/** A compiled LeadFlow process: plain node, no loader in its options or its environment, output collected. */
function runCompiled(script: string, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [script, ...args], {
    env: withoutLoader({ ...process.env, DATABASE_URL: undefined, LOG_LEVEL: 'warn', ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const output = { text: '' };
  child.stdout.on('data', (d) => (output.text += d));
  child.stderr.on('data', (d) => (output.text += d));
  return Object.assign(child, { output });
}

async function cli(env: Record<string, string>, args: string[], input = ''): Promise<Record<string, any>> {
  const child = runCompiled(COMPILED_CLI, [...args, '--json'], env);
  child.stdin.end(input);
  const code = await exited(child);
  expect(code, child.output.text).to.equal(0);
  return JSON.parse(child.output.text.trim().split('\n').pop()!);
}

describe('compiled production runtime (npm run build, then plain node)', function () {
  this.timeout(240_000);
  const children: ChildProcessWithoutNullStreams[] = [];
  let dataDir = '';

  before(function () {
    ensureBuild();
  });

  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await Promise.all(children.map((child) => exited(child)));
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('emits JavaScript that imports no TypeScript file, tsx or esbuild', () => {
    const files = compiledFiles('dist');
    expect(files).to.include.members([COMPILED_MAIN, COMPILED_CLI, 'dist/src/db/migrator.js']);
    const offending = files.flatMap((file) =>
      [...fs.readFileSync(file, 'utf8').matchAll(SPECIFIERS)]
        .map((match) => match[1])
        .filter((spec) => /\.(ts|tsx|mts|cts)$/.test(spec) || /^(tsx|esbuild)(\/|$)/.test(spec))
        .map((spec) => `${file}: ${spec}`),
    );
    expect(offending).to.deep.equal([]);
    const migrations = (dir: string, ext: string) =>
      fs
        .readdirSync(dir)
        .filter((f) => f.endsWith(ext) && !f.endsWith('.d.ts'))
        .map((f) => f.slice(0, -ext.length));
    expect(migrations('dist/migrations', '.js')).to.include.members(migrations('migrations', '.ts'));
  });

  it('starts web and worker with plain node on a new DATA_DIR: migrates, seeds, serves REST and the panel', async () => {
    dataDir = fs.mkdtempSync(path.resolve('data', 'compiled-'));
    const port = randomPort();
    const env = {
      NODE_ENV: 'production',
      SESSION_SECRET: 'compiled-test-secret-0123456789abcdef',
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      ADMIN_PASSWORD: 'admin-password-1',
      PASSWORD_HASH_COST: 'fast',
    };
    const bundleBefore = fs.statSync(PANEL_BUNDLE).mtimeMs;
    const web = runCompiled(COMPILED_MAIN, ['--role', 'web'], env);
    children.push(web);
    const url = `http://127.0.0.1:${port}`;
    const ready = await waitFor(async () => {
      if (web.exitCode !== null) throw new Error(web.output.text);
      return (await fetch(`${url}/health/ready`)).status === 200;
    }, 60_000);
    expect(ready, web.output.text).to.equal(true);
    await waitFor(async () => web.output.text.includes('LeadFlow listening'), 10_000);
    expect(web.output.text).to.include('First start');

    // A worker joins the running embedded server; it loads no HTTP modules.
    const worker = runCompiled(COMPILED_MAIN, ['--role', 'worker'], env);
    children.push(worker);
    const workerReady = await waitFor(async () => worker.output.text.includes('LeadFlow worker'), 60_000);
    expect(workerReady, worker.output.text).to.equal(true);

    // Production seeds the admin only (no demo account, no demo password printed).
    expect(web.output.text).not.to.include('seller@demo.test');
    // The compiled CLI on the same DATA_DIR: nothing left to migrate; a shop, its seller, a product and a token.
    expect((await cli(env, ['migrate'])).migrations).to.deep.equal([]);
    const shop = await cli(env, ['account:create', '--name', 'Compiled Shop']);
    const seller = ['--email', 'seller@compiled.test', '--password-stdin', '--name', 'Compiled Seller'];
    await cli(env, ['user:create', '--account', String(shop.id), '--role', 'seller', ...seller], 'seller-password-1\n');
    const product = ['--sku', 'SERUM-01', '--name', 'Serum', '--price', '199'];
    await cli(env, ['product:create', '--account', String(shop.id), ...product]);
    const { token } = await cli(env, [
      'token:create',
      ...['--email', 'seller@compiled.test', '--name', 'compiled', '--scopes', 'CREATE LEADS,VIEW LEADS'],
    ]);
    const rest = restClient(url, token);
    const lead = { phone: '+212600111222', full_name: 'Compiled Customer', city: 'Casablanca' };
    const created = await rest('POST', '/leads', {
      leads: [{ ...lead, products: [{ sku: 'SERUM-01', quantity: 1, price: 199 }] }],
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const listed = await rest('GET', '/leads');
    expect(listed.status).to.equal(200);
    expect(listed.body.data.map((l: { full_name: string }) => l.full_name)).to.deep.equal(['Compiled Customer']);

    // The panel: AdminJS from dist, its components served from the bundle the build made, nothing bundled now.
    const admin = await login(url, 'admin@example.com', 'admin-password-1');
    const list = await admin.json('GET', '/admin/api/resources/leads/actions/list');
    expect(list.status, JSON.stringify(list.body).slice(0, 500)).to.equal(200);
    expect(list.body.records.map((r: { params: { full_name: string } }) => r.params.full_name)).to.deep.equal([
      'Compiled Customer',
    ]);
    const components = await admin.fetch('/admin/frontend/assets/components.bundle.js');
    expect(components.status).to.equal(200);
    const bundled = await components.text();
    for (const name of ['LeadFlowDashboard', 'QueuePage', 'KpiPage', 'StatusBadge'])
      expect(bundled).to.include(`UserComponents.${name}=`);
    if (chromiumAvailable()) {
      // The dashboard is one of the prebuilt components: it renders in a browser (production AdminJS bundles).
      const browser = await launch();
      try {
        const page = await browser.newPage();
        await loginAs(page, url, 'admin@example.com', 'admin-password-1');
        await page.waitForSelector('text=Confirmation rate (7 days)', { timeout: 20_000 });
        // chart.js came in the prebuilt bundle: the KPI page draws its charts
        await page.goto(`${url}/admin/pages/kpi`);
        await page.waitForSelector('canvas[data-testid=chart-leads-per-day]', { timeout: 20_000 });
      } finally {
        await browser.close();
      }
    }
    expect(fs.statSync(PANEL_BUNDLE).mtimeMs).to.equal(bundleBefore);
    expect(fs.existsSync(path.join(dataDir, '.adminjs')), 'AdminJS bundled at run time').to.equal(false);

    // Every migration was applied by the compiled process (dist/migrations/*.js).
    const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'pg-credentials.json'), 'utf8'));
    const db = new pg.Client({ ...creds, host: '127.0.0.1', database: 'leadflow' });
    await db.connect();
    const applied = await db
      .query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')
      .finally(() => db.end());
    expect(applied.rows.map((r) => r.name)).to.deep.equal(
      fs
        .readdirSync('dist/migrations')
        .filter((f) => f.endsWith('.js'))
        .map((f) => f.slice(0, -3))
        .sort(),
    );

    for (const child of [worker, web]) {
      child.kill('SIGTERM');
      expect(await exited(child), child.output.text).to.equal(0);
    }
  });
});
