import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { dataDirs, exited, randomPort, runCli, runMain, sellerToken, waitFor, expectReady } from '../processes.js';

/**
 * `npm run cli -- backup FILE` while the service writes, `restore FILE` into a new DATA_DIR, and a start on it: every
 * lead acknowledged before the backup's consistent point (which the CLI answers) is there. Real processes on an
 * embedded database of their own.
 */

/**
 * Four writers each POSTing 10 leads every 200 ms (≈ 200 leads a second) until stopped, keeping each acknowledged
 * reference and when its answer came (its commit came before).
 */
function writeLoad(base: string, token: string) {
  const acknowledged: { reference: string; at: number }[] = [];
  let running = true;
  let n = 0;
  const writer = async () => {
    while (running) {
      const started = Date.now();
      const leads = Array.from({ length: 10 }, () => ({
        phone: `+2126${String(10_000_000 + n++).padStart(8, '0')}`,
        full_name: `Backup ${n}`,
        city: 'Fes',
        products: [{ sku: 'SERUM-01', quantity: 1, price: 199 }],
      }));
      const res = await fetch(`${base}/api/web/1.0/leads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ leads }),
      }).catch(() => null);
      const at = Date.now();
      if (res?.status === 201)
        for (const reference of (await res.json()).references) acknowledged.push({ reference, at });
      await new Promise((r) => setTimeout(r, Math.max(0, started + 200 - Date.now())));
    }
  };
  const loops = Promise.all([writer(), writer(), writer(), writer()]);
  return {
    acknowledged,
    stop: async () => {
      running = false;
      await loops;
    },
  };
}

/** A superuser connection to the embedded server running on `dataDir` (port from its pid file). */
async function connectTo(dataDir: string) {
  const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'pg-credentials.json'), 'utf8'));
  const port = Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[3]);
  const client = new pg.Client({
    connectionString: `postgres://${creds.user}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/leadflow`,
  });
  await client.connect();
  return client;
}

describe('backup and restore', () => {
  const { newDir, removeAll } = dataDirs();
  after(() => {
    removeAll();
  });

  it('When a backup is taken while about 200 leads a second are written, Then a restore into a new DATA_DIR starts with every lead committed before its consistent point', async function () {
    this.timeout(480_000);
    if (process.env.DATABASE_URL) this.skip(); // the embedded database is what the CLI backs up
    const dataDir = newDir('backup-');
    const file = path.join(newDir('backup-file-'), 'leadflow.backup');
    const { token } = await sellerToken({ DATA_DIR: dataDir }, 'CREATE LEADS,VIEW LEADS');
    fs.mkdirSync(path.join(dataDir, 'exports', '2'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'exports', '2', 'leads.csv'), 'phone\n+212600000000\n');
    const port = randomPort();
    const env = { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '100000' };
    const app = runMain({ ...env, RATE_LIMIT_ACCOUNT_PER_MINUTE: '100000' });
    const base = `http://127.0.0.1:${port}`;
    let restoredApp: ReturnType<typeof runMain> | null = null;
    try {
      await expectReady(base, app);
      const load = writeLoad(base, token);
      // the writes are under way (≈ 1 s of them) before the backup starts
      expect(
        await waitFor(async () => load.acknowledged.length >= 200, 30_000),
        `${load.acknowledged.length} leads acknowledged`,
      ).to.equal(true);
      const backupStarted = Date.now();
      const backup = await runCli({ DATA_DIR: dataDir }, ['backup', file]);
      const backupEnded = Date.now();
      // and go on after it
      expect(
        await waitFor(async () => load.acknowledged.some((a) => a.at > backupEnded), 30_000),
        'leads acknowledged after the backup',
      ).to.equal(true);
      await load.stop();
      const consistentAt = new Date(backup.consistent_at).getTime();
      expect(consistentAt).to.be.within(backupStarted, backupEnded);
      const before = load.acknowledged.filter((a) => a.at < consistentAt).map((a) => a.reference);
      const during = load.acknowledged.filter((a) => a.at > backupStarted && a.at < consistentAt);
      // (the write rate is the machine's, not the backup's: what matters is that writes went on while it ran)
      expect(during.length, 'leads were written while the backup ran').to.be.above(20);
      expect(fs.statSync(file).mode & 0o777).to.equal(0o600);

      // into a DATA_DIR that is not empty: refused, nothing touched
      const refused = await runCli({ DATA_DIR: dataDir }, ['restore', file]).catch((err: Error) => err);
      expect(String(refused)).to.match(/is not empty: a restore writes only into an empty/);

      const target = path.join(newDir('restored-'), 'data');
      const restored = await runCli({ DATA_DIR: target }, ['restore', file]);
      expect(restored.consistent_at).to.equal(backup.consistent_at);
      expect(restored.leads).to.be.at.least(before.length);
      expect(fs.readFileSync(path.join(target, 'exports', '2', 'leads.csv'), 'utf8')).to.include('+212600000000');

      const port2 = randomPort();
      restoredApp = runMain({ ...env, DATA_DIR: target, PORT: String(port2) });
      expect(
        await waitFor(async () => (await fetch(`http://127.0.0.1:${port2}/health/ready`)).status === 200, 60_000),
        restoredApp.output.text,
      ).to.equal(true);
      const client = await connectTo(target);
      try {
        const { rows } = await client.query('SELECT reference FROM leads WHERE reference = ANY($1)', [before]);
        const found = new Set(rows.map((r) => r.reference));
        expect(
          before.filter((r) => !found.has(r)),
          'leads committed before the backup end missing',
        ).to.deep.equal([]);
      } finally {
        await client.end();
      }
      const login = await fetch(`http://127.0.0.1:${port2}/api/web/1.0/leads`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      });
      expect(login.status, 'the restored install accepts the same API token').to.equal(200);
    } finally {
      for (const p of [app, restoredApp]) if (p && p.exitCode === null) p.kill('SIGTERM');
      await Promise.all([exited(app), restoredApp ? exited(restoredApp) : null]);
    }
  });

  it('When FILE.partial is already there (a symlink), Then backup refuses in one line naming it and follows nothing', async function () {
    this.timeout(120_000);
    if (process.env.DATABASE_URL) this.skip(); // the embedded database is what the CLI backs up
    const dataDir = newDir('backup-partial-');
    await runCli({ DATA_DIR: dataDir }, ['migrate']);
    const dir = newDir('backup-file-');
    const file = path.join(dir, 'leadflow.backup');
    const aimed = path.join(dir, 'someone-elses-file');
    fs.writeFileSync(aimed, 'not a backup\n');
    fs.symlinkSync(aimed, `${file}.partial`);
    const err = String(await runCli({ DATA_DIR: dataDir }, ['backup', file]).catch((e: Error) => e));
    expect(err).to.match(/^Error: cli backup exited 1: /);
    const said = err.replace(/^Error: cli backup exited 1: /, '').trim();
    const lines = said.split('\n').filter((l) => !l.startsWith('{')); // stderr, then --json's object
    expect(lines, said).to.deep.equal([
      `${file}.partial already exists (a backup cut short, or not ours): remove it, or name another file for the backup`,
    ]);
    expect(fs.readFileSync(aimed, 'utf8'), 'the file the link points at').to.equal('not a backup\n');
    expect(fs.lstatSync(`${file}.partial`).isSymbolicLink(), 'the link left as it was').to.equal(true);
    expect(fs.existsSync(file)).to.equal(false);
  });

  it('When DATABASE_URL is set, Then backup and restore say to use the database provider tools and exit non-zero', async function () {
    this.timeout(60_000);
    const env = { DATABASE_URL: 'postgres://someone@127.0.0.1:1/leadflow' };
    for (const command of ['backup', 'restore']) {
      const err = await runCli(env, [command, '/tmp/never-written.backup']).catch((e: Error) => e);
      expect(String(err)).to.match(/exited 1: DATABASE_URL is set: .*pg_dump -Fc/);
    }
    expect(fs.existsSync('/tmp/never-written.backup')).to.equal(false);
  });
});
