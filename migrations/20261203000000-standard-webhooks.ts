import type { Migration } from '../src/db/migrator.js';
import { CLAIM_FUNCTION } from './20261202000000-webhook-events.js';

/**
 * Standard Webhooks signatures (issue 30, docs/webhooks.md "Upgrading from the first signature"). A secret is now
 * `whsec_` + the base64 of the key's bytes, and the key is those bytes. The secrets issued before were keyed with the
 * whole `whsec_…` string: each is rewritten as `whsec_` + base64(that string), so its key does not change. A
 * rotation keeps the replaced secret signing beside the new one until `rotation_grace_until`; the claim answers both
 * (`secrets`, newest first) while the old one is in its grace period.
 */
const OLD_SECRET = `'^whsec_[A-Za-z0-9_-]{43}$'`;

const RETURNS_OLD = 'url varchar, secret varchar, claim text';
const RETURNS_NEW = 'url varchar, secrets varchar[], claim text';
const RETURNING_OLD = 'w.url,\n                w.secret, d.locked_until::text;';
const RETURNING_NEW = `w.url,
                CASE WHEN w.rotation_grace_until > now() THEN ARRAY[w.secret, w.previous_secret]
                     ELSE ARRAY[w.secret] END::varchar[], d.locked_until::text;`;

function claimFunction(): string {
  if (!CLAIM_FUNCTION.includes(RETURNS_OLD) || !CLAIM_FUNCTION.includes(RETURNING_OLD))
    throw new Error('webhook_claim is not the function this migration rewrites');
  return CLAIM_FUNCTION.replace(RETURNS_OLD, RETURNS_NEW).replace(RETURNING_OLD, RETURNING_NEW);
}

const DROP_CLAIM = 'DROP FUNCTION webhook_claim(integer, double precision, integer, integer)';

export const up: Migration = async ({ context: db }) => {
  await db.query(`
    ALTER TABLE webhook_endpoints
      ADD COLUMN previous_secret varchar(100),
      ADD COLUMN rotation_grace_until timestamptz`);
  await db.query(`
    UPDATE webhook_endpoints
       SET secret = 'whsec_' || translate(encode(convert_to(secret, 'UTF8'), 'base64'), E'\\n', '')
     WHERE secret ~ ${OLD_SECRET}`);
  await db.query(DROP_CLAIM);
  await db.query(claimFunction());
};

/**
 * Back to one secret used whole as the key: converted secrets (`whsec_` + base64 of `whsec_…`, whose base64 starts
 * `d2hzZWNf`) are decoded again; a secret issued since keeps its text, which is then the key; a rotation's old one goes.
 */
export const down: Migration = async ({ context: db }) => {
  await db.query(DROP_CLAIM);
  await db.query(CLAIM_FUNCTION);
  await db.query(`
    UPDATE webhook_endpoints SET secret = convert_from(decode(substr(secret, 7), 'base64'), 'UTF8')
     WHERE secret LIKE 'whsec\\_d2hzZWNf%' AND length(secret) = 74`);
  await db.query('ALTER TABLE webhook_endpoints DROP COLUMN previous_secret, DROP COLUMN rotation_grace_until');
};
