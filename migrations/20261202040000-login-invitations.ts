import type { Migration } from '../src/db/migrator.js';

/**
 * Invitations to a login of an account (src/auth/add-login.ts): a seller's "add a login" mails a link instead of
 * creating the user, so its answer is the same whether the address is free or another tenant's login. Only the hash
 * of the link's token is stored, as for password resets.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE TABLE login_invitations (
      id serial PRIMARY KEY,
      account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      email varchar(254) NOT NULL,
      name varchar(100) NOT NULL,
      role varchar(20) NOT NULL,
      token_hash char(64) NOT NULL UNIQUE,
      invited_by integer REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      accepted_at timestamptz,
      void_at timestamptz
    )`);
  await db.query('CREATE INDEX login_invitations_account_email ON login_invitations (account_id, lower(email))');
};

export const down: Migration = async ({ context: db }) => {
  await db.query('DROP TABLE login_invitations');
};
