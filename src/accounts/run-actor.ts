import { userActor, type Actor } from '../actor.js';
import type { User } from './user.model.js';

/**
 * A background run acts as the user who started it (history shows their name, the policy their role). When that user
 * is gone the run fails with a message instead of running as nobody.
 */
export async function runActor(
  run: { user_id: number | null; update(values: object): Promise<unknown> },
  users: { findByPk(id: number): Promise<User | null> },
  what: 'import' | 'export',
): Promise<Actor | null> {
  const user = run.user_id ? await users.findByPk(run.user_id) : null;
  if (user) return userActor(user);
  await run.update({
    status: 'failed',
    error: `The user who started this ${what} no longer exists.`,
    finished_at: new Date(),
  });
  return null;
}
