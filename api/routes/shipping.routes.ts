import express, { type Router } from 'express';
import type { AppContext } from '../../src/app-context.js';
import { carrierCallbackSchema, type CarrierUpdate } from '../../src/orders/order.schemas.js';
import { validate } from '../../src/validation.js';
import { route } from '../async.js';

/**
 * POST /shipping/{code}/callback: the carrier's status updates, authenticated by the same HMAC signature as pushes
 * (X-Signature: sha256=<hex> over the raw body), not by a bearer token.
 */
export function createShippingCallbackRoutes(ctx: AppContext): Router {
  const r = express.Router();
  r.post('/shipping/:code/callback', express.raw({ type: () => true, limit: '5mb' }), route(async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const company = await ctx.services.shipping.findBySignature(req.params.code, raw, req.headers['x-signature']);
    if (!company) {
      res.status(401).json({ message: 'Invalid signature.' });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      res.status(400).json({ message: 'Malformed JSON body.' });
      return;
    }
    const { orders } = validate<{ orders: CarrierUpdate[] }>(carrierCallbackSchema, body);
    const { updated } = await ctx.services.orders.applyCarrierUpdates(company.id, orders);
    res.json({ message: `${updated} orders updated.`, updated });
  }));
  return r;
}
