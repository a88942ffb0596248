import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';

/** The REST API under /api/web/1.0; each resource adds its router here. */
export function createRestRouter(_ctx: AppContext): Router {
  const router = express.Router();
  return router;
}
