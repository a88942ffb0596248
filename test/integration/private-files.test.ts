import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createMailer } from '../../src/mail/mailer.js';
import { createServices } from '../../src/services.js';
import { makeAccount } from '../factories.js';
import { getCtx } from '../hooks.js';
import { exited, freshDatabase, randomPort, runMain, waitFor } from '../processes.js';

const PRIVATE_DATA_DIRS = ['exports', 'uploads', 'outbox'];

/** Every directory and file under DATA_DIR's private directories, with its permission bits (octal). */
function modesUnder(dataDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    out[path.relative(dataDir, p) + (st.isDirectory() ? '/' : '')] = (st.mode & 0o777).toString(8);
    if (st.isDirectory()) for (const name of fs.readdirSync(p)) walk(path.join(p, name));
  };
  for (const name of PRIVATE_DATA_DIRS) if (fs.existsSync(path.join(dataDir, name))) walk(path.join(dataDir, name));
  return out;
}

/** The modes a user of the machine other than the service's would need to read anything: none may be there. */
function readableByOthers(modes: Record<string, string>): string[] {
  return Object.entries(modes)
    .filter(([p, m]) => m !== (p.endsWith('/') ? '700' : '600'))
    .map(([p, m]) => `${p} ${m}`);
}

describe('private files under DATA_DIR (exports, uploads, mail outbox)', function () {
  this.timeout(60_000);

  it('When an export, an upload and a mail are written, Then their directories are 0700 and their files 0600', async () => {
    const ctx = getCtx();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lf-private-'));
    try {
      const config = { ...ctx.config, dataDir, smtpUrl: null };
      const services = createServices({ ...ctx, config });
      const acc = await makeAccount(ctx);
      for (const file_extension of ['csv', 'xlsx']) {
        const run = await services.exports.start(acc.seller.actor, { file_extension });
        await services.exports.run(run.id);
      }
      const upload = path.join(os.tmpdir(), `lf-upload-${process.pid}-${acc.id}.csv`);
      fs.writeFileSync(upload, `phone,sku\n+212600000001,${acc.skus.active[0]}\n`);
      const run = await services.imports.start(acc.seller.actor, { path: upload, originalname: 'leads.csv', size: 40 });
      // its file is removed with the directory below: the queued job must not pick the run up later
      await ctx.models.ImportRun.update({ status: 'failed' }, { where: { id: run.id } });
      await createMailer(config).send({ to: 'someone@example.com', subject: 'Reset', text: 'a live reset link' });

      const modes = modesUnder(dataDir);
      for (const dir of PRIVATE_DATA_DIRS)
        expect(
          Object.keys(modes).filter((p) => p.startsWith(`${dir}/`) && !p.endsWith('/')).length,
          dir,
        ).to.be.greaterThan(0);
      expect(readableByOthers(modes)).to.deep.equal([]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('When the service starts on a DATA_DIR whose exports, uploads and outbox were left readable, Then it makes them private', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lf-private-start-'));
    const db = await freshDatabase('private_files');
    try {
      for (const dir of ['exports/7', 'uploads/7', 'uploads/incoming', 'outbox']) {
        fs.mkdirSync(path.join(dataDir, dir), { recursive: true, mode: 0o755 });
        fs.chmodSync(path.join(dataDir, dir), 0o755);
        fs.chmodSync(path.join(dataDir, dir.split('/')[0]), 0o777);
        fs.writeFileSync(path.join(dataDir, dir, 'left.txt'), 'tenant data', { mode: 0o644 });
      }
      expect(readableByOthers(modesUnder(dataDir))).to.have.length(10);
      const port = await randomPort();
      const child = runMain({ DATA_DIR: dataDir, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1' }, [
        '--role',
        'web',
      ]);
      try {
        const ready = await waitFor(
          async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200,
          40_000,
        );
        expect(ready, child.output.text).to.equal(true);
        expect(readableByOthers(modesUnder(dataDir))).to.deep.equal([]);
      } finally {
        child.kill('SIGTERM');
        await exited(child);
      }
    } finally {
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
