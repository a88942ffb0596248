import type { OrderItem } from 'sequelize';

/** Product lines in the order they were written. */
export const LINE_ORDER: OrderItem[] = [
  ['position', 'ASC'],
  ['id', 'ASC'],
];
/** Status history oldest first. */
export const HISTORY_ORDER: OrderItem[] = [
  ['changed_at', 'ASC'],
  ['id', 'ASC'],
];

/** A product line of a lead or an order as answers show it (and the carrier receives it). */
export const lineView = (p: { sku: string; name: string; quantity: number; price: number | string }) => ({
  sku: p.sku,
  name: p.name,
  quantity: p.quantity,
  price: Number(p.price),
});

/** One history entry as a lead's or an order's show answers it, after its reference. */
export const historyView = (h: {
  old_status: string | null;
  new_status: string;
  changed_by: string;
  changed_at: Date;
}) => ({
  old_status: h.old_status,
  new_status: h.new_status,
  changed_by: h.changed_by,
  changed_at: h.changed_at.toISOString(),
});
