import type { Actor } from '../src/actor.js';

declare global {
  namespace Express {
    interface Request {
      id?: string;
      actor?: Actor;
    }
  }
}
export {};
