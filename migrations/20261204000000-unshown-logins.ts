import type { Migration } from '../src/db/migrator.js';

/**
 * Logins whose generated password was never shown (src/seed.ts): the first-start seed records its admin here in its
 * transaction and removes the row once the logins are printed. A start that finds a row whose password is still the
 * same says how to set one (`npm run -s cli -- user:password`). A database seeded in parts by an earlier version and
 * stopped midway (an admin and the demo seller, no demo agent: its logins were never printed) gets its admin recorded.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE unshown_logins (
      user_id integer PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      password_hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  await db.query(`
    INSERT INTO unshown_logins (user_id, password_hash)
    SELECT id, password_hash FROM users
     WHERE role = 'admin'
       AND EXISTS (SELECT 1 FROM users WHERE lower(email) = 'seller@demo.test')
       AND NOT EXISTS (SELECT 1 FROM users WHERE lower(email) = 'agent@demo.test')
     ORDER BY id LIMIT 1`);
};

export const down: Migration = async ({ context: db }) => {
  await db.query('DROP TABLE unshown_logins');
};
