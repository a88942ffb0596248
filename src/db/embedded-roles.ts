import crypto from 'node:crypto';
import pg from 'pg';

/** The bootstrap superuser (initdb's) and the server's port, kept in DATA_DIR/pg-credentials.json. */
export interface Credentials {
  user: string;
  password: string;
  port: number;
}

export const APP_ROLE = 'leadflow_app';
// Serialises the role and database preparation of processes starting together on one server.
const PREPARE_LOCK = 7_325_001;

export function urlFor(c: Credentials, database: string): string {
  return `postgres://${c.user}:${encodeURIComponent(c.password)}@127.0.0.1:${c.port}/${database}`;
}

export function urlAs(c: Credentials, role: { user: string; password: string }, database: string): string {
  return urlFor({ ...c, ...role }, database);
}

/**
 * The application's role and database, made or brought up to date by the superuser: a role that is neither a
 * superuser nor may create roles or databases, allowed to set session_replication_role (the batch parent checks of
 * lead inserts), owning the database and every object of its public schema. A data directory from before this role
 * existed has its objects owned by the superuser; they are handed over one by one (REASSIGN OWNED cannot be used: the
 * bootstrap superuser also owns the system catalogs). Objects that belong to an extension stay with it.
 */
export async function prepareDatabase(
  c: Credentials,
  app: { user: string; password: string },
  database: string,
): Promise<void> {
  const role = pg.escapeIdentifier(app.user);
  const db = pg.escapeIdentifier(database);
  const admin = new pg.Client({ connectionString: urlFor(c, 'postgres') });
  admin.on('error', () => {}); // surfaces through the queries below
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [PREPARE_LOCK]);
    const { rowCount: hasRole } = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [app.user]);
    const password = pg.escapeLiteral(app.password);
    await admin.query(
      `${hasRole ? 'ALTER' : 'CREATE'} ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${password}`,
    );
    await admin.query(`GRANT SET ON PARAMETER session_replication_role TO ${role}`);
    const { rowCount: hasDb } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    await admin.query(hasDb ? `ALTER DATABASE ${db} OWNER TO ${role}` : `CREATE DATABASE ${db} OWNER ${role}`);
    if (hasDb) await handOver(urlFor(c, database), app.user);
  } finally {
    await admin.end();
  }
}

/**
 * Every object of the public schema (the schema too) not owned by `owner` and not part of an extension, given to it.
 */
async function handOver(adminUrl: string, owner: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ stmt: string }>(
      `WITH target AS (SELECT oid FROM pg_roles WHERE rolname = $1), ns AS (SELECT 'public'::regnamespace AS oid),
       extension_member AS (SELECT classid, objid FROM pg_depend WHERE deptype = 'e')
       SELECT format('ALTER SCHEMA public OWNER TO %I', $1) AS stmt, 0 AS step FROM pg_namespace
        WHERE oid = (SELECT oid FROM ns) AND nspowner NOT IN ((SELECT oid FROM target), 'pg_database_owner'::regrole)
       UNION ALL
       SELECT format('ALTER %s %s OWNER TO %I', CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, c.oid::regclass, $1), 1
         FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM ns) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
          AND c.relowner <> (SELECT oid FROM target)
          AND NOT EXISTS (SELECT 1 FROM extension_member e WHERE e.classid = 'pg_class'::regclass AND e.objid = c.oid)
       UNION ALL
       -- sequences owned by a column follow their table; the others are handed over after the tables
       SELECT format('ALTER SEQUENCE %s OWNER TO %I', c.oid::regclass, $1), 2
         FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM ns) AND c.relkind = 'S'
          AND c.relowner <> (SELECT oid FROM target)
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                             AND d.deptype IN ('a', 'i', 'e'))
       UNION ALL
       SELECT format('ALTER %s %s OWNER TO %I', CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END,
                t.oid::regtype, $1), 3
         FROM pg_type t WHERE t.typnamespace = (SELECT oid FROM ns) AND t.typtype IN ('e', 'd')
          AND t.typowner <> (SELECT oid FROM target)
          AND NOT EXISTS (SELECT 1 FROM extension_member e WHERE e.classid = 'pg_type'::regclass AND e.objid = t.oid)
       UNION ALL
       SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, $1), 4
         FROM pg_proc p WHERE p.pronamespace = (SELECT oid FROM ns) AND p.proowner <> (SELECT oid FROM target)
          AND NOT EXISTS (SELECT 1 FROM extension_member e WHERE e.classid = 'pg_proc'::regclass AND e.objid = p.oid)
       ORDER BY step`,
      [owner],
    );
    if (!rows.length) return;
    await client.query('BEGIN');
    for (const { stmt } of rows) await client.query(stmt);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}

/** The first directory on the way to `target` that other users may not enter (the server's user is one of them). */

/** The application's role; its password is derived from the superuser's, so every process starting on a directory
 * agrees on it without a write. */
export function appRole(c: Credentials): { user: string; password: string } {
  return { user: APP_ROLE, password: crypto.createHmac('sha256', c.password).update(APP_ROLE).digest('base64url') };
}
