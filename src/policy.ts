import type { Actor, Role, Scope } from './actor.js';
import { ForbiddenError, ValidationError } from './errors.js';

export const ABILITIES = ['viewAny', 'view', 'create', 'update', 'delete', 'import', 'export'] as const;
export type Ability = (typeof ABILITIES)[number];

export const RESOURCES = [
  'lead',
  'order',
  'leadHistory',
  'orderHistory',
  'product',
  'city',
  'token',
  'user',
  'account',
  'shippingCompany',
  'importRun',
  'exportRun',
  'webhook',
  'blocklist',
  'customer',
  'source',
  'stock',
  'cash',
] as const;
export type Resource = (typeof RESOURCES)[number];

type Grid = Partial<Record<Resource, readonly Ability[]>>;

const ALL: readonly Ability[] = ABILITIES;
const READ: readonly Ability[] = ['viewAny', 'view'];
const CRUD: readonly Ability[] = ['viewAny', 'view', 'create', 'update', 'delete'];

/** decisions.md "Tenancy and roles": what each dashboard role may do (within its account unless admin). */
const ROLE_GRID: Record<Role, Grid> = {
  // every resource, so one added to RESOURCES is not silently refused to admins
  admin: Object.fromEntries(RESOURCES.map((r) => [r, ALL])),
  seller: {
    lead: ALL,
    order: ALL,
    leadHistory: READ,
    orderHistory: READ,
    product: CRUD,
    city: READ,
    token: ['viewAny', 'view', 'create', 'delete'],
    user: CRUD,
    // their own account's settings (name, phone country); creating and deleting accounts is the admins'
    account: ['view', 'update'],
    shippingCompany: CRUD,
    importRun: ['viewAny', 'view', 'create'],
    exportRun: ['viewAny', 'view', 'create'],
    webhook: CRUD,
    // the account's blocked phones (docs/decisions.md "Blocklist"): an entry is added or removed, never edited
    blocklist: ['viewAny', 'view', 'create', 'delete'],
    // customer records are kept by the database (migration 20261208100000): read, never written by anyone
    customer: READ,
    // the account's landing-page forms and shops (docs/lead-sources.md "Sources")
    source: CRUD,
    // warehouses, levels, the ledger and the products' thresholds (docs/stock.md); movements are added, never edited
    stock: ['viewAny', 'view', 'create', 'update'],
    // the money of delivered orders and the carriers' statements (docs/cash.md); a statement is recorded, never edited
    cash: ['viewAny', 'view', 'create'],
  },
  agent: {
    lead: ['viewAny', 'view', 'update'],
    order: ['viewAny', 'view', 'update'],
    leadHistory: READ,
    orderHistory: READ,
    product: READ,
    city: READ,
    account: ['view'],
    // they see why a caller's leads arrive canceled; blocking and unblocking is the seller's call
    blocklist: READ,
    // who is on the line: the agent decides the call with it
    customer: READ,
    // what is left on the shelf before promising a delivery
    stock: READ,
  },
};

/** REST tokens: their scopes decide, never the owner's role beyond it. */
const SCOPE_GRID: Partial<Record<Resource, Partial<Record<Ability, Scope>>>> = {
  lead: {
    viewAny: 'VIEW LEADS',
    view: 'VIEW LEADS',
    create: 'CREATE LEADS',
    update: 'UPDATE LEADS',
    delete: 'DELETE LEADS',
  },
  order: {
    viewAny: 'VIEW ORDERS',
    view: 'VIEW ORDERS',
    create: 'CREATE ORDERS',
    update: 'UPDATE ORDERS',
    delete: 'DELETE ORDERS',
  },
  leadHistory: { viewAny: 'VIEW LEADS', view: 'VIEW LEADS' },
  orderHistory: { viewAny: 'VIEW ORDERS', view: 'VIEW ORDERS' },
  webhook: {
    viewAny: 'MANAGE WEBHOOKS',
    view: 'MANAGE WEBHOOKS',
    create: 'MANAGE WEBHOOKS',
    update: 'MANAGE WEBHOOKS',
    delete: 'MANAGE WEBHOOKS',
  },
  blocklist: {
    viewAny: 'MANAGE BLOCKLIST',
    view: 'MANAGE BLOCKLIST',
    create: 'MANAGE BLOCKLIST',
    delete: 'MANAGE BLOCKLIST',
  },
  source: {
    viewAny: 'MANAGE SOURCES',
    view: 'MANAGE SOURCES',
    create: 'MANAGE SOURCES',
    update: 'MANAGE SOURCES',
    delete: 'MANAGE SOURCES',
  },
  stock: { viewAny: 'MANAGE STOCK', view: 'MANAGE STOCK', create: 'MANAGE STOCK', update: 'MANAGE STOCK' },
  cash: { viewAny: 'MANAGE CASH', view: 'MANAGE CASH', create: 'MANAGE CASH' },
};

/** Roles ordered by what they may do: nobody grants, changes or acts as a role above their own. */
const RANK: Record<Role, number> = { agent: 1, seller: 2, admin: 3 };

/**
 * A record of another account is never allowed (services answer it like an unknown one). A record that carries a
 * role (a user, or the owner of a token being created) may be touched only by an actor of that rank or above.
 */
function recordAllowed(
  actor: Actor,
  resource: Resource,
  record?: { account_id?: number | null; role?: string },
): boolean {
  if (!record || actor.kind === 'system') return true;
  if (actor.kind === 'user' && actor.role === 'admin') return true;
  if (resource === 'city') return true;
  if (record.account_id != null && record.account_id !== actor.accountId) return false;
  if (record.role !== undefined && !(RANK[record.role as Role] <= RANK[actor.role])) return false;
  return true;
}

/**
 * One decision for every entry point: REST, dashboard routes, admin panel and jobs. A token may do what its scopes
 * name and its owner's current role allows (a seller's DELETE LEADS token stops deleting once the seller is an agent).
 */
export function can(
  actor: Actor,
  ability: Ability,
  resource: Resource,
  record?: { account_id?: number | null; role?: string },
): boolean {
  if (actor.kind === 'system') return true;
  const roleAllows = ROLE_GRID[actor.role][resource]?.includes(ability) ?? false;
  if (actor.kind === 'token') {
    const scope = SCOPE_GRID[resource]?.[ability];
    return !!scope && actor.scopes.includes(scope) && roleAllows && recordAllowed(actor, resource, record);
  }
  return roleAllows && recordAllowed(actor, resource, record);
}

export function authorize(
  actor: Actor,
  ability: Ability,
  resource: Resource,
  record?: { account_id?: number | null; role?: string },
): void {
  if (!can(actor, ability, resource, record)) throw new ForbiddenError();
}

/** True when the actor sees every account (system-level admin). */
export function isSystemWide(actor: Actor): boolean {
  return actor.kind === 'system' ? actor.accountId === null : actor.kind === 'user' && actor.role === 'admin';
}

/** A user or token of one account (not an admin, not the system): who must not learn about other accounts. */
export const isTenantActor = (actor: Actor) => actor.kind !== 'system' && !isSystemWide(actor);

/**
 * The account filter every tenant query adds: `{ account_id }` of the actor, or (for an admin) the account
 * the admin chose to look at, or nothing to see all accounts.
 */
export function accountScope(actor: Actor, requestedAccountId?: number | null): { account_id?: number } {
  if (isSystemWide(actor)) return requestedAccountId ? { account_id: requestedAccountId } : {};
  return { account_id: actor.accountId as number };
}

/**
 * The account a list or a create names (`account_id` of the request): the actor's own, where naming another is refused
 * like an unknown one (422); for an admin the one named, or none (every account).
 */
export function namedAccountScope(actor: Actor, accountId?: number): number | undefined {
  const scope = accountScope(actor, accountId).account_id;
  if (accountId !== undefined && accountId !== scope)
    throw ValidationError.single('account_id', 'The selected account_id is invalid.');
  return scope;
}

/**
 * The account that new rows belong to: the actor's own, or for a system-wide actor (an admin) the account named in the
 * input, which an admin without an account of its own must name.
 */
export function targetAccount(actor: Actor, requested?: number | null): number {
  const id = isSystemWide(actor) ? (requested ?? actor.accountId) : actor.accountId;
  if (!id) throw ValidationError.single('account_id', 'The account_id field is required.');
  return id;
}

/**
 * Working the agent queue (taking a lead, setting its outcome, giving it back) is viewing and updating leads: an agent,
 * a seller or an admin; a token needs both VIEW LEADS and UPDATE LEADS. With `record`, within its account.
 */
export function authorizeQueueWork(actor: Actor, record?: { account_id?: number | null }): void {
  authorize(actor, 'view', 'lead', record);
  authorize(actor, 'update', 'lead', record);
}
