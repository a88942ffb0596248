import { expect } from 'chai';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { writeRestoredConfig } from '../../src/db/backup-config.js';
import { restoreBackup } from '../../src/db/backup.js';
import { dataDirs, runCli } from '../processes.js';

/**
 * Issue 40, finding 4: a tampered backup must not make `backup:check` or `restore` run anything. One real backup (made
 * by the CLI on a new embedded install), rewritten into tampered copies: a restore_command with a recovery.signal, an
 * archive_command in postgresql.auto.conf (each with its manifest rewritten to match, as an attacker would), files
 * changed, added and removed behind the manifest, a backup without a manifest, a symbolic link. Each is refused, the
 * marker file their commands would make never appears, the target and the live DATA_DIR are untouched. An untampered
 * backup checks; a copy with loosened modes and a `trust` pg_hba.conf restores with 0600/0700 and its own config.
 */

type Entry = { header: Partial<tar.Header> & { name: string }; data: Buffer };
const MANIFEST = 'leadflow-backup.json';

async function readEntries(file: string): Promise<Entry[]> {
  const extract = tar.extract();
  const entries: Entry[] = [];
  const feeding = pipeline(fs.createReadStream(file), zlib.createGunzip(), extract);
  for await (const entry of extract) entries.push({ header: { ...entry.header }, data: await buffer(entry) });
  await feeding;
  return entries;
}

/** Writes `entries` as a backup; `resign` rewrites the manifest's list to match them (what a tamperer can do). */
async function writeEntries(file: string, entries: Entry[], resign: boolean): Promise<string> {
  const pack = tar.pack();
  const written = pipeline(pack, zlib.createGzip({ level: 1 }), fs.createWriteStream(file));
  for (const { header, data } of entries) {
    let body = data;
    if (header.name === MANIFEST && resign) {
      const manifest = JSON.parse(data.toString());
      manifest.entries = entries
        .filter((e) => e.header.name !== MANIFEST)
        .map(({ header: h, data: d }) =>
          h.type === 'directory'
            ? { path: h.name, type: 'directory', size: 0 }
            : {
                path: h.name,
                type: 'file',
                size: d.length,
                sha256: crypto.createHash('sha256').update(d).digest('hex'),
              },
        );
      body = Buffer.from(JSON.stringify(manifest));
    }
    const isFile = header.type === 'file';
    pack.entry({ ...header, size: isFile ? body.length : 0 }, isFile ? body : '');
  }
  pack.finalize();
  await written;
  return file;
}

const file = (name: string, text: string, mode = 0o600): Entry => ({
  header: { name, type: 'file', mode, size: 0, mtime: new Date() },
  data: Buffer.from(text),
});
const append = (entries: Entry[], name: string, text: string) =>
  entries.map((e) => (e.header.name === name ? { ...e, data: Buffer.concat([e.data, Buffer.from(text)]) } : e));
/** The entries with `more` first (a refusal while unpacking comes at once; where they are does not matter). */
const plus = (entries: Entry[], ...more: Entry[]) => [...more, ...entries];

/** Every directory and file under `root` (root aside) with its mode. */
function modes(root: string, rel = ''): { path: string; dir: boolean; mode: number }[] {
  return fs.readdirSync(path.join(root, rel), { withFileTypes: true }).flatMap((d) => {
    const r = rel ? `${rel}/${d.name}` : d.name;
    const mode = fs.lstatSync(path.join(root, r)).mode & 0o777;
    return d.isDirectory() ? [{ path: r, dir: true, mode }, ...modes(root, r)] : [{ path: r, dir: false, mode }];
  });
}

describe('backup: a tampered backup is refused (issue 40, finding 4)', () => {
  const { newDir, removeAll } = dataDirs();
  const marker = `/tmp/pwned-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  const touch = `'touch ${marker}'`;
  let live: string;
  let work: string;
  let original: string;
  let entries: Entry[];
  let liveAutoConf: string;

  before(async function () {
    this.timeout(120_000);
    if (process.env.DATABASE_URL) this.skip(); // the embedded database is what the CLI backs up
    live = path.join(newDir('tampered-live-'), 'data');
    work = newDir('tampered-files-');
    await runCli({ DATA_DIR: live }, ['migrate']);
    fs.mkdirSync(path.join(live, 'exports', '2'), { recursive: true });
    fs.writeFileSync(path.join(live, 'exports', '2', 'leads.csv'), 'phone\n+212600000000\n');
    original = path.join(work, 'original.backup');
    await runCli({ DATA_DIR: live }, ['backup', original]);
    entries = await readEntries(original);
    liveAutoConf = fs.readFileSync(path.join(live, 'pg', 'postgresql.auto.conf'), 'utf8');
  });
  after(() => {
    removeAll();
    fs.rmSync(marker, { force: true });
  });

  /** `restore` into a new DATA_DIR and `backup:check` of `backup` both exit 1 with `pattern`; nothing was run. */
  async function expectRefused(
    backup: string,
    pattern: RegExp,
    commands = ['restore', 'backup:check'],
    extra: string[] = [],
  ) {
    for (const command of commands) {
      const target = path.join(newDir('tampered-target-'), 'data');
      const err = await runCli({ DATA_DIR: target }, [command, backup, ...extra]).catch((e: Error) => e);
      const line = String(err).split('\n')[0]; // the message is one line (its JSON form follows)
      expect(line, command).to.match(/exited 1: .* is not a LeadFlow backup that can be restored: /);
      expect(line, command).to.match(pattern);
      expect(fs.existsSync(target) ? fs.readdirSync(target) : [], `${command}: the target holds nothing`).to.deep.equal(
        [],
      );
    }
    expect(fs.existsSync(marker), 'the command in the backup ran').to.equal(false);
    expect(fs.readFileSync(path.join(live, 'pg', 'postgresql.auto.conf'), 'utf8')).to.equal(liveAutoConf);
    expect(fs.existsSync(path.join(live, 'pg', 'recovery.signal'))).to.equal(false);
  }

  it('When a backup holds a recovery.signal and a restore_command (manifest rewritten to match), Then restore and backup:check refuse it and run nothing', async function () {
    this.timeout(60_000);
    const tampered = plus(
      append(entries, 'pg/postgresql.auto.conf', `restore_command = ${touch}\n`),
      file('pg/recovery.signal', ''),
    );
    await expectRefused(
      await writeEntries(path.join(work, 'recovery.backup'), tampered, true),
      /it holds pg\/recovery\.signal: a restore never starts a backup in recovery/,
    );
  });

  it('When a backup sets archive_command in postgresql.auto.conf (manifest rewritten to match), Then restore and backup:check refuse it naming the setting', async function () {
    this.timeout(60_000);
    const tampered = append(entries, 'pg/postgresql.auto.conf', `archive_mode = on\narchive_command = ${touch}\n`);
    await expectRefused(
      await writeEntries(path.join(work, 'archive.backup'), tampered, true),
      /pg\/postgresql\.auto\.conf sets archive_mode: a restore never runs a command/,
    );
  });

  it('When files are changed, added or removed behind the manifest, Then backup:check refuses naming each', async function () {
    this.timeout(60_000);
    const tampered = plus(
      append(entries, 'session-secret', 'x').filter((e) => e.header.name !== 'exports/2/leads.csv'),
      file('uploads/evil.csv', 'phone\n'),
    );
    await expectRefused(
      await writeEntries(path.join(work, 'changed.backup'), tampered, false),
      /its files do not match its manifest \(3\): changed: session-secret, missing: exports\/2\/leads\.csv, added: uploads\/evil\.csv$/,
      ['backup:check'],
    );
  });

  it('When a backup has no manifest list (made before it existed), Then it is refused unless --unverified, and its configuration is checked all the same', async function () {
    this.timeout(60_000);
    const old = entries.map((e) =>
      e.header.name === MANIFEST
        ? {
            ...e,
            data: Buffer.from(
              JSON.stringify({ ...JSON.parse(e.data.toString()), format: 'leadflow-backup/1', entries: undefined }),
            ),
          }
        : e,
    );
    await expectRefused(
      await writeEntries(path.join(work, 'old.backup'), old, false),
      /made before backups carried a manifest .* add --unverified/,
      ['backup:check'],
    );
    const oldTampered = append(old, 'pg/postgresql.auto.conf', `archive_command = ${touch}\n`);
    await expectRefused(
      await writeEntries(path.join(work, 'old-tampered.backup'), oldTampered, false),
      /sets archive_command/,
      ['restore'],
      ['--unverified'],
    );
  });

  it('When a backup holds a link, an absolute or ../ path, a signal, a tablespace or a file foreign to a data directory, Then a restore refuses it naming the entry', async function () {
    this.timeout(60_000);
    const link = (name: string, type: 'symlink' | 'link', linkname: string): Entry => ({
      header: { name, type, linkname, mode: 0o777, size: 0, mtime: new Date() },
      data: Buffer.alloc(0),
    });
    const dir = (name: string): Entry => ({
      header: { name, type: 'directory', mode: 0o700, mtime: new Date() },
      data: Buffer.alloc(0),
    });
    const cases: [Entry[], RegExp][] = [
      [
        [link('uploads/passwd', 'symlink', '/etc/passwd')],
        /an entry a restore does not write: uploads\/passwd \(symlink\)/,
      ],
      [
        [link('uploads/creds', 'link', 'pg-credentials.json')],
        /an entry a restore does not write: uploads\/creds \(link\)/,
      ],
      [[file('/tmp/leadflow-absolute', '')], /an entry a restore does not write: \/tmp\/leadflow-absolute/],
      [[file('uploads/../../escaped', '')], /an entry a restore does not write: uploads\/\.\.\/\.\.\/escaped/],
      [
        [file('pg/standby.signal', '')],
        /it holds pg\/standby\.signal: a restore never starts a backup in recovery or as a standby/,
      ],
      [[file('pg/tablespace_map', '16385 /tmp\n')], /it holds pg\/tablespace_map: a tablespace link/],
      [[dir('pg/pg_tblspc/16385')], /it holds pg\/pg_tblspc\/16385: a tablespace link/],
      [[file('pg/evil.so', '')], /it holds pg\/evil\.so: not part of a PostgreSQL data directory/],
      [[dir('pg/conf.d')], /it holds pg\/conf\.d: not part of a PostgreSQL data directory/],
      [[dir('session-secret')], /it holds session-secret: a directory where a backup has a file/],
    ];
    for (const [i, [extra, pattern]] of cases.entries()) {
      const backup = await writeEntries(path.join(work, `entry-${i}.backup`), plus(entries.slice(-1), ...extra), true);
      const target = path.join(newDir('tampered-entry-'), 'data');
      const err = await restoreBackup(backup, target).catch((e: Error) => e);
      expect(String(err)).to.match(pattern);
      expect(fs.readdirSync(target)).to.deep.equal([]);
    }
  });

  it("When a backup's postgresql.conf names a library, a file, an include or an odd value, Then its configuration is refused; other settings are dropped", () => {
    const pgDir = path.join(newDir('tampered-conf-'), 'pg');
    fs.mkdirSync(pgDir);
    const confWith = (line: string) => {
      fs.writeFileSync(path.join(pgDir, 'postgresql.conf'), `# a comment\ntimezone = 'Etc/UTC'  # zone\n${line}\n`);
      return () => writeRestoredConfig(pgDir);
    };
    for (const [line, pattern] of [
      ["shared_preload_libraries = 'auto_explain'", /sets shared_preload_libraries/],
      ["include_dir 'conf.d'", /sets include_dir/],
      ["ssl_cert_file = '/etc/ssl/x.pem'", /sets ssl_cert_file/],
      ["dynamic_library_path = '/tmp'", /sets dynamic_library_path/],
      ["Archive_Command = 'true'", /sets archive_command/],
      ["timezone = 'x' 'y'", /line 3 is not a setting a restore can read/],
      ["lc_messages = 'C''; x'", /sets lc_messages to a value a restore does not carry over/],
    ] as const)
      expect(confWith(line), line).to.throw(pattern);
    expect(confWith("work_mem = '64MB'")()).to.deep.equal({ dropped: ['work_mem'] });
    expect(fs.readFileSync(path.join(pgDir, 'postgresql.conf'), 'utf8')).to.match(/^timezone = 'Etc\/UTC'$/m);
  });

  it("When an untampered backup is checked, and a copy with loosened modes and a trust pg_hba.conf is restored, Then both succeed, files are 0600, directories 0700, and the configuration is the restore's own", async function () {
    this.timeout(120_000);
    const checked = await runCli({ DATA_DIR: live }, ['backup:check', original]);
    expect(checked).to.include({ ok: true, verified: true });
    expect(checked.migration).to.be.a('string');

    const loosened = append(
      append(entries, 'pg/pg_hba.conf', 'host all all 0.0.0.0/0 trust\n'),
      'pg/postgresql.conf',
      "work_mem = '64MB'\n",
    ).map((e) => ({ ...e, header: { ...e.header, mode: e.header.type === 'directory' ? 0o777 : 0o644 } }));
    const backup = await writeEntries(path.join(work, 'loosened.backup'), loosened, true);
    const target = path.join(newDir('tampered-restored-'), 'data');
    const restored = await runCli({ DATA_DIR: target }, ['restore', backup]);
    expect(restored).to.include({ verified: true });
    expect(restored.dropped_settings).to.deep.equal(['work_mem']);
    const loose = modes(target).filter((m) => m.mode !== (m.dir ? 0o700 : 0o600));
    expect(loose, 'modes other than 0700/0600').to.deep.equal([]);
    expect(fs.statSync(path.join(target, 'pg-credentials.json')).mode & 0o777).to.equal(0o600);
    const conf = (name: string) => fs.readFileSync(path.join(target, 'pg', name), 'utf8');
    expect(conf('pg_hba.conf')).not.to.include('trust');
    expect(conf('postgresql.conf')).to.match(/^timezone = /m);
    expect(conf('postgresql.conf')).not.to.include('work_mem');
    expect(conf('postgresql.auto.conf')).not.to.match(/^[a-z]/m);
    expect(fs.readFileSync(path.join(target, 'exports', '2', 'leads.csv'), 'utf8')).to.include('+212600000000');
  });
});
