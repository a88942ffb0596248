import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { exited, randomPort, runMain, sellerToken, waitFor } from '../processes.js';

/**
 * Two processes on one DATA_DIR: the one that started the embedded PostgreSQL stops, and the other takes the running
 * server over (an info line says so) instead of waiting for it to be restarted; the last one to stop stops it.
 */

const postmasterPid = (dataDir: string) =>
  Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
const parentOf = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** GET /leads every 20 ms until stopped, keeping each answer's status and when it came. */
function readLoad(base: string, token: string) {
  const answers: { at: number; status: number }[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const res = await fetch(`${base}/api/web/1.0/leads`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      }).catch(() => null);
      answers.push({ at: Date.now(), status: res?.status ?? 0 });
      await res?.arrayBuffer();
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    answers,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

describe('embedded server hand-over', () => {
  let dataDir = '';
  after(() => {
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('When the process that owns the embedded server stops, Then another process on the same DATA_DIR takes it over within 1 s with an info line, and serves with under 1 s of 503', async function () {
    this.timeout(180_000);
    if (process.env.DATABASE_URL) this.skip(); // the embedded server is the point
    fs.mkdirSync('data', { recursive: true });
    dataDir = fs.mkdtempSync(path.resolve('data', 'handover-'));
    fs.chmodSync(dataDir, 0o711); // run as root, the embedded server's user must enter it
    const { token } = await sellerToken({ DATA_DIR: dataDir }, 'VIEW LEADS');
    const env = { DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '100000' };
    const [portA, portB] = [randomPort(), randomPort() + 1];
    const first = runMain({ ...env, PORT: String(portA) }, ['--role', 'web']);
    let second: ReturnType<typeof runMain> | null = null;
    try {
      const ready = (port: number) => async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200;
      expect(await waitFor(ready(portA), 60_000), first.output.text).to.equal(true);
      second = runMain({ ...env, PORT: String(portB), RATE_LIMIT_ACCOUNT_PER_MINUTE: '100000' }, ['--role', 'web']);
      expect(await waitFor(ready(portB), 60_000), second.output.text).to.equal(true);
      const server = postmasterPid(dataDir);
      expect(parentOf(server), 'the first process started the server').to.equal(first.pid);

      const load = readLoad(`http://127.0.0.1:${portB}`, token);
      // the load is being served before the owner stops
      expect(
        await waitFor(async () => load.answers.filter((a) => a.status === 200).length >= 10, 30_000),
        `answers before the stop: ${JSON.stringify(load.answers.slice(-5))}`,
      ).to.equal(true);
      const stoppedAt = Date.now();
      first.kill('SIGTERM');
      expect(await exited(first), first.output.text).to.equal(0);
      const firstGone = Date.now();
      // until the hand-over is logged and the second process has served a few requests on its own
      const servedAfter = () => load.answers.filter((a) => a.at > firstGone && a.status === 200);
      await waitFor(
        async () =>
          /took over the embedded PostgreSQL/.test(second?.output.text ?? '') &&
          load.answers.filter((a) => a.at > stoppedAt).length > 10 &&
          servedAfter().length >= 5,
        30_000,
      );
      await load.stop();

      const line = second.output.text
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l))
        .find((l) => /took over the embedded PostgreSQL/.test(l.msg));
      expect(line, second.output.text).to.include({ level: 30 });
      expect(line.msg).to.include(`from process ${first.pid}`);
      expect(new Date(line.time).getTime()).to.be.within(stoppedAt, firstGone + 1000);
      expect(postmasterPid(dataDir), 'the same server runs on').to.equal(server);

      const after = load.answers.filter((a) => a.at > stoppedAt);
      // the load went on through the hand-over (how many requests a loaded 2-core machine answers varies: 44 to 70),
      // within the 3 s after the owner left that the test used to give it
      expect(after.length).to.be.above(10);
      expect(
        after[10].at - firstGone,
        'the 11th answer after the stop came within 3 s of the owner leaving',
      ).to.be.below(3000);
      expect(
        after.filter((a) => a.at > firstGone && a.status === 200).length,
        'served after the owner left',
      ).to.be.above(0);
      expect(servedAfter()[0].at - firstGone, 'first served within 3 s of the owner leaving').to.be.below(3000);
      expect(after.filter((a) => a.status !== 200 && a.status !== 503)).to.deep.equal([]);
      const unavailable = after.filter((a) => a.status === 503);
      const gap = unavailable.length ? unavailable[unavailable.length - 1].at - unavailable[0].at : 0;
      expect(gap, `503 from ${unavailable.length} requests`).to.be.below(1000);

      // the last process stops the server it took over: nothing is left running
      second.kill('SIGTERM');
      expect(await exited(second), second.output.text).to.equal(0);
      expect(await waitFor(async () => !alive(server), 20_000), 'the server stopped with the last process').to.equal(
        true,
      );
    } finally {
      for (const p of [first, second]) if (p && p.exitCode === null) p.kill('SIGKILL');
      await Promise.all([exited(first), second ? exited(second) : null]);
    }
  });
});
