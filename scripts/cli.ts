import { parseArgs } from 'node:util';
import { systemActor, type Role, type Scope } from '../src/actor.js';
import { createAppContext, type AppContext } from '../app/context.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { migrateDown, migrateUp } from '../src/db/migrator.js';
import { AppError, ValidationError } from '../src/errors.js';
import { createLogger } from '../src/logger.js';
import { loginsShown, seed } from '../src/seed.js';
import { newPassword, refusePasswordFlag, setUserPassword } from './user-password.js';
import { BACKUP_HELP, backupCommands } from './backup-commands.js';
import { TARIFF_FLAGS, TARIFF_HELP, tariffOf } from './tariff-flags.js';

const SHIPPING_CREATE =
  'shipping:create --account ID --code fastship --name "Fast Ship" --url URL --api-key KEY --secret SECRET ' +
  `[--timeout-ms 5000]\n                                   ${TARIFF_HELP}\n` +
  `  shipping:update --id ID [--name NAME] [--url URL] ${TARIFF_HELP}`;

const HELP = `LeadFlow operator CLI: npm run -s cli -- <command> (npm run -s cli:prod -- <command> on a build).
Every command accepts --json (one JSON object on stdout).

  migrate [up|down] [--all]        apply pending migrations, or revert the last one (--all: every one)
  seed                             create the admin (and the demo account, SEED_DEMO) if the database has no admin
  user:password --email E [--generate|--password-stdin] [--activate]
                                   set a login's password: typed twice on a terminal, read from a pipe with
                                   --password-stdin, else generated and printed once; ends its sessions, API tokens
                                   and reset links (--activate: switch the login on)
  account:create --name NAME
  account:update --id ID [--name NAME] [--stock-policy track|enforce] [--buyer-delivery-fee N] [--currency MAD]
  accounts:list
  user:create --account ID --role seller|agent|admin --email E --name "Full Name" [--generate|--password-stdin]
                                   the password as for user:password (never on the command line)
  product:create --account ID --sku SKU --name NAME --price N [--inactive]
  ${SHIPPING_CREATE}
  token:create --email USER_EMAIL --name NAME --scopes "CREATE LEADS,VIEW LEADS" [--expires 2027-01-01]
  counts:check [--repair]          recount every list total kept in row_counts; --repair rebuilds them if one differs
  stock:check [--repair]          add up the stock ledger again; --repair writes the levels from it if one differs
                                  (waiting: shipments and returns the worker has yet to move; failed: ones it could not)
  kpi:rebuild                      recompute the KPI dashboard's daily rollup from the leads (the job folds changes)
${BACKUP_HELP}
  help`;

/** Flags that take a value; the rest are switches. */
const STRING_FLAGS = [
  'name',
  'account',
  'role',
  'email',
  'password',
  'sku',
  'price',
  'scopes',
  'expires',
  'code',
  'url',
  'api-key',
  'secret',
  'timeout-ms',
  'id',
  'stock-policy',
  'buyer-delivery-fee',
  'currency',
  ...TARIFF_FLAGS,
];

type Flags = Record<string, string | boolean | undefined>;
type Command = (ctx: AppContext, flags: Flags, positionals: string[]) => Promise<object>;

const sys = systemActor();
const str = (f: Flags, k: string) => (typeof f[k] === 'string' ? (f[k] as string) : undefined);
const num = (f: Flags, k: string) => (str(f, k) === undefined ? undefined : Number(str(f, k)));

export const commands: Record<string, Command> = {
  async seed(ctx) {
    const r = await seed(ctx);
    if (!r.created) return { created: false };
    await loginsShown(ctx, r.admin!.email);
    return { created: true, admin: r.admin, ...(r.demo ? { demo: r.demo } : {}) };
  },
  'user:password': (ctx, f) => setUserPassword(ctx, f),
  async 'account:create'(ctx, f) {
    return ctx.services.accounts.createAccount(sys, { name: str(f, 'name')! });
  },
  async 'account:update'(ctx, f) {
    const fee = str(f, 'buyer-delivery-fee');
    const input = {
      name: str(f, 'name'),
      stock_policy: str(f, 'stock-policy') as 'track' | 'enforce' | undefined,
      currency: str(f, 'currency'),
      // a figure that is not a number stays text, for the service to refuse in words
      buyer_delivery_fee: (fee === undefined || !Number.isFinite(Number(fee)) ? fee : Number(fee)) as
        number | undefined,
    };
    return ctx.services.accounts.updateAccount(sys, num(f, 'id') ?? 0, input);
  },
  async 'accounts:list'(ctx) {
    return { accounts: await ctx.services.accounts.listAccounts(sys) };
  },
  async 'user:create'(ctx, f) {
    refusePasswordFlag('user:create', f);
    const { password, generated } = await newPassword(f);
    const user = await ctx.services.accounts.createUser(sys, {
      account_id: num(f, 'account')!,
      role: str(f, 'role') as Role,
      email: str(f, 'email')!,
      password,
      name: str(f, 'name')!,
    });
    return { ...user, ...(generated ? { password } : {}) };
  },
  async 'product:create'(ctx, f) {
    return ctx.services.catalogue.createProduct(sys, {
      account_id: num(f, 'account'),
      sku: str(f, 'sku')!,
      name: str(f, 'name')!,
      price: num(f, 'price')!,
      active: !f.inactive,
    });
  },
  async 'shipping:create'(ctx, f) {
    return ctx.services.shipping.createCompany(sys, {
      account_id: num(f, 'account'),
      code: str(f, 'code')!,
      name: str(f, 'name')!,
      endpoint_url: str(f, 'url')!,
      api_key: str(f, 'api-key'),
      hmac_secret: str(f, 'secret')!,
      timeout_ms: num(f, 'timeout-ms'),
      ...tariffOf(f),
    });
  },
  async 'shipping:update'(ctx, f) {
    return ctx.services.shipping.updateCompany(sys, num(f, 'id') ?? 0, {
      ...(str(f, 'name') === undefined ? {} : { name: str(f, 'name') }),
      ...(str(f, 'url') === undefined ? {} : { endpoint_url: str(f, 'url') }),
      ...tariffOf(f),
    });
  },
  async 'token:create'(ctx, f) {
    const user = await ctx.services.accounts.findUserByEmail(str(f, 'email') ?? '');
    if (!user) throw ValidationError.single('email', 'No user has this email.');
    const scopes = (str(f, 'scopes') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean) as Scope[];
    return ctx.services.tokens.createToken(sys, {
      user_id: user.id,
      name: str(f, 'name')!,
      scopes,
      expires_at: str(f, 'expires') ?? undefined,
    });
  },
  async 'counts:check'(ctx, f) {
    const differing = await ctx.services.rowCounts.check({ repair: !!f.repair });
    return { exact: differing.length === 0, differing, repaired: !!f.repair && differing.length > 0 };
  },
  async 'stock:check'(ctx, f) {
    const { drifts, repaired, waiting, failed } = await ctx.services.stock.check(sys, !!f.repair);
    return { exact: drifts.length === 0, differing: drifts, repaired: repaired > 0, waiting, failed };
  },
  async 'kpi:rebuild'(ctx) {
    const started = Date.now();
    const days = await ctx.services.kpi.rebuild();
    return { days, seconds: (Date.now() - started) / 1000 };
  },
};

function print(result: object, json: boolean): void {
  if (json) process.stdout.write(JSON.stringify(result) + '\n');
  else
    for (const [k, v] of Object.entries(result))
      process.stdout.write(`${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}\n`);
}

async function run(argv: string[]): Promise<void> {
  const { values: flags, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    options: {
      json: { type: 'boolean' },
      all: { type: 'boolean' },
      inactive: { type: 'boolean' },
      repair: { type: 'boolean' },
      generate: { type: 'boolean' },
      'password-stdin': { type: 'boolean' },
      activate: { type: 'boolean' },
      unverified: { type: 'boolean' },
      ...Object.fromEntries(STRING_FLAGS.map((k) => [k, { type: 'string' as const }])),
    },
  });
  const [name, ...rest] = positionals;
  const json = !!flags.json;
  if (!name || name === 'help') {
    if (json) print({ commands: [...Object.keys(commands), ...Object.keys(backupCommands), 'migrate', 'help'] }, true);
    else process.stdout.write(HELP + '\n');
    return;
  }
  if (backupCommands[name]) return print(await backupCommands[name](rest, flags), json);
  const config = loadConfig();
  const logger = createLogger('silent');
  if (name === 'migrate') {
    const db = await openDatabase(config, { log: () => {} });
    try {
      const direction = rest[0] ?? 'up';
      if (direction !== 'up' && direction !== 'down')
        throw new ConfigError(`Unknown migrate direction "${direction}": use up or down`);
      const applied =
        direction === 'up'
          ? await migrateUp(db.sequelize, db.url)
          : await migrateDown(db.sequelize, db.url, !!flags.all);
      print({ direction, migrations: applied }, json);
    } finally {
      await db.close();
    }
    return;
  }
  const cmd = commands[name];
  if (!cmd) throw new ConfigError(`Unknown command "${name}". Run: npm run -s cli -- help`);
  const ctx = await createAppContext(config, { logger });
  try {
    print(await cmd(ctx, flags as Flags, rest), json);
  } finally {
    await ctx.close();
  }
}

run(process.argv.slice(2)).catch((err) => {
  const message =
    err instanceof ValidationError
      ? Object.entries(err.errors)
          .map(([k, v]) => `${k}: ${v.join(' ')}`)
          .join('; ')
      : err instanceof AppError || err instanceof ConfigError
        ? err.message
        : `Error: ${(err as Error)?.message ?? String(err)}`;
  if (process.argv.includes('--json')) process.stdout.write(JSON.stringify({ error: message }) + '\n');
  process.stderr.write(message + '\n');
  process.exit(1);
});
