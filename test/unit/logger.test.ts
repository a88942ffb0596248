import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import { DatabaseError } from 'sequelize';
import { errorRecord, terminalStream } from '../../src/logger.js';

describe('log records of errors', () => {
  it('keep the type, code and message of a failed batch insert, never its statement or bound parameters, and stay a few KB', () => {
    const phones = Array.from({ length: 5000 }, (_, i) => `+2126${String(i).padStart(8, '0')}`);
    const pgError = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      code: '22021',
      detail: `Failing row contains (${phones[0]}, Karim Haddad).`,
      sql: `INSERT INTO leads (phone) VALUES ${phones.map((_, i) => `($${i + 1})`).join(',')}`,
      parameters: phones,
    });
    const err = new DatabaseError(pgError as never);
    const lines: string[] = [];
    const logger = pino(
      { base: undefined, serializers: { err: errorRecord } },
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    logger.error({ err }, 'unhandled error');
    logger.error({ err: new Error('x'.repeat(100_000)) }, 'huge message');
    expect(lines).to.have.length(2);
    for (const line of lines) expect(line.length).to.be.below(4096);
    expect(lines[0]).to.not.include(phones[0]).and.not.include(phones[4999]).and.not.include('Karim');
    const record = JSON.parse(lines[0]).err;
    expect(record).to.include({
      type: 'SequelizeDatabaseError',
      code: '22021',
      message: 'invalid byte sequence for encoding "UTF8": 0x00',
    });
  });
});

describe('log records on a terminal (issue 41: the first start logins stay on the screen)', () => {
  it('When records go to a terminal, Then an access record is one short line and every other record one line', () => {
    let text = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        text += String(chunk);
        done();
      },
    });
    const logger = pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, terminalStream(sink, false));
    logger.info(
      { req_id: 'r-1', method: 'GET', route: '/admin/resources/{id}', status: 200, duration_ms: 12.3, account_id: 4 },
      'request',
    );
    logger.warn({ account_id: 4, detail: { a: 1 } }, 'something to read');
    const lines = text.trimEnd().split('\n');
    expect(lines, text).to.have.length(2);
    expect(lines[0]).to.match(/^\d\d:\d\d:\d\d\.\d{3} GET \/admin\/resources\/\{id\} 200 12\.3 ms$/);
    expect(lines[1]).to.match(/WARN.*something to read.*"account_id":4/);
  });
});
