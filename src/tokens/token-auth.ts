import crypto from 'node:crypto';
import { tokenActor, type Actor } from '../actor.js';
import type { Core } from '../context.js';
import type { Subscription } from '../db/notifications.js';
import { isRowId } from '../query.js';
import { findTokenWithOwner, touchToken } from './token.repository.js';

/** last_used_at is written at most once a minute per token, never once per request. */
const TOUCH_INTERVAL_MS = 60_000;
/** A remembered token is looked up again after this long, even if no notification said it changed. */
const REMEMBER_MS = 60_000;
/** Past this many remembered tokens the cache starts over (tokens are few; an id naming no token is not remembered). */
const MAX_REMEMBERED = 10_000;
/** The channel the token-change triggers notify (migrations/*-token-change-notifications.ts). */
export const TOKENS_CHANGED = 'api_tokens_changed';

const TOKEN = /^(\d{1,10})\|([A-Za-z0-9_-]{40})$/;

interface Remembered {
  hash: Buffer;
  expiresAt: number | null;
  active: boolean;
  actor: Actor;
  until: number;
}

export function sha256(s: string): string {
  return crypto.createHash('sha256').update(s).digest('hex');
}

/**
 * Resolves a bearer value "{id}|{secret}" to its actor, or null when malformed, unknown, expired or revoked, or when
 * its owner is inactive. What a token resolves to is remembered in the process, so a request costs no token query;
 * every change that can refuse a token notifies every process when it commits, and each forgets all it remembered as
 * the notification arrives (a request to another process right after a revocation is refused: tested). While the
 * listening connection is down or not yet open, nothing is remembered and every request looks its token up.
 */
export function createTokenAuthenticator(core: Core) {
  const { sequelize } = core.db;
  const remembered = new Map<number, Remembered>();
  const touched = new Map<number, number>();
  // Bumped by every notification: a lookup that started before one must not store what it read.
  let generation = 0;
  // subscribed by the web role or the first request: a worker or the CLI never opens the listening connection
  let subscription: Subscription | null = null;
  const feed = () =>
    (subscription ??= core.notifications.subscribe(TOKENS_CHANGED, () => {
      generation++;
      remembered.clear();
    }));

  async function lookup(id: number, now: number): Promise<Remembered | null> {
    const startedAt = generation;
    const live = feed().live();
    const t = await findTokenWithOwner(sequelize, id);
    if (!t) return null;
    const entry: Remembered = {
      hash: Buffer.from(t.token_hash, 'hex'),
      expiresAt: t.expires_at?.getTime() ?? null,
      active: t.owner_active,
      actor: tokenActor(t, { name: t.owner_name, role: t.owner_role }),
      until: now + REMEMBER_MS,
    };
    if (live && startedAt === generation && feed().live()) {
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      remembered.set(id, entry);
    }
    return entry;
  }

  function touch(id: number, now: number): void {
    if (now - (touched.get(id) ?? 0) <= TOUCH_INTERVAL_MS) return;
    touched.set(id, now);
    touchToken(sequelize, id, new Date(now)).catch((err) => core.logger.warn({ err }, 'token touch failed'));
  }

  /** Starts listening for token changes now (the web role does at start), not at the first request. */
  const watch = () => void feed();

  return { watch, authenticate };

  async function authenticate(raw: string): Promise<Actor | null> {
    const m = TOKEN.exec(raw ?? '');
    if (!m) return null;
    const id = Number(m[1]);
    if (!isRowId(id)) return null; // ten digits can name no token (ids are int4)
    const now = Date.now();
    const known = feed().live() ? remembered.get(id) : undefined;
    const t = known && known.until > now ? known : await lookup(id, now);
    if (!t) return null;
    const given = Buffer.from(sha256(m[2]), 'hex');
    if (t.hash.length !== given.length || !crypto.timingSafeEqual(t.hash, given)) return null;
    if ((t.expiresAt !== null && t.expiresAt <= now) || !t.active) return null;
    touch(id, now);
    return t.actor;
  }
}
