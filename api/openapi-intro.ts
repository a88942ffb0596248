import { SCOPES } from '../src/actor.js';
import type { DocLimits } from './openapi-common.js';

/** What the introduction lists per scope: the operations that need it. */
export interface ScopedOperation {
  method: string;
  path: string;
  scope: string;
}

function scopeTable(operations: ScopedOperation[]): string {
  const rows = SCOPES.map((scope) => {
    const ops = operations.filter((o) => o.scope.split(' and ').includes(scope));
    const list = ops.map((o) => `\`${o.method.toUpperCase()} ${o.path}\``).join(', ');
    return `| ${scope} | ${list || 'none yet'} |`;
  });
  return ['| Scope | Operations |', '|---|---|', ...rows].join('\n');
}

const body = (message: string) => `\`{"message":"${message}"}\``;
/** Every refusal: status, when, body. */
const ERRORS: [number, string, string][] = [
  [400, 'malformed JSON', body('Malformed JSON body.')],
  [401, "missing, malformed, unknown, expired or revoked token; a callback's bad signature", body('Unauthenticated.')],
  [403, 'the token lacks the scope', body('This action is unauthorized.')],
  [404, "unknown path, reference or id (another account's is unknown too)", body('Not found.')],
  [405, 'another method on a known path', body('The method is not supported for this route.')],
  [409, 'a conflict the operation names (queue claims, a replayed callback, a pending resend)', body('…')],
  [413, 'body over 5 MB', body('The request body is too large.')],
  [
    422,
    'validation: the first message, and every message by dotted path',
    '`{"message":"The leads.0.phone field is required.","errors":{"leads.0.phone":["The leads.0.phone field is ' +
      'required."]}}`',
  ],
  [429, 'over a rate limit (`Retry-After`)', body('Too Many Attempts.')],
  [500, 'unexpected failure; nothing internal is shown', body('Server Error')],
  [
    503,
    'the database cannot be reached (`Retry-After: 5`)',
    body('Service temporarily unavailable. Please retry shortly.'),
  ],
];
const errorTable = () =>
  ['| Status | When | Body |', '|---|---|---|', ...ERRORS.map(([s, when, b]) => `| ${s} | ${when} | ${b} |`)].join(
    '\n',
  );

/** The document's `info.description` (Markdown): what every operation shares, with the configured figures. */
export function introduction(limits: DocLimits, operations: ScopedOperation[]): string {
  return `Lead and order management for cash-on-delivery sellers. JSON in and out, under \`/api/web/1.0\`.

## Authentication
Every operation but the carrier callback, the store webhooks (both signed) and this document needs
\`Authorization: Bearer <id>|<secret>\`: a personal access token generated in the dashboard (Settings → API keys) or
with \`npm run cli -- token:create\`. The value is shown once; a token in the query string or the body is ignored.
The token and the rate limits are checked before the body is read.

## Scopes
A token carries scopes; each operation needs the one below (the queue's take-and-set operations need two), and the
token's owner must still hold the role. Without it: **403**.

${scopeTable(operations)}

## Rate limits
- **${limits.perToken} requests per minute per token** (per client IP for a request without a valid token),
  fixed one-minute window.
- **${limits.perAccount} requests per minute per account**, all its tokens together: minting tokens buys no more.
- Carrier callbacks: **${limits.callback} per minute per client IP**.

Every answer that passed the limiter carries \`X-RateLimit-Limit\` (the token's budget, ${limits.perToken}),
\`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds). Over either budget: **429**
\`{"message":"Too Many Attempts."}\` with \`Retry-After\` (seconds). Counters are shared by every process when Redis
is configured.

## Errors
Every refusal is JSON with a \`message\`:

${errorTable()}

No key anywhere in a body or query may be named like a member of a plain object (\`__proto__\`, \`constructor\`, …),
and no string may hold a control character or a lone UTF-16 surrogate: each is a 422 naming the field.

## Bulk writes and lists
Bulk writes (up to 1,000 items) are atomic: one bad item rejects the whole request with a 422 naming it, and nothing
is written. Lists take \`page\` and \`per_page\` (default 15, at most 100) and answer the Laravel paginator
\`{data, links, meta}\`, newest first unless said otherwise.`;
}
