import { expect } from 'chai';
import type { Catalogue } from '../../src/leads/lead.check.js';
import {
  keptReason,
  keptValue,
  leadItemOf,
  resolveLines,
  wantedSkus,
  type StoreLine,
} from '../../src/sources/store-order.js';
import { shopify } from '../../src/sources/shopify.js';
import { utmOf } from '../../src/sources/store-payload.js';

/** How a shop order's lines and fields become a lead item (docs/lead-sources.md, "Payload mapping"). */
const catalogue = (...skus: string[]): Catalogue =>
  new Map(skus.map((sku, i) => [sku, { id: i + 1, sku, name: sku, price: 50 }]));
const line = (over: Partial<StoreLine> = {}): StoreLine => ({
  name: 'Shirt',
  sku: 'SHOP-1',
  productId: '100',
  variantId: '200',
  quantity: 1,
  price: 10,
  ...over,
});

describe('store orders: lines to products', () => {
  it('When the line sku is an active sku of the account, Then it wins over any mapping', () => {
    const { products } = resolveLines([line()], { 'SHOP-1': 'MAPPED', '200': 'MAPPED' }, catalogue('SHOP-1', 'MAPPED'));
    expect(products).to.deep.equal([{ sku: 'SHOP-1', quantity: 1, price: 10 }]);
  });

  it('When the mapping names the line by sku, by variant id and by product id, Then the sku entry wins, then the variant', () => {
    const mapping = { 'SHOP-1': 'BY-SKU', '200': 'BY-VARIANT', '100': 'BY-PRODUCT' };
    const all = catalogue('BY-SKU', 'BY-VARIANT', 'BY-PRODUCT');
    expect(resolveLines([line()], mapping, all).products[0].sku).to.equal('BY-SKU');
    expect(resolveLines([line({ sku: null })], mapping, all).products[0].sku).to.equal('BY-VARIANT');
    expect(resolveLines([line({ sku: null, variantId: null })], mapping, all).products[0].sku).to.equal('BY-PRODUCT');
  });

  it('When a mapping target is not an active sku, Then the next candidate is tried, and none left keeps the line', () => {
    const mapping = { 'SHOP-1': 'RETIRED', '100': 'LIVE' };
    expect(resolveLines([line()], mapping, catalogue('LIVE')).products[0].sku).to.equal('LIVE');
    const { products, kept } = resolveLines([line()], mapping, catalogue());
    expect([products, kept.map((k) => k.why)]).to.deep.equal([[], ['not mapped']]);
  });

  it('When the mapping is not an object, or a sku names a prototype member it does not hold, Then nothing maps through it', () => {
    for (const mapping of [null, 'x', ['A'], {}])
      expect(resolveLines([line({ sku: 'constructor' })], mapping, catalogue('A')).kept).to.have.length(1);
    // a shop sku that happens to be called so maps when the seller wrote it in the mapping
    expect(resolveLines([line({ sku: 'constructor' })], { constructor: 'A' }, catalogue('A')).products).to.have.length(
      1,
    );
    expect(wantedSkus([line({ sku: 'toString', variantId: '__proto__' })], {})).to.deep.equal(['toString']);
  });

  it('When a line has no price, Then the catalogue price; a quantity or price out of bounds keeps the line with why', () => {
    const all = catalogue('SHOP-1');
    expect(resolveLines([line({ price: null })], {}, all).products[0].price).to.equal(50);
    const { kept } = resolveLines([line({ quantity: 1000 }), line({ quantity: 1.5 }), line({ price: 0 })], {}, all);
    expect(kept.map((k) => k.why)).to.deep.equal([
      'quantity 1000 outside 1–999',
      'quantity 1.5 outside 1–999',
      'price 0 outside 1–999,999',
    ]);
  });

  it('When a kept line has a long name, Then its data value is 100 characters, the name cut and the sku kept', () => {
    const value = keptValue({ line: line({ name: 'N'.repeat(300), sku: 'LONG-SKU' }), why: 'not mapped' });
    expect(value).to.have.length(100);
    expect(value.endsWith(' × 1 @ 10 (sku LONG-SKU)')).to.equal(true);
    expect(keptReason([])).to.equal(null);
  });
});

describe('store orders: contact fields', () => {
  const order = (over: Record<string, unknown>) => {
    const read = shopify.readOrder({ id: 5, line_items: [], shipping_address: { phone: '+12025550123' }, ...over });
    if (typeof read === 'string') throw new Error(read);
    return leadItemOf(read, { products: [], kept: [] });
  };

  it('When no name candidate is 3 characters long, Then the lead is named after the order and the name kept in data', () => {
    const item = order({ name: '#1001', shipping_address: { phone: '+12025550123', first_name: 'Al' } });
    expect(item.full_name).to.equal('Order #1001');
    expect(item.data).to.deep.include({ key: 'full_name', value: 'Al' });
  });

  it('When a field is longer than 100 characters, Then it is cut to 100; a 2-letter province falls to address2', () => {
    const long = 'Rue '.repeat(40);
    const item = order({
      shipping_address: { phone: '+12025550123', address1: long, city: 'Rabat', province: 'KY', address2: 'Agdal' },
    });
    expect(item.address).to.equal(long.trim().slice(0, 100));
    expect(item.area).to.equal('Agdal');
  });

  it('When the landing page names UTM fields, Then those five are kept; a query without them, or no address, none', () => {
    expect(utmOf('/p?utm_source=fb&utm_medium=cpc&utm_term=%20x%20&gclid=1')).to.deep.equal({
      utm_source: 'fb',
      utm_medium: 'cpc',
      utm_term: 'x',
    });
    expect(utmOf('/p?gclid=1')).to.equal(null);
    expect(utmOf(null)).to.equal(null);
  });
});
