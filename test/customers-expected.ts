import { QueryTypes } from 'sequelize';
import type { TestAccount } from './factories.js';
import { getCtx } from './hooks.js';

/**
 * The customers of an account computed by this test, independently of the triggers: counts from the leads and orders
 * tables, an order's outcome from its latest history entry (what the carrier callback wrote), the latest lead's city.
 */
export async function recomputed(accountId: number) {
  return getCtx().db.sequelize.query(
    `WITH keys AS (SELECT phone_normalized FROM leads WHERE account_id = $1 AND phone_normalized IS NOT NULL
                   UNION SELECT phone_normalized FROM orders WHERE account_id = $1 AND phone_normalized IS NOT NULL),
          outcome AS (SELECT DISTINCT ON (h.order_id) h.order_id, h.new_status FROM order_histories h
                       WHERE h.account_id = $1 ORDER BY h.order_id, h.changed_at DESC, h.id DESC)
     SELECT k.phone_normalized,
            (SELECT count(*)::int FROM leads l WHERE l.account_id = $1 AND l.phone_normalized = k.phone_normalized)
              AS leads,
            (SELECT count(*)::int FROM leads l WHERE l.account_id = $1 AND l.phone_normalized = k.phone_normalized
                AND l.status = 'confirmed') AS confirmed,
            (SELECT count(*)::int FROM orders o WHERE o.account_id = $1 AND o.phone_normalized = k.phone_normalized)
              AS orders,
            ${['delivered', 'returned', 'canceled']
              .map(
                (s) => `(SELECT count(*)::int FROM orders o JOIN outcome x ON x.order_id = o.id
                          WHERE o.account_id = $1 AND o.phone_normalized = k.phone_normalized
                            AND x.new_status = '${s}') AS ${s}`,
              )
              .join(', ')},
            (SELECT min(t.created_at) FROM (SELECT created_at FROM leads WHERE account_id = $1
                                              AND phone_normalized = k.phone_normalized
                                            UNION ALL SELECT created_at FROM orders WHERE account_id = $1
                                              AND phone_normalized = k.phone_normalized) t) AS first_seen_at,
            (SELECT max(t.created_at) FROM (SELECT created_at FROM leads WHERE account_id = $1
                                              AND phone_normalized = k.phone_normalized
                                            UNION ALL SELECT created_at FROM orders WHERE account_id = $1
                                              AND phone_normalized = k.phone_normalized) t) AS last_seen_at,
            (coalesce((SELECT array[l.city] FROM leads l WHERE l.account_id = $1
                         AND l.phone_normalized = k.phone_normalized ORDER BY l.id DESC LIMIT 1),
                     (SELECT array[o.city] FROM orders o WHERE o.account_id = $1
                         AND o.phone_normalized = k.phone_normalized ORDER BY o.id DESC LIMIT 1)))[1] AS city,
            (SELECT o.reference || ' ' || x.new_status FROM orders o JOIN outcome x ON x.order_id = o.id
              WHERE o.account_id = $1 AND o.phone_normalized = k.phone_normalized
              ORDER BY o.created_at DESC, o.id DESC LIMIT 1) AS last_order
       FROM keys k ORDER BY 1`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );
}

/** The customers rows the triggers keep, in the shape of `recomputed`. */
export async function stored(accountId: number) {
  return getCtx().db.sequelize.query(
    `SELECT phone_normalized, leads, confirmed, orders, delivered, returned, canceled, first_seen_at, last_seen_at,
            city, last_order_reference || ' ' || last_order_status AS last_order
       FROM customers WHERE account_id = $1 ORDER BY 1`,
    { bind: [accountId], type: QueryTypes.SELECT },
  );
}

export const lead = (acc: TestAccount, phone: string, over: Record<string, unknown> = {}) => ({
  phone,
  full_name: 'Karim Haddad',
  city: 'Fes',
  products: [{ sku: acc.skus.active[0], quantity: 1, price: 150 }],
  ...over,
});
