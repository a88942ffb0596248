import type { Catalogue } from '../leads/lead.check.js';
import { LINE_BOUNDS } from '../leads/lead.schemas.js';
import { record, text } from './store-payload.js';

/** One line of a shop order, as the platform's adapter read it (docs/lead-sources.md, "Payload mapping"). */
export interface StoreLine {
  name: string;
  sku: string | null;
  productId: string | null;
  variantId: string | null;
  quantity: number | null;
  /** Unit price. */
  price: number | null;
}

/** A shop order, whatever the platform: candidates in the order they are tried, the first that fits wins. */
export interface StoreOrder {
  /** The shop's order id: the lead's external_id, one lead per order. */
  orderId: string;
  /** What the shop calls the order (Shopify `#1001`, WooCommerce's number). */
  label: string | null;
  phones: unknown[];
  names: (string | null)[];
  cities: unknown[];
  addresses: unknown[];
  areas: unknown[];
  lines: StoreLine[];
  payment: string | null;
  landingSite: string | null;
}

/** What one platform's webhook looks like: its headers, the topic LeadFlow turns into leads, and its order body. */
export interface StorePlatform {
  kind: 'shopify' | 'woocommerce';
  label: string;
  topic: string;
  /** Header names, lower case as Node gives them. */
  headers: { signature: string; topic: string; delivery: string; shop: string };
  /** A delivery the platform sends to test the address, answered 200 and not logged (WooCommerce's ping). */
  isPing(raw: Buffer, signature: string | undefined): boolean;
  /** The order in `payload`, or why it is not one. */
  readOrder(payload: unknown): StoreOrder | string;
}

/** A line LeadFlow could not make a product line of, and why. */
export interface KeptLine {
  line: StoreLine;
  why: string;
}
export interface ResolvedLines {
  products: { sku: string; quantity: number; price: number }[];
  kept: KeptLine[];
}

/** The source's mapping target for `key`, if it names one (own keys only: a sku may be called `constructor`). */
function mapped(mapping: Record<string, unknown>, key: string | null): string | null {
  return key !== null && Object.hasOwn(mapping, key) ? text(mapping[key]) : null;
}

/** The account skus a line may be, in order: its own sku, then the mapping by sku, by variant id, by product id. */
function skuCandidates(line: StoreLine, mapping: Record<string, unknown>): string[] {
  const all = [line.sku, ...[line.sku, line.variantId, line.productId].map((k) => mapped(mapping, k))];
  return all.filter((s): s is string => s !== null);
}

/** Every account sku the lines may be (what the catalogue lookup needs). */
export const wantedSkus = (lines: StoreLine[], mappingJson: unknown): string[] => [
  ...new Set(lines.flatMap((l) => skuCandidates(l, record(mappingJson)))),
];

const within = (n: number | null, b: { min: number; max: number }) => n !== null && n >= b.min && n <= b.max;

/**
 * The order's lines as the lead's product lines: each line is the first of its skuCandidates that is an active sku of
 * the account, with its quantity and unit price (the catalogue price when the line has none). A line that maps to
 * nothing, or whose quantity or price the spec's bounds refuse, is kept (never dropped) with the reason.
 */
export function resolveLines(lines: StoreLine[], mappingJson: unknown, catalogue: Catalogue): ResolvedLines {
  const mapping = record(mappingJson);
  const out: ResolvedLines = { products: [], kept: [] };
  for (const line of lines) {
    const sku = skuCandidates(line, mapping).find((s) => catalogue.has(s));
    const price = line.price ?? (sku ? catalogue.get(sku)!.price : null);
    if (!sku) out.kept.push({ line, why: 'not mapped' });
    else if (line.quantity === null || !Number.isInteger(line.quantity) || !within(line.quantity, LINE_BOUNDS.quantity))
      out.kept.push({ line, why: `quantity ${line.quantity ?? 'missing'} outside 1–999` });
    else if (!within(price, LINE_BOUNDS.price)) out.kept.push({ line, why: `price ${price} outside 1–999,999` });
    else out.products.push({ sku, quantity: line.quantity, price: price! });
  }
  return out;
}

/** A kept line as a data value of at most 100 characters: `<name> × <qty> @ <price> (sku …)`, the name cut first. */
export function keptValue({ line }: KeptLine): string {
  const tail = ` × ${line.quantity ?? '?'} @ ${line.price ?? '?'} (sku ${line.sku ?? 'none'})`.slice(0, 80);
  return `${line.name.slice(0, 100 - tail.length)}${tail}`;
}

/** The intake log's reason for kept lines: "1 line not mapped: Gift (sku G1)"; null when every line is a product. */
export function keptReason(kept: KeptLine[]): string | null {
  if (!kept.length) return null;
  const each = kept.map((k) => `${k.line.name} (${k.why === 'not mapped' ? `sku ${k.line.sku ?? 'none'}` : k.why})`);
  return `${kept.length} line${kept.length > 1 ? 's' : ''} not mapped: ${each.join('; ')}`;
}

/** The spec's bounds of the lead's optional text fields and of its name. */
const BOUNDS = { full_name: 3, city: 3, area: 3, address: 5 } as const;
const MAX_TEXT = 100;

/**
 * The first candidate long enough for the field (cut to 100 characters); when none is, the first one is kept in the
 * lead's data under the field's name instead of being lost.
 */
function fitting(field: keyof typeof BOUNDS, candidates: unknown[], data: { key: string; value: string }[]) {
  const present = candidates.map(text).filter((c): c is string => c !== null);
  const fit = present.find((c) => c.length >= BOUNDS[field]);
  if (fit) return fit.slice(0, MAX_TEXT);
  if (present.length) data.push({ key: field, value: present[0].slice(0, MAX_TEXT) });
  return undefined;
}

/**
 * The lead item of an order (the spec's Lead table, checked afterwards by prepareLeads): contact fields from the
 * first fitting candidates (no fitting name: "Order #1001"), the resolved product lines, and in `data` the shop's
 * order name, the payment method and every kept line, flagged `needs_mapping: yes`.
 */
export function leadItemOf(order: StoreOrder, lines: ResolvedLines) {
  const data: { key: string; value: string }[] = [];
  if (order.label) data.push({ key: 'store_order', value: order.label.slice(0, MAX_TEXT) });
  if (order.payment) data.push({ key: 'payment', value: order.payment.slice(0, MAX_TEXT) });
  const item = {
    phone: order.phones.map(text).find((p) => p !== null),
    // a buyer without a usable name is still a lead: named after the order, the name as given kept in data
    full_name: fitting('full_name', order.names, data) ?? `Order ${order.label ?? order.orderId}`.slice(0, MAX_TEXT),
    city: fitting('city', order.cities, data),
    area: fitting('area', order.areas, data),
    address: fitting('address', order.addresses, data),
    products: lines.products,
  };
  for (const k of lines.kept) data.push({ key: 'unmapped_line', value: keptValue(k) });
  if (lines.kept.length) data.push({ key: 'needs_mapping', value: 'yes' });
  return { ...item, data };
}
