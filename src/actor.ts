import type { Language } from './languages.js';

export const ROLES = ['admin', 'seller', 'agent'] as const;
export type Role = (typeof ROLES)[number];

export const SCOPES = [
  'CREATE LEADS',
  'VIEW LEADS',
  'UPDATE LEADS',
  'DELETE LEADS',
  'CREATE ORDERS',
  'VIEW ORDERS',
  'UPDATE ORDERS',
  'DELETE ORDERS',
  'MANAGE WEBHOOKS',
  'MANAGE BLOCKLIST',
  'MANAGE SOURCES',
  'MANAGE STOCK',
  'MANAGE CASH',
] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * Who is acting. Every service method takes one; the account scope of each query and the display name written
 * into histories (`changed_by`) come from it.
 */
export type Actor =
  /** sessionId: the dashboard session acting (a password change ends the user's other sessions, not this one). */
  /** language: the user's panel language (chosen, or the browser's), for words shown back to them. */
  | {
      kind: 'user';
      userId: number;
      accountId: number;
      role: Role;
      name: string;
      sessionId?: string;
      language?: Language;
    }
  | {
      kind: 'token';
      tokenId: number;
      userId: number;
      accountId: number;
      role: Role;
      scopes: readonly Scope[];
      name: string;
    }
  | { kind: 'system'; accountId: number | null; name: 'system' };

export function userActor(
  u: { id: number; account_id: number; role: Role; name: string; language?: Language | null },
  sessionId?: string,
): Actor {
  return {
    kind: 'user',
    userId: u.id,
    accountId: u.account_id,
    role: u.role,
    name: u.name,
    ...(sessionId ? { sessionId } : {}),
    ...(u.language ? { language: u.language } : {}),
  };
}

/** changed_by for REST changes is "token name (owner name)". */
export function tokenActor(
  t: { id: number; user_id: number; account_id: number; name: string; scopes: string[] },
  owner: { name: string; role: Role },
): Actor {
  return {
    kind: 'token',
    tokenId: t.id,
    userId: t.user_id,
    accountId: t.account_id,
    role: owner.role,
    scopes: t.scopes as Scope[],
    name: `${t.name} (${owner.name})`,
  };
}

export function systemActor(accountId: number | null = null): Actor {
  return { kind: 'system', accountId, name: 'system' };
}

export function actorUserId(a: Actor): number | null {
  return a.kind === 'system' ? null : a.userId;
}
