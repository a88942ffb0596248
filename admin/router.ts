import type { Express } from 'express';
import type { AppContext } from '../src/app-context.js';

/** Session login, the spec's dashboard routes and the AdminJS panel under /admin. */
export async function mountDashboard(_app: Express, _ctx: AppContext): Promise<void> {}
