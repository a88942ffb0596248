import crypto from 'node:crypto';
import { systemActor } from '../src/actor.js';
import type { AppContext } from '../app/context.js';
import { ConfigError } from '../src/config.js';
import { ValidationError } from '../src/errors.js';

type Flags = Record<string, string | boolean | undefined>;

/** Reads one line from the terminal without echoing it (raw mode); Ctrl-C or Ctrl-D gives up. */
function askHidden(question: string): Promise<string> {
  const input = process.stdin;
  // no echo before the question shows: what is typed as soon as it is on the screen is never printed
  input.setRawMode(true);
  process.stderr.write(question);
  input.resume();
  input.setEncoding('utf8');
  let typed = '';
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003' || ch === '\u0004') return done(new ConfigError('No password set.'));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else if (ch >= ' ') typed += ch;
      }
    };
    input.on('data', onData);
  });
}

/** Standard input up to its end, without the line end a pipe or `<<<` adds; a password over 1 KiB is refused. */
async function readStdin(): Promise<string> {
  let data = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    data += chunk;
    if (data.length > 1024) throw new ConfigError('--password-stdin: more than 1 KiB on standard input');
  }
  const password = data.replace(/\r?\n$/, '');
  if (!password || password.includes('\n'))
    throw new ConfigError('--password-stdin: give the password as one line on standard input');
  return password;
}

/** A password on the command line shows in the process list and stays in the shell history: refused, in one line. */
export function refusePasswordFlag(command: string, f: Flags): void {
  if (typeof f.password === 'string')
    throw new ConfigError(
      `${command} takes no --password (it would show in the process list and stay in the shell history): ` +
        'type it when asked, pipe it with --password-stdin, or use --generate',
    );
}

/**
 * A password from standard input with --password-stdin, typed twice on a terminal, or generated (printed once by the
 * caller) with --generate or when standard input is not a terminal.
 */
export async function newPassword(f: Flags): Promise<{ password: string; generated: boolean }> {
  if (f['password-stdin'] && !process.stdin.isTTY) return { password: await readStdin(), generated: false };
  if (f.generate || !process.stdin.isTTY)
    return { password: crypto.randomBytes(18).toString('base64url'), generated: true };
  const first = await askHidden('New password (at least 8 characters): ');
  const again = await askHidden('The same again: ');
  if (first !== again) throw new ConfigError('The two passwords differ; nothing was changed.');
  return { password: first, generated: false };
}

/**
 * `user:password --email E [--generate|--password-stdin] [--activate]`: sets a login's password through the same
 * service as the panel's user edit (accounts.updateUser), so it ends the user's sessions, API tokens and unused reset
 * links as every password change does (src/auth/credentials.ts). The password as newPassword takes it. --activate
 * also switches a deactivated login on.
 */
export async function setUserPassword(ctx: AppContext, f: Flags): Promise<object> {
  refusePasswordFlag('user:password', f);
  const email = typeof f.email === 'string' ? f.email : '';
  const user = await ctx.services.accounts.findUserByEmail(email);
  if (!user) throw ValidationError.single('email', 'No user has this email.');
  const { password, generated } = await newPassword(f);
  await ctx.services.accounts.updateUser(systemActor(), user.id, {
    password,
    ...(f.activate ? { active: true } : {}),
  });
  return {
    email: user.email,
    ...(generated ? { password } : {}),
    active: f.activate ? true : user.active,
  };
}
