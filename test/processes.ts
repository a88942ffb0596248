import pg from 'pg';
import { getCtx } from './hooks.js';

export { exited, randomPort, runCli, runMain, waitFor } from './spawn.js';

/** An empty database beside the suite's own, on the same server; `drop()` removes it. */
export async function freshDatabase(suffix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${new URL(getCtx().db.url).pathname.slice(1)}_${suffix}`;
  const admin = new pg.Client({ connectionString: getCtx().db.url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(getCtx().db.url);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
      await admin.end();
    },
  };
}
