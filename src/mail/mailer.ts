import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
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
        await transport.sendMail({ from: config.mailFrom, ...m });
      },
    };
  }
  const dir = path.join(config.dataDir, 'outbox');
  return {
    async send(m) {
      await fs.mkdir(dir, { recursive: true });
      const file = path.join(dir, `${Date.now()}-${crypto.randomBytes(4).toString('hex')}.json`);
      await fs.writeFile(
        file,
        JSON.stringify({ from: config.mailFrom, ...m, date: new Date().toISOString() }, null, 2),
      );
    },
  };
}
