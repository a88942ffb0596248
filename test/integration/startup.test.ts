import { expect } from 'chai';
import fs from 'node:fs';
import pg from 'pg';
import { Sequelize } from 'sequelize';
import { migrateDown, migrateUp } from '../../src/db/migrator.js';
import { freshDatabase } from '../processes.js';

const MIGRATION_LOCK_KEY = 727_001; // src/db/migrator.ts

describe('start-up', () => {
  describe('migrations on a restart', () => {
    it('When every migration is applied, Then migrateUp answers at once, even while another process holds the lock; When one is not, Then it waits for the lock and applies it', async function () {
      this.timeout(60_000);
      const db = await freshDatabase('restart');
      const seq = new Sequelize(db.url, { dialect: 'postgres', logging: false });
      const holder = new pg.Client({ connectionString: db.url });
      await holder.connect();
      try {
        const files = fs.readdirSync('migrations').filter((f) => f.endsWith('.ts'));
        expect(await migrateUp(seq, db.url)).to.have.length(files.length);
        await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
        const started = Date.now();
        expect(await migrateUp(seq, db.url)).to.deep.equal([]);
        expect(Date.now() - started).to.be.below(1000);

        await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
        const [reverted] = await migrateDown(seq, db.url);
        await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
        let applied: string[] | null = null;
        const pending = migrateUp(seq, db.url).then((names) => (applied = names));
        await new Promise((r) => setTimeout(r, 300));
        expect(applied, 'applied while another process held the migration lock').to.equal(null);
        await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
        expect(await pending).to.deep.equal([reverted]);
      } finally {
        await holder.end();
        await seq.close();
        await db.drop();
      }
    });
  });
});
