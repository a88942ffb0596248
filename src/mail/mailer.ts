import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';
import { PRIVATE_FILE_MODE, privateDir } from '../private-files.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}
/**
 * A mail that could not be handed over. Its cause (a socket code such as ETIMEDOUT) stays inside: the mail server's
 * trouble must not read as the database's (isDatabaseUnavailable) or reach a client.
 */
export class MailError extends Error {
  constructor(cause: unknown) {
    super(`mail could not be sent: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'MailError';
  }
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/**
 * SMTP when SMTP_URL is set; otherwise every mail is written as JSON to DATA_DIR/outbox (read by tests and developers).
 */
export function createMailer(config: Readonly<Config>): Mailer {
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport(config.smtpUrl);
    return {
      async send(m) {
        await transport.sendMail({ from: config.mailFrom, ...m }).catch((err) => {
          throw new MailError(err);
        });
      },
    };
  }
  const dir = path.join(config.dataDir, 'outbox');
  return {
    async send(m) {
      // A mail may carry a live reset link: readable by the service's user only.
      await privateDir(dir);
      const file = path.join(dir, `${Date.now()}-${crypto.randomBytes(4).toString('hex')}.json`);
      await fs.writeFile(
        file,
        JSON.stringify({ from: config.mailFrom, ...m, date: new Date().toISOString() }, null, 2),
        { mode: PRIVATE_FILE_MODE },
      );
    },
  };
}
