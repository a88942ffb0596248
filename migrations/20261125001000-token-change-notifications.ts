import type { Migration } from '../src/db/migrator.js';

/**
 * Every web process keeps the tokens it has resolved in memory (src/tokens/token-cache.ts); a change that can make a
 * token refuse (a revocation, new scopes or expiry, its owner deactivated, demoted, moved or deleted) notifies
 * `api_tokens_changed` when it commits, and every process forgets what it remembered. Only the columns an actor is
 * built from fire it: the once-a-minute `last_used_at` touch and a login's bookkeeping do not empty the caches.
 */
export const up: Migration = async ({ context: db }) => {
  await db.query(`
    CREATE FUNCTION notify_api_tokens_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('api_tokens_changed', TG_TABLE_NAME);
      RETURN NULL;
    END $$;
    CREATE TRIGGER api_tokens_changed
      AFTER UPDATE OF id, account_id, user_id, name, token_hash, scopes, expires_at OR DELETE OR TRUNCATE ON api_tokens
      FOR EACH STATEMENT EXECUTE FUNCTION notify_api_tokens_changed();
    CREATE TRIGGER users_changed_tokens
      AFTER UPDATE OF id, account_id, name, role, active OR DELETE OR TRUNCATE ON users
      FOR EACH STATEMENT EXECUTE FUNCTION notify_api_tokens_changed();
  `);
};

export const down: Migration = async ({ context: db }) => {
  await db.query(`
    DROP TRIGGER users_changed_tokens ON users;
    DROP TRIGGER api_tokens_changed ON api_tokens;
    DROP FUNCTION notify_api_tokens_changed();
  `);
};
